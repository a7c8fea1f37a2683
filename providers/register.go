package providers

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	b, _ := json.Marshal(c)
	if err := p.store.Put(r.Context(), "client:"+c.ID, b, 0); err != nil {
		p.log.Error("storing client registration", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "the registration could not be stored")
		return
	}
	p.log.Info("client registered", "client_id", c.ID, "client_name", c.Name, "auth_method", c.AuthMethod)
	writeJSON(w, http.StatusCreated, resp)
}

func (p *Proxy) validateRegistration(req *registration) (*client, string, string) {
	if len(req.RedirectURIs) == 0 {
		return nil, "invalid_redirect_uri", "redirect_uris is required"
	}
	if len(req.RedirectURIs) > maxRedirects {
		return nil, "invalid_redirect_uri", fmt.Sprintf("at most %d redirect_uris", maxRedirects)
	}
	for _, u := range req.RedirectURIs {
		if err := checkRedirectURI(u, p.patterns); err != nil {
			return nil, "invalid_redirect_uri", err.Error()
		}
	}
	method := req.TokenEndpointAuthMethod
	switch method {
	case "":
		method = "client_secret_post"
	case "none", "client_secret_basic", "client_secret_post":
	default:
		return nil, "invalid_client_metadata", fmt.Sprintf("token_endpoint_auth_method %q is not supported: use none, client_secret_basic or client_secret_post", method)
	}
	grants := req.GrantTypes
	if len(grants) == 0 {
		grants = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, "invalid_client_metadata", fmt.Sprintf("grant_types: %q is not supported (authorization_code and refresh_token are)", g)
		}
	}
	for _, rt := range req.ResponseTypes {
		if rt != "code" {
			return nil, "invalid_client_metadata", fmt.Sprintf("response_types: %q is not supported (only code)", rt)
		}
	}
	if req.Scope != "" {
		if _, ok := p.allowedScopes(req.Scope); !ok {
			return nil, "invalid_client_metadata", fmt.Sprintf("scope %q asks for scopes this server does not offer (%s)", req.Scope, strings.Join(p.cfg.Scopes, " "))
		}
	}
	if len(req.ClientName) > 200 {
		return nil, "invalid_client_metadata", "client_name is longer than 200 characters"
	}
	return &client{
		ID: randomToken(16), Name: req.ClientName, RedirectURIs: slices.Clone(req.RedirectURIs),
		AuthMethod: method, GrantTypes: grants, ApplicationType: req.ApplicationType, Scope: req.Scope,
		IssuedAt: time.Now().Unix(),
	}, "", ""
}

var errNoClient = errors.New("unknown client")

func (p *Proxy) loadClient(r *http.Request, id string) (*client, error) {
	if id == "" {
		return nil, errNoClient
	}
	b, err := p.store.Get(r.Context(), "client:"+id)
	if errors.Is(err, ErrNotFound) {
		return nil, errNoClient
	} else if err != nil {
		return nil, err
	}
	var c client
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("providers: stored client does not decode: %w", err)
	}
	return &c, nil
}
