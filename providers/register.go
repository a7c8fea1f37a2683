package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mcpchain/mcp/internal/strictjson"
)

// client is a registered MCP client, stored under client:{id}. Only the
// hash of its secret is kept.
type client struct {
	ID              string   `json:"client_id"`
	SecretHash      string   `json:"secret_hash,omitempty"`
	Name            string   `json:"client_name,omitempty"`
	RedirectURIs    []string `json:"redirect_uris"`
	AuthMethod      string   `json:"token_endpoint_auth_method"`
	GrantTypes      []string `json:"grant_types"`
	ApplicationType string   `json:"application_type,omitempty"`
	Scope           string   `json:"scope,omitempty"`
	IssuedAt        int64    `json:"client_id_issued_at"`
	// UsedAt is when tokens were last issued to the client (Unix
	// seconds; 0: never), which slides the registration's lifetime.
	UsedAt int64 `json:"used_at,omitempty"`
}

// maxRedirectBytes caps the redirect URIs of one registration together
// (each is also capped at maxRedirectURI): what is stored per client
// stays a few KB, however many clients anyone registers.
const maxRedirectBytes = 4096

// maxScopeBytes caps a scope string a client sends (registration,
// authorization, refresh).
const maxScopeBytes = 1024

// marshal is json.Marshal without the HTML escaping that turns each <
// into six bytes: stored records are never embedded in HTML.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the proxy's own records always encode
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name"`
	Scope                   string   `json:"scope"`
	ApplicationType         string   `json:"application_type"`
}

// handleRegister is dynamic client registration (RFC 7591).
func (p *Proxy) handleRegister(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, "POST")
		return
	}
	// A JSON body (RFC 7591 §3.1): a text/plain or form POST, which any
	// web page can make a visitor's browser send without a preflight, is
	// refused.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the registration must be sent as Content-Type: application/json")
		return
	}
	if ok, wait, addr := p.regLim.allow(r); !ok {
		p.log.Warn("client registration rate-limited", "addr", addr)
		refuse(w, wait, true)
		return
	}
	var req registration
	// Decoded strictly, as MCP requests are: a duplicate or case-variant
	// member ("Redirect_URIs") is refused, not read as another field.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFormBytes))
	if err == nil {
		if err = strictjson.Check(body, 16); err == nil {
			err = strictjson.Unmarshal(body, &req)
		}
	}
	if err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body must be a JSON object of client metadata (at most 64 KiB): "+strictjson.Clip(err.Error(), 300))
		return
	}
	c, code, msg := p.validateRegistration(&req)
	if code != "" {
		oauthError(w, http.StatusBadRequest, code, msg)
		return
	}
	resp := map[string]any{
		"client_id": c.ID, "client_id_issued_at": c.IssuedAt, "redirect_uris": c.RedirectURIs,
		"token_endpoint_auth_method": c.AuthMethod, "grant_types": c.GrantTypes, "response_types": []string{"code"},
	}
	if c.Name != "" {
		resp["client_name"] = c.Name
	}
	if c.Scope != "" {
		resp["scope"] = c.Scope
	}
	if c.ApplicationType != "" {
		resp["application_type"] = c.ApplicationType
	}
	if c.AuthMethod != "none" {
		secret := randomToken(32)
		c.SecretHash = hashKey(secret)
		resp["client_secret"], resp["client_secret_expires_at"] = secret, 0
	}
	if err := p.putClient(r.Context(), c, p.cfg.UnusedClientTTL, false); errors.Is(err, ErrStorageFull) {
		p.log.Warn("client registration refused: the registration quota is full")
		w.Header().Set("Retry-After", "60")
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "this server holds as many client registrations as it may; try again later")
		return
	} else if err != nil {
		p.log.Error("storing client registration", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "the registration could not be stored")
		return
	}
	p.log.Info("client registered", "client_id", c.ID, "client_name", c.Name, "auth_method", c.AuthMethod)
	writeJSON(w, http.StatusCreated, resp)
}

func (p *Proxy) validateRegistration(req *registration) (*client, string, string) {
	if desc := p.redirectURIsProblem(req.RedirectURIs); desc != "" {
		return nil, "invalid_redirect_uri", desc
	}
	method, desc := registeredAuthMethod(req.TokenEndpointAuthMethod)
	if desc != "" {
		return nil, "invalid_client_metadata", desc
	}
	kept, desc := registeredGrants(req.GrantTypes)
	if desc != "" {
		return nil, "invalid_client_metadata", desc
	}
	for _, rt := range req.ResponseTypes {
		if rt != "code" {
			return nil, "invalid_client_metadata", fmt.Sprintf("response_types: %q is not supported (only code)", rt)
		}
	}
	scope := ""
	if len(req.Scope) > maxScopeBytes {
		return nil, "invalid_client_metadata", fmt.Sprintf("scope is longer than %d bytes", maxScopeBytes)
	}
	if req.Scope != "" {
		want, ok := p.allowedScopes(req.Scope)
		if !ok {
			return nil, "invalid_client_metadata", fmt.Sprintf("scope %s asks for scopes this server does not offer (%s)", strictjson.Quote(strictjson.Clip(req.Scope, 200)), strings.Join(p.cfg.Scopes, " "))
		}
		scope = strings.Join(want, " ")
	}
	// application_type (OpenID Connect Dynamic Client Registration §2;
	// MCP clients must send it): web or native, nothing else is stored.
	switch req.ApplicationType {
	case "", "web", "native":
	default:
		return nil, "invalid_client_metadata", fmt.Sprintf("application_type %s: want web or native", strictjson.Quote(strictjson.Clip(req.ApplicationType, 40)))
	}
	if len(req.ClientName) > 200 {
		return nil, "invalid_client_metadata", "client_name is longer than 200 characters"
	}
	return &client{
		ID: randomToken(16), Name: req.ClientName, RedirectURIs: slices.Clone(req.RedirectURIs),
		AuthMethod: method, GrantTypes: kept, ApplicationType: req.ApplicationType, Scope: scope,
		IssuedAt: time.Now().Unix(),
	}, "", ""
}

