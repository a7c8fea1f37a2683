// Package oauth authorizes an MCP client (package client) to servers that
// are OAuth protected resources, as the MCP specification's authorization
// section describes: on a 401 it discovers the server's protected-resource
// metadata (RFC 9728) and its authorization server's metadata (RFC 8414,
// OpenID Connect discovery; the server's origin for a server of revision
// 2025-03-26 without it), registers the client (pre-registered, a client ID
// metadata document, or dynamic registration, RFC 7591), and gets a token
// with the authorization code grant, PKCE S256 and the resource parameter
// (RFC 8707), with client credentials, or with the JWT-bearer grant
// (RFC 7523: an enterprise IdP's ID-JAG, SEP-990, with
// [Config].EnterpriseIdP; a workload's own JWT with [Config].Assertion); a
// token is refreshed before a new authorization is asked for, and a 403
// insufficient_scope gets a new authorization with the union of the
// scopes (step-up).
//
// A [Handler] is a client.Authorizer: put it in client.HTTPOptions.Auth.
// The browser step is the program's ([Config].Authorize); [Loopback] is the
// redirect listener a command-line program can use for it.
package oauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp/client"
)

// AuthorizeFunc is the browser step of the authorization code grant: it
// sends the user to authURL (opens a browser, prints the URL) and returns
// the query of the request the authorization server redirected the
// browser to at the redirect URL (code, state, iss, or error).
type AuthorizeFunc func(ctx context.Context, authURL string) (url.Values, error)

// Config configures a [Handler]. Authorize and RedirectURL are needed for
// the authorization code grant; ClientCredentials does without them.
type Config struct {
	// ClientID and ClientSecret are a client registered with the
	// authorization server beforehand. Empty: the client registers
	// itself (ClientMetadataURL, or dynamic registration).
	ClientID, ClientSecret string
	// PrivateKey, with ClientID, authenticates the client at the token
	// endpoint with a signed JWT (private_key_jwt, RFC 7523) instead of a
	// secret: an ECDSA P-256 key (ES256) or an RSA key (RS256). KeyID is
	// its kid, when the authorization server needs one.
	PrivateKey crypto.Signer
	KeyID      string
	// ClientMetadataURL is the https URL (with a path) of the client's
	// metadata document, used as its client_id with an authorization
	// server that supports client ID metadata documents; another URL is
	// not used, and the client registers instead.
	ClientMetadataURL string
	// ClientName names the client in a dynamic registration. Default
	// "mcpchain client".
	ClientName string
	// Scopes are asked for on top of those the server names (its
	// challenge's scope, else its scopes_supported): what a user wants
	// that the server does not ask for by default.
	Scopes []string
	// RedirectURL is where the authorization server sends the browser
	// back (a [Loopback]'s RedirectURL for a command-line program).
	RedirectURL string
	// Authorize is the browser step.
	Authorize AuthorizeFunc
	// ClientCredentials gets tokens with the client_credentials grant
	// (ClientID with ClientSecret or PrivateKey, no user): for a machine
	// client.
	ClientCredentials bool
	// Assertion gets tokens with the JWT-bearer grant (RFC 7523) instead,
	// presenting the assertion it returns, with no browser: a workload's
	// identity token (workload identity federation; ClientID alone, or
	// none). No refresh token is expected: when a token runs out, a new
	// assertion gets the next.
	Assertion AssertionFunc
	// EnterpriseIdP turns on enterprise-managed authorization (SEP-990):
	// the JWT-bearer grant with an ID-JAG the user's enterprise IdP
	// issues, by token exchange of the user's ID token, for each token
	// request; no browser. ClientID and ClientSecret are the client's at
	// the MCP server's authorization server (the IdP names it there).
	// It takes the place of Assertion.
	EnterpriseIdP *EnterpriseIdP
	// Store keeps the tokens. Default: a [MemoryStore].
	Store TokenStore
	// DPoPKey, an ECDSA P-256 key, makes the client ask for tokens bound
	// to it (DPoP, RFC 9449; the MCP DPoP extension, SEP-1932): every
	// token request and every request with a token of type DPoP carries
	// a DPoP proof signed with it (ES256), and such a token goes as
	// "Authorization: DPoP". A stolen token is useless without the key.
	// Nil: Bearer tokens only. Keep one key for as long as its tokens
	// are stored (ecdsa.GenerateKey(elliptic.P256(), rand.Reader)).
	DPoPKey *ecdsa.PrivateKey
	// AssumeS256 goes on with an authorization server whose metadata does
	// not list code_challenge_methods_supported, taking PKCE with S256 as
	// supported. Without it such a server is refused, as the MCP
	// specification says (its metadata does not show that it supports
	// PKCE): set it for one known to support S256 that does not say so
	// (Microsoft Entra ID and Amazon Cognito omit the field). A list
	// without S256 is refused all the same.
	AssumeS256 bool
	// HTTPClient fetches the metadata and talks to the authorization
	// server. Default: a client with a 30 s timeout. The handler uses a
	// copy that refuses a redirect from https to http.
	HTTPClient *http.Client
}

