package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// discovered is what discovery found for one server.
type discovered struct {
	prm      *resourceMetadata // nil: a server of 2025-03-26 without it
	resource string            // the resource indicator; "" without metadata
	meta     *serverMeta
}

// authorize runs registration and a grant with what discovery found,
// after challenge ch; prior are scopes to keep (a step-up's union).
func (h *Handler) authorize(ctx context.Context, d *discovered, ch challenge, prior []string) (*Credentials, error) {
	scopes := h.scopes(ch, d, prior)
	if !h.cfg.ClientCredentials && h.cfg.Assertion == nil {
		// Before registering: a server that cannot be used is left alone.
		// Only the authorization code grant uses PKCE; the client
		// credentials and JWT-bearer grants have no code to protect.
		if err := h.checkPKCE(d.meta); err != nil {
			return nil, &AuthError{Step: "authorization", Server: d.meta.Issuer, Err: err}
		}
	}
	ci, err := h.client(ctx, d)
	if err != nil {
		return nil, err
	}
	var tok *oauth2.Token
	if h.cfg.Assertion != nil {
		if tok, err = h.assertionGrant(ctx, d, ci, scopes); err != nil {
			return nil, err
		}
	} else if h.cfg.ClientCredentials {
		form := url.Values{"grant_type": {"client_credentials"}}
		if len(scopes) > 0 {
			form.Set("scope", strings.Join(scopes, " "))
		}
		if d.resource != "" {
			form.Set("resource", d.resource)
		}
		tok, err = h.tokenRequest(ctx, d.meta.TokenEndpoint, d.meta.Issuer, ci, form)
		if err != nil {
			return nil, &AuthError{Step: "token", Server: d.meta.TokenEndpoint, Err: err}
		}
	} else if tok, err = h.authCode(ctx, d, ci, scopes); err != nil {
		return nil, err
	}
	return &Credentials{Token: tok, Issuer: d.meta.Issuer, TokenURL: d.meta.TokenEndpoint,
		Client: ci, Resource: d.resource, Scopes: scopes}, nil
}

// discover finds the protected-resource metadata (the challenge's URL,
// then the path-aware well-known URL, then the root one) and the
// authorization server's metadata; without protected-resource metadata
// (revision 2025-03-26) the server's origin is the authorization server,
// with /authorize, /token and /register when it publishes no metadata.
func (h *Handler) discover(ctx context.Context, server string, ch challenge) (*discovered, error) {
	su, err := url.Parse(server)
	if err != nil {
		return nil, &AuthError{Step: "protected-resource metadata", Server: server, Err: err}
	}
	var urls []string
	// A challenge's metadata URL that would take an https server's
	// discovery to http is not followed: the well-known URLs on the
	// server's own origin are tried instead (a server behind a proxy may
	// name its own http view).
	if ch.metadataURL != "" && isHTTPURL(ch.metadataURL) && keepsScheme(ch.metadataURL, server) == nil {
		urls = append(urls, ch.metadataURL)
	}
	if p := strings.TrimSuffix(su.EscapedPath(), "/"); p != "" {
		urls = append(urls, origin(su)+"/.well-known/oauth-protected-resource"+p)
	}
	urls = append(urls, origin(su)+"/.well-known/oauth-protected-resource")
	d := &discovered{}
	prmFrom := ""
	for _, u := range urls {
		b, status, from, err := h.get(ctx, u)
		if err != nil {
			return nil, &AuthError{Step: "protected-resource metadata", Server: u, Err: err}
		}
		if status != http.StatusOK {
			continue
		}
		m, err := parseResourceMetadata(b)
		if err != nil {
			return nil, &AuthError{Step: "protected-resource metadata", Server: u, Err: err}
		}
		d.prm, prmFrom = m, from
		break
	}
	issuer := origin(su)
	if d.prm != nil {
		if !resourceMatches(d.prm.Resource, su) {
			return nil, &AuthError{Step: "protected-resource metadata", Server: server,
				Err: fmt.Errorf("resource %q does not match the server's URL", d.prm.Resource)}
		}
		if len(d.prm.AuthorizationServers) == 0 || !isHTTPURL(d.prm.AuthorizationServers[0]) {
			return nil, &AuthError{Step: "protected-resource metadata", Server: server,
				Err: errors.New("no authorization server (authorization_servers)")}
		}
		if err := keepsScheme(d.prm.AuthorizationServers[0], prmFrom); err != nil {
			return nil, &AuthError{Step: "protected-resource metadata", Server: prmFrom,
				Err: fmt.Errorf("authorization server: %w", err)}
		}
		d.resource = d.prm.Resource
		issuer = d.prm.AuthorizationServers[0]
		if h.cfg.Assertion != nil && len(d.prm.AuthorizationServers) > 1 {
			issuer, d.meta = h.assertionServer(ctx, d.prm.AuthorizationServers)
		}
	}
	if d.meta == nil {
		d.meta, err = h.serverMetadata(ctx, issuer, d.prm != nil)
		if err != nil {
			return nil, err
		}
	}
	if d.meta == nil {
		if d.prm != nil {
			return nil, &AuthError{Step: "authorization-server metadata", Server: issuer,
				Err: errors.New("no metadata at any well-known URL")}
		}
		d.meta = &serverMeta{Issuer: issuer, AuthorizationEndpoint: issuer + "/authorize",
			TokenEndpoint: issuer + "/token", RegistrationEndpoint: issuer + "/register", noDocument: true}
		if err := d.meta.keepScheme(server); err != nil {
			return nil, &AuthError{Step: "authorization-server metadata", Server: issuer, Err: err}
		}
	}
	return d, nil
}

