package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp/internal/exchange"
)

// jwtBearerGrant is the grant_type of RFC 7523 §2.1.
const jwtBearerGrant = exchange.GrantJWTBearer

// AssertionRequest says what an assertion is for: the authorization
// server that will take it and the MCP server the token is for.
type AssertionRequest struct {
	// Issuer is the authorization server's issuer identifier: an ID-JAG's
	// audience.
	Issuer string
	// Resource is the MCP server's resource identifier (RFC 9728), ""
	// when the server publishes no protected-resource metadata.
	Resource string
	// Scopes are the scopes the token request will ask for.
	Scopes []string
}

// AssertionFunc returns the assertion a token request with the
// JWT-bearer grant presents (RFC 7523 §2.1): a workload's identity token
// (a Kubernetes service account token, a cloud's workload identity), read
// anew for each request, since an assertion may be accepted once. (For
// an enterprise IdP's ID-JAG, set Config.EnterpriseIdP instead.)
type AssertionFunc func(ctx context.Context, r AssertionRequest) (string, error)

// assertionGrant gets a token with the JWT-bearer grant: the assertion of
// Config.Assertion for the authorization server d found.
func (h *Handler) assertionGrant(ctx context.Context, d *discovered, ci ClientInfo, scopes []string) (*oauth2.Token, error) {
	a, err := h.cfg.Assertion(ctx, AssertionRequest{Issuer: d.meta.Issuer, Resource: d.resource, Scopes: slices.Clone(scopes)})
	if err == nil && a == "" {
		err = errors.New("the assertion is empty")
	}
	if err != nil {
		return nil, &AuthError{Step: "assertion", Server: d.meta.Issuer, Err: err}
	}
	form := url.Values{"grant_type": {jwtBearerGrant}, "assertion": {a}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if d.resource != "" {
		form.Set("resource", d.resource)
	}
	tok, err := h.tokenRequest(ctx, d.meta.TokenEndpoint, d.meta.Issuer, ci, form)
	if err != nil {
		return nil, &AuthError{Step: "token", Server: d.meta.TokenEndpoint, Err: err}
	}
	return tok, nil
}

// assertionServer picks, of the authorization servers the protected
// resource names, the first whose metadata offers the JWT-bearer grant
// and that is not the enterprise IdP itself (an IdP never takes the
// ID-JAGs it issues, draft-ietf-oauth-identity-assertion-authz-grant §8;
// an IdP that offers the grant for assertions of another profile, as
// zitadel's JWT profile does, would refuse it); without one, the first. A
// resource server that is also the authorization server of
// enterprise-managed authorization lists that one after its identity
// provider, which often is the enterprise IdP.
func (h *Handler) assertionServer(ctx context.Context, servers []string) (string, *serverMeta) {
	for _, s := range servers {
		if !isHTTPURL(s) || (h.cfg.EnterpriseIdP != nil && sameIssuer(s, h.cfg.EnterpriseIdP.Issuer)) {
			continue
		}
		m, err := h.serverMetadata(ctx, s, true)
		if err != nil || m == nil || !slices.Contains(m.GrantTypesSupported, jwtBearerGrant) {
			continue
		}
		if idp := h.cfg.EnterpriseIdP; idp != nil && idp.TokenURL != "" && m.TokenEndpoint == idp.TokenURL {
			continue
		}
		return s, m
	}
	return servers[0], nil
}

func sameIssuer(a, b string) bool {
	return b != "" && strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// EnterpriseIdP is the enterprise identity provider a user signed in to
// the client with (Config.EnterpriseIdP).
type EnterpriseIdP struct {
	// TokenURL is the IdP's token endpoint; or, empty, the token_endpoint
	// of Issuer's metadata.
	TokenURL string
	// Issuer is the IdP's issuer identifier, to find TokenURL.
	Issuer string
	// ClientID and ClientSecret are this client's at the IdP (the client
	// the user signed in with); the secret goes in HTTP Basic.
	ClientID, ClientSecret string
	// IDToken returns the user's current ID token from the IdP (signing
	// the user in, OpenID Connect, is the program's).
	IDToken func(ctx context.Context) (string, error)
	// HTTPClient talks to the IdP. Default: a client with a 30 s timeout.
	HTTPClient *http.Client
}

// idJAG is the assertion of enterprise-managed authorization (SEP-990
// §4): for each token request, the user's ID token is exchanged at the
// IdP's token endpoint (RFC 8693 token exchange, requested_token_type
// urn:ietf:params:oauth:token-type:id-jag, audience the authorization
// server, resource the MCP server, scope) for an identity assertion JWT
// authorization grant, presented with the JWT-bearer grant.
func idJAG(idp EnterpriseIdP) AssertionFunc {
	hc := idp.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return func(ctx context.Context, r AssertionRequest) (string, error) {
		if idp.IDToken == nil {
			return "", errors.New("EnterpriseIdP.IDToken is not set")
		}
		if r.Resource == "" {
			return "", errors.New("the MCP server publishes no protected-resource metadata: an ID-JAG names the resource it is for")
		}
		tokenURL := idp.TokenURL
		if tokenURL == "" {
			if idp.Issuer == "" {
				return "", errors.New("EnterpriseIdP needs a TokenURL or an Issuer")
			}
			m, err := (&Handler{hc: hc}).serverMetadata(ctx, idp.Issuer, true)
			if err != nil {
				return "", err
			}
			if m == nil {
				return "", fmt.Errorf("the IdP %s publishes no metadata: set EnterpriseIdP.TokenURL", idp.Issuer)
			}
			tokenURL = m.TokenEndpoint
		}
		if u, err := url.Parse(tokenURL); err != nil || u.Host == "" ||
			(u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname()))) {
			return "", fmt.Errorf("the IdP's token endpoint %q is not an https URL: the ID token would cross the network in clear", tokenURL)
		}
		idt, err := idp.IDToken(ctx)
		if err != nil {
			return "", fmt.Errorf("the user's ID token: %w", err)
		}
		form := url.Values{"grant_type": {exchange.GrantTokenExchange}, "requested_token_type": {exchange.TypeIDJAG},
			"audience": {r.Issuer}, "resource": {r.Resource}, "subject_token": {idt},
			"subject_token_type": {exchange.TypeIDToken}}
		if len(r.Scopes) > 0 {
			form.Set("scope", strings.Join(r.Scopes, " "))
		}
		res, err := exchange.Do(ctx, hc, exchange.Request{TokenURL: tokenURL, ClientID: idp.ClientID,
			ClientSecret: idp.ClientSecret, Form: form}, time.Now)
		if err != nil {
			return "", fmt.Errorf("token exchange for an ID-JAG: %w", err)
		}
		if res.IssuedTokenType != "" && res.IssuedTokenType != exchange.TypeIDJAG {
			return "", fmt.Errorf("token exchange for an ID-JAG: the IdP issued a token of type %q", res.IssuedTokenType)
		}
		return res.AccessToken, nil
	}
}