// AuthError is a failed authorization: Step names what failed
// ("protected-resource metadata", "authorization-server metadata",
// "registration", "authorization", "token", "refresh", "token store"),
// Server the URL it concerned.
type AuthError struct {
	// Step is what failed.
	Step string
	// Server is the URL of the document or endpoint (the MCP server's
	// for the token store).
	Server string
	// Err is why.
	Err error
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("oauth: %s (%s): %v", e.Step, e.Server, e.Err)
}

func (e *AuthError) Unwrap() error { return e.Err }

// Handler authorizes the requests of the MCP clients whose HTTP transport
// it is the Auth of. One Handler may serve several servers; it is safe for
// concurrent use.
type Handler struct {
	cfg  Config
	hc   *http.Client
	mu   sync.Mutex              // one authorization at a time
	regs map[string]registration // clients registered, by issuer
	// nonces are the latest DPoP-Nonce each server gave, by origin.
	nonceMu sync.Mutex
	nonces  map[string]string
}

var _ client.Authorizer = (*Handler)(nil)

// New returns a Handler for cfg.
func New(cfg Config) *Handler {
	if cfg.Store == nil {
		cfg.Store = NewMemoryStore()
	}
	if cfg.ClientName == "" {
		cfg.ClientName = "mcpchain client"
	}
	hc := noDowngrade(cfg.HTTPClient)
	if cfg.EnterpriseIdP != nil {
		idp := *cfg.EnterpriseIdP
		if idp.HTTPClient == nil {
			idp.HTTPClient = hc
		}
		cfg.Assertion = idJAG(idp)
	}
	return &Handler{cfg: cfg, hc: hc, regs: map[string]registration{}, nonces: map[string]string{}}
}

// Wrap implements client.Authorizer: requests to the origin of serverURL
// carry its token; every other request goes without one.
func (h *Handler) Wrap(serverURL string, base http.RoundTripper) http.RoundTripper {
	u, err := url.Parse(serverURL)
	if err != nil {
		return base
	}
	return &transport{h: h, server: serverURL, origin: origin(u), base: base}
}

// Token returns the token the handler holds for the MCP endpoint at
// serverURL, nil when it has none.
func (h *Handler) Token(ctx context.Context, serverURL string) (*oauth2.Token, error) {
	c, err := h.cfg.Store.Load(ctx, serverURL)
	if err != nil || c == nil {
		return nil, err
	}
	return c.Token, nil
}

type transport struct {
	h      *Handler
	server string
	origin string
	base   http.RoundTripper
}

// expiryDelta: a token that expires within it is refreshed first.
const expiryDelta = 10 * time.Second

// RoundTrip sends req with the server's token, and answers a 401 or a
// 403 insufficient_scope as the package documentation says.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if origin(req.URL) != t.origin {
		// Never a token to another origin than the server's.
		return t.base.RoundTrip(req)
	}
	ctx := req.Context()
	creds, err := t.credentials(req)
	if err != nil {
		return nil, err
	}
	resp, err := t.send(req, creds, false)
	if err != nil {
		return nil, err
	}
	var r retries
	for {
		status, again := r.next(t, resp)
		if !again {
			return resp, nil
		}
		if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
			return resp, nil // the request cannot be sent again
		}
		if status != 0 {
			ch, _ := parseChallenge(resp.Header.Values("WWW-Authenticate"))
			drain(resp)
			if creds, err = t.h.obtain(ctx, t.server, status, ch, creds); err != nil {
				return nil, err
			}
		} else {
			drain(resp)
		}
		if resp, err = t.send(req, creds, true); err != nil {
			return nil, err
		}
	}
}

// credentials loads the server's credentials, refreshed first when the
// token is about to expire (a failed refresh keeps the old one: the
// server's 401 then starts a new authorization).
func (t *transport) credentials(req *http.Request) (*Credentials, error) {
	ctx := req.Context()
	creds, err := t.h.cfg.Store.Load(ctx, t.server)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, &AuthError{Step: "token store", Server: t.server, Err: err}
	}
	if creds != nil && creds.Token != nil && creds.Token.RefreshToken != "" &&
		!creds.Token.Expiry.IsZero() && time.Until(creds.Token.Expiry) < expiryDelta {
		if c, err := t.h.refreshLocked(ctx, t.server, creds); err == nil {
			creds = c
		}
	}
	return creds, nil
}

// retries is what a request has already been sent again for: one fresh
// DPoP proof with the server's nonce, one new token for a 401 and one
// step-up for a 403; then the answer stands, so a server that keeps
// refusing does not loop the client.
type retries struct{ nonced, authorized, stepped bool }