// keepsScheme refuses u, a URL that the document at from named (or the
// MCP server at from, for its own endpoints), when it would take the
// client from https to http: an authorization server's endpoints are
// https (the specification's "Communication Security"). http is accepted
// only from a document that itself came over http from this machine
// (127.0.0.1, ::1, localhost: tests, a development server).
func keepsScheme(u, from string) error {
	pu, err := url.Parse(u)
	if err != nil {
		return err
	}
	if strings.EqualFold(pu.Scheme, "https") {
		return nil
	}
	if fu, err := url.Parse(from); err == nil && strings.EqualFold(fu.Scheme, "http") && isLoopback(fu.Hostname()) {
		return nil
	}
	return fmt.Errorf("%s is not https (named by %s): http is accepted only from a server on this machine", u, from)
}

// keepScheme applies keepsScheme to each endpoint of m, named by the
// document at from.
func (m *serverMeta) keepScheme(from string) error {
	for _, u := range []string{m.AuthorizationEndpoint, m.TokenEndpoint, m.RegistrationEndpoint} {
		if u == "" {
			continue
		}
		if err := keepsScheme(u, from); err != nil {
			return err
		}
	}
	return nil
}

// serverMetadata fetches the metadata of the authorization server with
// the issuer identifier issuer, at the well-known URLs in the order of
// the MCP specification; nil when none answers. Its issuer must be
// issuer (RFC 8414 §3.3; a trailing slash aside) when strict; else (the
// server's origin standing in for an issuer no metadata named, revision
// 2025-03-26) it must be on issuer's origin.
func (h *Handler) serverMetadata(ctx context.Context, issuer string, strict bool) (*serverMeta, error) {
	iu, err := url.Parse(issuer)
	if err != nil {
		return nil, &AuthError{Step: "authorization-server metadata", Server: issuer, Err: err}
	}
	o := origin(iu)
	var urls []string
	if p := strings.TrimSuffix(iu.EscapedPath(), "/"); p != "" {
		urls = []string{o + "/.well-known/oauth-authorization-server" + p,
			o + "/.well-known/openid-configuration" + p, o + p + "/.well-known/openid-configuration"}
	} else {
		urls = []string{o + "/.well-known/oauth-authorization-server", o + "/.well-known/openid-configuration"}
	}
	for _, u := range urls {
		b, status, from, err := h.get(ctx, u)
		if err != nil {
			return nil, &AuthError{Step: "authorization-server metadata", Server: u, Err: err}
		}
		if status != http.StatusOK {
			continue
		}
		m, err := parseServerMetadata(b)
		if err != nil {
			return nil, &AuthError{Step: "authorization-server metadata", Server: u, Err: err}
		}
		if mu, err := url.Parse(m.Issuer); strict && strings.TrimSuffix(m.Issuer, "/") != strings.TrimSuffix(issuer, "/") ||
			!strict && (err != nil || origin(mu) != o) {
			return nil, &AuthError{Step: "authorization-server metadata", Server: u,
				Err: fmt.Errorf("issuer %q is not %q", m.Issuer, issuer)}
		}
		if err := m.keepScheme(from); err != nil {
			return nil, &AuthError{Step: "authorization-server metadata", Server: u, Err: err}
		}
		return m, nil
	}
	return nil, nil
}

