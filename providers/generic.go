package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"

	"golang.org/x/oauth2"
)

// OAuthProviderConfig configures the generic [OAuthProvider].
type OAuthProviderConfig struct {
	Config
	// AuthorizationEndpoint and TokenEndpoint of the upstream server.
	// Required.
	AuthorizationEndpoint string
	TokenEndpoint         string
	// TokenEndpointAuthMethod is client_secret_basic (default) or
	// client_secret_post. The other is never tried.
	TokenEndpointAuthMethod string
	// Issuer, when set, makes the upstream an OpenID Connect provider: its
	// ID tokens are verified (keys from JWKSURL, or discovered at Issuer)
	// and identify the user.
	Issuer  string
	JWKSURL string
	// UserInfoEndpoint, when set (and Issuer is not), is asked for the
	// user's claims with the upstream access token; "sub" or "id" names
	// the user.
	UserInfoEndpoint string
	// AuthParams are added to the upstream authorization request, for a
	// provider that needs parameters of its own (Google's access_type
	// and hd). The parameters the proxy sets (response_type, client_id,
	// redirect_uri, scope, state, nonce, code_challenge,
	// code_challenge_method) are refused here.
	AuthParams map[string]string
	// CheckClaims, when set, is asked about the user's verified claims
	// (the ID token's, or the user info's) at each sign-in: an error
	// refuses the sign-in. The Google Workspace preset of package idp
	// admits only its domains (hd) with it.
	CheckClaims func(claims map[string]any) error
}

// reservedAuthParams are the parameters of the upstream authorization
// request that the proxy sets itself.
var reservedAuthParams = []string{"response_type", "client_id", "redirect_uri", "scope", "state", "nonce",
	"code_challenge", "code_challenge_method"}

// OAuthProvider fronts any OAuth 2.0 authorization server. Its sessions
// are *OAuthSession. Default scopes: openid.
type OAuthProvider struct{ *Proxy }

type genericUpstream struct {
	cfg  OAuthProviderConfig
	oidc *oidcUpstream
	conf *oauth2.Config
}

// NewOAuthProvider returns the generic provider.
func NewOAuthProvider(cfg OAuthProviderConfig) (*OAuthProvider, error) {
	if cfg.AuthorizationEndpoint == "" || cfg.TokenEndpoint == "" {
		return nil, fmt.Errorf("providers: OAuthProvider needs AuthorizationEndpoint and TokenEndpoint")
	}
	style := oauth2.AuthStyleInHeader
	switch cfg.TokenEndpointAuthMethod {
	case "", "client_secret_basic":
	case "client_secret_post":
		style = oauth2.AuthStyleInParams
	default:
		return nil, fmt.Errorf("providers: TokenEndpointAuthMethod %q: want client_secret_basic or client_secret_post", cfg.TokenEndpointAuthMethod)
	}
	if len(cfg.Scopes) == 0 {
		cfg.Scopes = []string{"openid"}
	}
	for k := range cfg.AuthParams {
		if slices.Contains(reservedAuthParams, k) {
			return nil, fmt.Errorf("providers: AuthParams: %q is set by the proxy itself", k)
		}
	}
	u := &genericUpstream{cfg: cfg, conf: &oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Scopes: cfg.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: cfg.AuthorizationEndpoint, TokenURL: cfg.TokenEndpoint, AuthStyle: style}}}
	if cfg.Issuer != "" {
		u.oidc = &oidcUpstream{clientID: cfg.ClientID, clientSecret: cfg.ClientSecret, scopes: cfg.Scopes, style: style,
			issuer: cfg.Issuer, authURL: cfg.AuthorizationEndpoint, tokenURL: cfg.TokenEndpoint, jwksURL: cfg.JWKSURL,
			checkClaims: cfg.CheckClaims}
	}
	p, err := NewProxy(cfg.Config, u)
	if err != nil {
		return nil, err
	}
	return &OAuthProvider{p}, nil
}

func (g *genericUpstream) Name() string { return "generic" }

func (g *genericUpstream) OAuth2Config(context.Context) (*oauth2.Config, error) { return g.conf, nil }

func (g *genericUpstream) AuthCodeOptions(nonce string) []oauth2.AuthCodeOption {
	var opts []oauth2.AuthCodeOption
	if g.oidc != nil {
		opts = g.oidc.authOptions(nonce)
	}
	for _, k := range slices.Sorted(maps.Keys(g.cfg.AuthParams)) {
		opts = append(opts, oauth2.SetAuthURLParam(k, g.cfg.AuthParams[k]))
	}
	return opts
}

func (g *genericUpstream) Identify(ctx context.Context, tok *oauth2.Token, nonce string) (*Identity, error) {
	if g.oidc != nil {
		sub, claims, err := g.oidc.verify(ctx, tok, nonce)
		if err != nil {
			return nil, err
		}
		return genericIdentity(sub, claims), nil
	}
	if g.cfg.UserInfoEndpoint != "" {
		claims, err := getJSON(ctx, g.conf.Client(ctx, tok), g.cfg.UserInfoEndpoint, nil)
		if err != nil {
			return nil, err
		}
		sub := str(claims, "sub")
		if sub == "" {
			if id, ok := claims["id"]; ok {
				sub = fmt.Sprint(id)
			}
		}
		if sub == "" {
			return nil, fmt.Errorf("%w: the user info has neither sub nor id", ErrUpstream)
		}
		if g.cfg.CheckClaims != nil {
			if err := g.cfg.CheckClaims(claims); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrUpstream, err)
			}
		}
		return genericIdentity(sub, claims), nil
	}
	// No way to learn who the user is: every login is its own anonymous user.
	return &Identity{Subject: "generic:anonymous-" + randomToken(12)}, nil
}

// genericIdentity is the user of the generic provider; Email only when
// the provider says it verified it.
func genericIdentity(sub string, claims map[string]any) *Identity {
	return &Identity{Subject: "generic:" + sub, Email: verifiedEmail(claims), Claims: claims}
}

func (g *genericUpstream) NewSession(base OAuthSession, _ *Identity) any { return &base }

// CheckUser implements [UserChecker] when the user comes from the user
// info endpoint (no Issuer): it is asked again.
func (g *genericUpstream) CheckUser(ctx context.Context, tok *oauth2.Token, id *Identity) error {
	if g.oidc != nil || g.cfg.UserInfoEndpoint == "" {
		return nil
	}
	now, err := g.Identify(ctx, tok, "")
	if err != nil {
		return err
	}
	if now.Subject != id.Subject {
		return fmt.Errorf("%w: the user info names another user", ErrUpstreamRevoked)
	}
	return nil
}

// getJSON GETs url with c and decodes a JSON object.
func getJSON(ctx context.Context, c *http.Client, url string, hdr http.Header) (map[string]any, error) {
	var out map[string]any
	return out, getJSONInto(ctx, c, url, hdr, &out)
}

func getJSONInto(ctx context.Context, c *http.Client, url string, hdr http.Header, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("%w: GET %s: %v", ErrUpstream, url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return fmt.Errorf("%w: GET %s: HTTP %d", ErrUpstreamRevoked, url, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: GET %s: HTTP %d", ErrUpstream, url, resp.StatusCode)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: GET %s: %v", ErrUpstream, url, err)
	}
	return nil
}