// next says whether resp calls for sending the request again, and how:
// with a fresh DPoP proof (status 0, RFC 9449 §9), or with a token
// obtained for a 401 or, for a 403 insufficient_scope, a step-up
// (status 401 or 403).
func (r *retries) next(t *transport, resp *http.Response) (status int, again bool) {
	switch {
	case resp.StatusCode == http.StatusUnauthorized && !r.nonced && t.h.cfg.DPoPKey != nil &&
		isNonceChallenge(resp.Header):
		r.nonced = true
		return 0, true
	case resp.StatusCode == http.StatusUnauthorized && !r.authorized:
		r.authorized = true
		return http.StatusUnauthorized, true
	case resp.StatusCode == http.StatusForbidden && !r.stepped:
		ch, _ := parseChallenge(resp.Header.Values("WWW-Authenticate"))
		if ch.Error != "insufficient_scope" {
			return 0, false
		}
		r.stepped, r.authorized = true, true
		return http.StatusForbidden, true
	}
	return 0, false
}

// send sends a copy of req with the token of creds: again, with a new
// body from GetBody (the first send consumed and closed req.Body).
func (t *transport) send(req *http.Request, creds *Credentials, again bool) (*http.Response, error) {
	r := req.Clone(req.Context())
	if again && req.Body != nil && req.Body != http.NoBody {
		b, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = b
	}
	if creds != nil && creds.Token != nil && creds.Token.AccessToken != "" {
		if strings.EqualFold(creds.Token.TokenType, "dpop") && t.h.cfg.DPoPKey != nil {
			p, err := t.h.proof(r.Method, r.URL, creds.Token.AccessToken)
			if err != nil {
				if r.Body != nil {
					r.Body.Close()
				}
				return nil, &AuthError{Step: "dpop proof", Server: t.server, Err: err}
			}
			r.Header.Set("Authorization", "DPoP "+creds.Token.AccessToken)
			r.Header.Set("DPoP", p)
		} else {
			r.Header.Set("Authorization", "Bearer "+creds.Token.AccessToken)
		}
	}
	resp, err := t.base.RoundTrip(r)
	if err == nil {
		t.h.keepNonce(r.URL, resp.Header)
	}
	return resp, err
}

func drain(resp *http.Response) {
	_, _ = ioCopyN(resp.Body, 64<<10)
	resp.Body.Close()
}

// obtain gets a new token after a challenge of status to a request that
// carried had: the token another request got meanwhile, a refreshed one,
// or a new authorization.
func (h *Handler) obtain(ctx context.Context, server string, status int, ch challenge, had *Credentials) (*Credentials, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cur, err := h.cfg.Store.Load(ctx, server)
	if err != nil {
		return nil, &AuthError{Step: "token store", Server: server, Err: err}
	}
	if status == 401 && cur != nil && cur.Token != nil && (had == nil || had.Token == nil || cur.Token.AccessToken != had.Token.AccessToken) {
		return cur, nil
	}
	d, err := h.discover(ctx, server, ch)
	if err != nil {
		return nil, err
	}
	// A refresh token is used only with the authorization server that
	// issued it: a server that moved to another one gets a new
	// registration and authorization there.
	if status == 401 && cur != nil && cur.Token != nil && cur.Token.RefreshToken != "" && cur.Issuer == d.meta.Issuer {
		if c, err := h.refresh(ctx, server, cur); err == nil {
			return c, nil
		}
	}
	var prior []string
	if status == 403 && cur != nil {
		prior = cur.Scopes
	}
	c, err := h.authorize(ctx, d, ch, prior)
	if err != nil {
		return nil, err
	}
	if err := h.cfg.Store.Save(ctx, server, c); err != nil {
		return nil, &AuthError{Step: "token store", Server: server, Err: err}
	}
	return c, nil
}

func (h *Handler) refreshLocked(ctx context.Context, server string, c *Credentials) (*Credentials, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cur, err := h.cfg.Store.Load(ctx, server)
	if err == nil && cur != nil && cur.Token != nil && cur.Token.AccessToken != c.Token.AccessToken {
		return cur, nil
	}
	return h.refresh(ctx, server, c)
}

// refresh uses c's refresh token at the token endpoint it came from.
func (h *Handler) refresh(ctx context.Context, server string, c *Credentials) (*Credentials, error) {
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {c.Token.RefreshToken}}
	if c.Resource != "" {
		form.Set("resource", c.Resource)
	}
	tok, err := h.tokenRequest(ctx, c.TokenURL, c.Issuer, c.Client, form)
	if err != nil {
		return nil, &AuthError{Step: "refresh", Server: c.TokenURL, Err: err}
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = c.Token.RefreshToken
	}
	n := *c
	n.Token = tok
	if err := h.cfg.Store.Save(ctx, server, &n); err != nil {
		return nil, &AuthError{Step: "token store", Server: server, Err: err}
	}
	return &n, nil
}

// origin is scheme://host[:port] of u, lowercased, without a default port.
func origin(u *url.URL) string {
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	scheme := strings.ToLower(u.Scheme)
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}