// resourceMatches: the resource of the metadata is the server's origin,
// and its path the server's path or a parent of it (RFC 9728 §3.3, as
// the MCP specification applies it).
func resourceMatches(resource string, server *url.URL) bool {
	r, err := url.Parse(resource)
	if err != nil || r.Fragment != "" || origin(r) != origin(server) {
		return false
	}
	rp := strings.TrimSuffix(r.Path, "/")
	sp := strings.TrimSuffix(server.Path, "/")
	return rp == "" || rp == sp || strings.HasPrefix(sp, rp+"/")
}

// scopes are what to ask for: the challenge's scope, else the protected
// resource's scopes_supported; with prior (a step-up keeps what it had),
// the configured Scopes, and offline_access where the authorization server offers it.
func (h *Handler) scopes(ch challenge, d *discovered, prior []string) []string {
	var s []string
	if ch.Scope != "" {
		s = strings.Fields(ch.Scope)
	} else if d.prm != nil {
		s = slices.Clone(d.prm.ScopesSupported)
	}
	for _, p := range slices.Concat(prior, h.cfg.Scopes) {
		if !slices.Contains(s, p) {
			s = append(s, p)
		}
	}
	if len(s) > 0 && !h.cfg.ClientCredentials && h.cfg.Assertion == nil && slices.Contains(d.meta.ScopesSupported, "offline_access") &&
		!slices.Contains(s, "offline_access") {
		s = append(s, "offline_access")
	}
	return s
}