// redirectURIsProblem checks a registration's redirect_uris: present, not
// too many nor too long together, each one the patterns allow. It returns
// what is wrong, or "" when nothing is.
func (p *Proxy) redirectURIsProblem(uris []string) string {
	if len(uris) == 0 {
		return "redirect_uris is required"
	}
	if len(uris) > maxRedirects {
		return fmt.Sprintf("at most %d redirect_uris", maxRedirects)
	}
	total := 0
	for _, u := range uris {
		total += len(u)
	}
	if total > maxRedirectBytes {
		return fmt.Sprintf("redirect_uris hold %d bytes together; at most %d", total, maxRedirectBytes)
	}
	for _, u := range uris {
		if err := checkRedirectURI(u, p.patterns); err != nil {
			return err.Error()
		}
	}
	return ""
}

// registeredAuthMethod is the token_endpoint_auth_method stored for a
// registration asking for method (client_secret_post when it names
// none), or what is wrong with it.
func registeredAuthMethod(method string) (string, string) {
	switch method {
	case "":
		return "client_secret_post", ""
	case "none", "client_secret_basic", "client_secret_post":
		return method, ""
	}
	return "", fmt.Sprintf("token_endpoint_auth_method %q is not supported: use none, client_secret_basic or client_secret_post", method)
}

// registeredGrants is the grant_types stored for a registration asking
// for grants (both when it names none), each once so that the stored list
// stays two entries at most; or what is wrong with them.
func registeredGrants(grants []string) ([]string, string) {
	if len(grants) == 0 {
		grants = []string{"authorization_code", "refresh_token"}
	}
	var kept []string
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, fmt.Sprintf("grant_types: %s is not supported (authorization_code and refresh_token are)", strictjson.Quote(strictjson.Clip(g, 40)))
		}
		if !slices.Contains(kept, g) {
			kept = append(kept, g)
		}
	}
	return kept, ""
}

// putClient stores c for ttl: a new registration (update false) counts
// against the storage's client quota; update rewrites a present one only.
func (p *Proxy) putClient(ctx context.Context, c *client, ttl time.Duration, update bool) error {
	key := ClientKeyPrefix + c.ID
	b := p.seal.seal(key, marshal(c))
	if update {
		_, err := p.store.Update(ctx, key, b, ttl)
		return err
	}
	return p.store.Put(ctx, key, b, ttl)
}

// touchClient slides the lifetime of a client tokens were just issued to
// (at most once a day, so that a busy client does not rewrite its record
// at every refresh). A failure is logged: the tokens are issued anyway.
func (p *Proxy) touchClient(ctx context.Context, c *client) {
	if isMetadataDocumentURL(c.ID) {
		return // not stored: the document is its registration
	}
	now := p.now().Unix()
	if c.UsedAt != 0 && now-c.UsedAt < int64(p.cfg.ClientTTL/time.Second)/30 {
		return
	}
	c.UsedAt = now
	if err := p.putClient(ctx, c, p.cfg.ClientTTL, true); err != nil {
		p.log.Warn("sliding the client registration's lifetime", "client_id", c.ID, "err", err)
	}
}

var errNoClient = errors.New("unknown client")

// loadClient returns the client id names: a stored registration, or
// the client of the metadata document at id when id is a URL (fetched
// or cached; a fetch counts against the registration rate limit of the
// caller's address). An unknown client, or a document that cannot be
// used, is an error wrapping errNoClient; for a document it also wraps
// errCIMD with the reason.
func (p *Proxy) loadClient(r *http.Request, id string) (*client, error) {
	if id == "" {
		return nil, errNoClient
	}
	if c := p.enterpriseClient(id); c != nil {
		return c, nil // registered beforehand (EnterpriseAuth.Clients)
	}
	if isMetadataDocumentURL(id) {
		if p.cimd == nil {
			return nil, errNoClient
		}
		allow := func() bool {
			ok, _, addr := p.regLim.allow(r)
			if !ok {
				p.log.Warn("client metadata document fetch rate-limited", "addr", addr)
			}
			return ok
		}
		c, err := p.cimd.client(r.Context(), id, allow, p)
		if errors.Is(err, errCIMD) {
			p.log.Info("client metadata document refused", "client_id", id, "reason", err.Error())
			return nil, fmt.Errorf("%w: %w", errNoClient, err)
		}
		return c, err
	}
	key := ClientKeyPrefix + id
	b, err := p.store.Get(r.Context(), key)
	if errors.Is(err, ErrNotFound) {
		return nil, errNoClient
	} else if err != nil {
		return nil, err
	}
	plain, err := p.seal.open(key, b)
	if err != nil {
		// Written by hand, by an older version, or with another key: not
		// a client of ours. Unknown, the client registers again.
		p.log.Warn("a stored client registration does not open; treated as unknown", "client_id", id, "err", err)
		return nil, errNoClient
	}
	var c client
	if err := json.Unmarshal(plain, &c); err != nil {
		return nil, fmt.Errorf("providers: stored client does not decode: %w", err)
	}
	return &c, nil
}