// client is the client to use with the authorization server: the
// configured one, one registered before, a client ID metadata document,
// or a new dynamic registration.
func (h *Handler) client(ctx context.Context, d *discovered) (ClientInfo, error) {
	m := d.meta
	if h.cfg.ClientID != "" && h.cfg.PrivateKey != nil {
		return ClientInfo{ID: h.cfg.ClientID, AuthMethod: "private_key_jwt"}, nil
	}
	if h.cfg.ClientID != "" {
		return ClientInfo{ID: h.cfg.ClientID, Secret: h.cfg.ClientSecret,
			AuthMethod: authMethod(h.cfg.ClientSecret, m.TokenEndpointAuthMethodsSupported)}, nil
	}
	if h.cfg.ClientCredentials {
		return ClientInfo{}, &AuthError{Step: "registration", Server: m.Issuer,
			Err: errors.New("client credentials need a ClientID")}
	}
	if h.cfg.Assertion != nil {
		// The JWT-bearer grant without client authentication (RFC 7523
		// §3.1): the assertion alone names the client.
		return ClientInfo{AuthMethod: "none"}, nil
	}
	if r, ok := h.regs[m.Issuer]; ok {
		return ClientInfo{ID: r.ClientID, Secret: r.ClientSecret, AuthMethod: r.TokenEndpointAuthMethod}, nil
	}
	if m.ClientIDMetadataDocumentSupported && isDocumentURL(h.cfg.ClientMetadataURL) {
		return ClientInfo{ID: h.cfg.ClientMetadataURL, AuthMethod: "none"}, nil
	}
	if m.RegistrationEndpoint == "" {
		return ClientInfo{}, &AuthError{Step: "registration", Server: m.Issuer,
			Err: errors.New("the authorization server offers no registration endpoint and no ClientID is configured")}
	}
	appType := "web"
	if u, err := url.Parse(h.cfg.RedirectURL); err == nil && (isLoopback(u.Hostname()) || (u.Scheme != "http" && u.Scheme != "https")) {
		appType = "native"
	}
	body, _ := json.Marshal(map[string]any{
		"client_name":                h.cfg.ClientName,
		"redirect_uris":              []string{h.cfg.RedirectURL},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
		"application_type":           appType,
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return ClientInfo{}, &AuthError{Step: "registration", Server: m.RegistrationEndpoint, Err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	b, status, err := h.do(req)
	if err == nil && status != http.StatusOK && status != http.StatusCreated {
		err = fmt.Errorf("HTTP %d: %s", status, clip(b))
	}
	var r *registration
	if err == nil {
		r, err = parseRegistration(b)
	}
	if err != nil {
		return ClientInfo{}, &AuthError{Step: "registration", Server: m.RegistrationEndpoint, Err: err}
	}
	if r.TokenEndpointAuthMethod == "" {
		r.TokenEndpointAuthMethod = authMethod(r.ClientSecret, m.TokenEndpointAuthMethodsSupported)
	}
	h.regs[m.Issuer] = *r
	return ClientInfo{ID: r.ClientID, Secret: r.ClientSecret, AuthMethod: r.TokenEndpointAuthMethod}, nil
}

// isDocumentURL: a client ID metadata document's URL is https, with a
// path (the specification's requirement; another is not offered).
func isDocumentURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && strings.Trim(u.Path, "/") != "" && u.Fragment == ""
}

// authMethod picks how a client with secret authenticates at a token
// endpoint that supports methods (RFC 8414's default: basic).
func authMethod(secret string, methods []string) string {
	if secret == "" {
		return "none"
	}
	if len(methods) == 0 || slices.Contains(methods, "client_secret_basic") {
		return "client_secret_basic"
	}
	if slices.Contains(methods, "client_secret_post") {
		return "client_secret_post"
	}
	return "none"
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkPKCE verifies that the authorization server supports PKCE with
// S256, as its metadata must say (code_challenge_methods_supported; the
// MCP specification's "Authorization Code Protection": a client refuses
// to go on without it, which keeps a server without PKCE from being used
// with an interceptable code). Config.AssumeS256 takes an absent list as
// S256; an authorization server of revision 2025-03-26 that publishes no
// metadata at all, whose endpoints are the defaults, is taken to support
// it, as that revision requires PKCE of every server.
func (h *Handler) checkPKCE(m *serverMeta) error {
	switch methods := m.CodeChallengeMethodsSupported; {
	case slices.Contains(methods, "S256"):
		return nil
	case methods == nil && (m.noDocument || h.cfg.AssumeS256):
		return nil
	case methods == nil:
		return errors.New("the authorization server's metadata does not list code_challenge_methods_supported, so it may not support PKCE: not going on (Config.AssumeS256, or mcpchain's --assume-s256, for a server known to support S256 that does not say so)")
	}
	return fmt.Errorf("the authorization server does not support PKCE with S256 (code_challenge_methods_supported: %q)", m.CodeChallengeMethodsSupported)
}

// authCode runs the authorization code grant with PKCE S256: the browser
// step, the state and iss checks, the code exchange.
func (h *Handler) authCode(ctx context.Context, d *discovered, ci ClientInfo, scopes []string) (*oauth2.Token, error) {
	m := d.meta
	fail := func(err error) error { return &AuthError{Step: "authorization", Server: m.Issuer, Err: err} }
	switch {
	case h.cfg.Authorize == nil || h.cfg.RedirectURL == "":
		return nil, fail(errors.New("the server needs the user's authorization, and Config has no Authorize or RedirectURL"))
	case m.AuthorizationEndpoint == "":
		return nil, fail(errors.New("the authorization server has no authorization_endpoint"))
	}
	if err := h.checkPKCE(m); err != nil {
		return nil, fail(err)
	}
	verifier, state := oauth2.GenerateVerifier(), oauth2.GenerateVerifier()
	cfg := oauth2.Config{ClientID: ci.ID, Endpoint: oauth2.Endpoint{AuthURL: m.AuthorizationEndpoint},
		RedirectURL: h.cfg.RedirectURL, Scopes: scopes}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if d.resource != "" {
		opts = append(opts, oauth2.SetAuthURLParam("resource", d.resource))
	}
	q, err := h.cfg.Authorize(ctx, cfg.AuthCodeURL(state, opts...))
	if err != nil {
		return nil, fail(err)
	}
	switch {
	case q.Get("error") != "":
		return nil, fail(fmt.Errorf("%s %s", q.Get("error"), q.Get("error_description")))
	case q.Get("state") != state:
		return nil, fail(errors.New("the redirect's state is not the one sent"))
	case q.Has("iss") && q.Get("iss") != m.Issuer:
		return nil, fail(fmt.Errorf("the redirect's iss %q is not the issuer %q", q.Get("iss"), m.Issuer))
	case !q.Has("iss") && m.IssParameterSupported:
		return nil, fail(errors.New("the redirect has no iss, which the authorization server promised"))
	case q.Get("code") == "":
		return nil, fail(errors.New("the redirect has no code"))
	}
	form := url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")},
		"redirect_uri": {h.cfg.RedirectURL}, "code_verifier": {verifier}}
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	tok, err := h.tokenRequest(ctx, m.TokenEndpoint, m.Issuer, ci, form)
	if err != nil {
		return nil, &AuthError{Step: "token", Server: m.TokenEndpoint, Err: err}
	}
	return tok, nil
}

// tokenRequest posts form to the token endpoint, authenticated as ci.
func (h *Handler) tokenRequest(ctx context.Context, tokenURL, issuer string, ci ClientInfo, form url.Values) (*oauth2.Token, error) {
	var basic bool
	switch ci.AuthMethod {
	case "private_key_jwt":
		if h.cfg.PrivateKey == nil {
			return nil, errors.New("private_key_jwt needs Config.PrivateKey")
		}
		a, err := clientAssertion(h.cfg.PrivateKey, h.cfg.KeyID, ci.ID, issuer, time.Now())
		if err != nil {
			return nil, err
		}
		form.Set("client_assertion_type", clientAssertionType)
		form.Set("client_assertion", a)
	case "client_secret_basic":
		basic = true
	case "client_secret_post":
		form.Set("client_id", ci.ID)
		form.Set("client_secret", ci.Secret)
	default:
		if ci.ID != "" {
			form.Set("client_id", ci.ID)
		}
	}
	var (
		b      []byte
		status int
	)
	// With DPoP, a use_dpop_nonce answer gets one more request with the
	// authorization server's nonce (RFC 9449 §8).
	for try := 0; try < 2; try++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if basic {
			req.SetBasicAuth(url.QueryEscape(ci.ID), url.QueryEscape(ci.Secret))
		}
		if h.cfg.DPoPKey != nil {
			p, err := h.proof(http.MethodPost, req.URL, "")
			if err != nil {
				return nil, err
			}
			req.Header.Set("DPoP", p)
		}
		var hdr http.Header
		b, status, hdr, err = h.doHeader(req)
		if err != nil {
			return nil, err
		}
		if h.cfg.DPoPKey == nil || status != http.StatusBadRequest || !h.keepNonce(req.URL, hdr) ||
			!isNonceError(b) {
			break
		}
	}
	tok, perr := parseTokenResponse(b, time.Now())
	if status != http.StatusOK {
		if perr != nil && !strings.HasPrefix(perr.Error(), "token endpoint:") {
			return nil, fmt.Errorf("HTTP %d: %s", status, clip(b))
		}
		if perr == nil {
			perr = fmt.Errorf("HTTP %d", status)
		}
		return nil, perr
	}
	if perr == nil && tok.TokenType == "DPoP" && h.cfg.DPoPKey == nil {
		return nil, errors.New("token response: a DPoP token, and Config has no DPoPKey")
	}
	return tok, perr
}

// get fetches a document, at most maxDocument bytes of it; from is the
// URL it came from, after redirects.
func (h *Handler) get(ctx context.Context, u string) (b []byte, status int, from string, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, "", err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, 0, "", err
	}
	defer resp.Body.Close()
	if b, err = readDocument(req, resp); err != nil {
		return nil, 0, "", err
	}
	return b, resp.StatusCode, resp.Request.URL.String(), nil
}

func (h *Handler) do(req *http.Request) ([]byte, int, error) {
	b, status, _, err := h.doHeader(req)
	return b, status, err
}

// doHeader is do that returns the answer's header too.
func (h *Handler) doHeader(req *http.Request) ([]byte, int, http.Header, error) {
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, 0, nil, err
	}
	defer resp.Body.Close()
	b, err := readDocument(req, resp)
	if err != nil {
		return nil, 0, nil, err
	}
	return b, resp.StatusCode, resp.Header, nil
}

// readDocument reads the body of resp, the answer to req, up to
// maxDocument bytes.
func readDocument(req *http.Request, resp *http.Response) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDocument+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxDocument {
		return nil, fmt.Errorf("%s: the answer is larger than %d bytes", req.URL, maxDocument)
	}
	return b, nil
}

// noDowngrade returns a copy of c (a new client with a 30 s timeout when
// nil) that refuses a redirect from https to http, then applies c's own
// redirect policy: a document or a token request never continues in the
// clear.
func noDowngrade(c *http.Client) *http.Client {
	g := http.Client{Timeout: 30 * time.Second}
	if c != nil {
		g = *c
	}
	next := g.CheckRedirect
	g.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if prev := via[len(via)-1].URL; strings.EqualFold(prev.Scheme, "https") && !strings.EqualFold(req.URL.Scheme, "https") {
			return fmt.Errorf("a redirect from %s to %s, from https to http: not followed", origin(prev), origin(req.URL))
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &g
}

func ioCopyN(r io.Reader, n int64) (int64, error) { return io.CopyN(io.Discard, r, n) }

// clip is the start of a body for an error message.
func clip(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	return strings.TrimSpace(string(b))
}
