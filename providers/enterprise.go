package providers

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/resourceserver"
)

// EnterpriseAuth turns on enterprise-managed authorization (SEP-990) at
// the proxy: a client whose user signed in at a trusted enterprise IdP
// presents the identity assertion JWT authorization grant (ID-JAG) the
// IdP issued it for this server at the token endpoint (the RFC 7523
// JWT-bearer grant) and gets the proxy's access token, with no browser,
// consent page or upstream login. The IdP's policy is the consent.
type EnterpriseAuth struct {
	// IdPs are the enterprise identity providers trusted to issue ID-JAGs
	// for this server (their aud is BaseURL, their resource
	// BaseURL+MCPPath). At least one.
	IdPs []resourceserver.EnterpriseIdP
	// Clients are the clients that may present ID-JAGs, registered here
	// beforehand: the enterprise IdP names them in the assertions'
	// client_id, which must be the client that authenticates (with its
	// secret, client_secret_basic or client_secret_post). They take this
	// grant only. At least one.
	Clients []resourceserver.AssertionClient
}

// enterpriseAS is the proxy's side of EnterpriseAuth.
type enterpriseAS struct {
	verifier *resourceserver.AssertionVerifier
	clients  map[string]*client
}

// newEnterpriseAS checks cfg and builds the assertion verifier: the
// assertions are for this proxy (aud its issuer, resource its MCP
// resource) and are remembered in its token storage, so every replica
// sharing it refuses a replay.
func (p *Proxy) newEnterpriseAS(ea *EnterpriseAuth) (*enterpriseAS, error) {
	if len(ea.Clients) == 0 {
		return nil, errors.New("providers: EnterpriseAuth.Clients is empty: the clients that may present ID-JAGs are registered beforehand")
	}
	v, err := resourceserver.NewAssertionVerifier(resourceserver.AssertionVerifierConfig{
		IdPs: ea.IdPs, Audience: p.issuer, Resources: []string{p.resource}, Scopes: p.cfg.Scopes,
		ReplayCache: storageReplay{p.store}, Leeway: ClockSkew, HTTPClient: p.client,
		Now: func() time.Time { return p.now() },
	})
	if err != nil {
		return nil, fmt.Errorf("providers: EnterpriseAuth: %w", err)
	}
	e := &enterpriseAS{verifier: v, clients: map[string]*client{}}
	for i, c := range ea.Clients {
		switch {
		case c.ID == "":
			return nil, fmt.Errorf("providers: EnterpriseAuth.Clients[%d] has no ID", i)
		case len(c.Secret) < 16:
			return nil, fmt.Errorf("providers: EnterpriseAuth.Clients[%d] (%s): the secret must be at least 16 bytes: "+
				"the extension is for confidential clients", i, c.ID)
		case isMetadataDocumentURL(c.ID):
			return nil, fmt.Errorf("providers: EnterpriseAuth.Clients[%d]: %s is the URL of a client metadata document; "+
				"name a client registered here", i, c.ID)
		}
		if _, dup := e.clients[c.ID]; dup {
			return nil, fmt.Errorf("providers: EnterpriseAuth.Clients: %s is listed twice", c.ID)
		}
		e.clients[c.ID] = &client{ID: c.ID, SecretHash: hashKey(c.Secret), Name: c.ID,
			AuthMethod: "client_secret_basic", GrantTypes: []string{resourceserver.JWTBearerGrant}}
	}
	return e, nil
}

// enterpriseClient is the pre-registered client id names, or nil. A copy:
// the token endpoint may change what it is given.
func (p *Proxy) enterpriseClient(id string) *client {
	if p.ea == nil {
		return nil
	}
	c, ok := p.ea.clients[id]
	if !ok {
		return nil
	}
	cp := *c
	return &cp
}

// storageReplay is a resourceserver.ReplayCache on the proxy's token
// storage: one PutIfAbsent per assertion, on every replica alike.
type storageReplay struct{ s TokenStorage }

func (r storageReplay) Remember(ctx context.Context, id string, ttl time.Duration) (bool, error) {
	return r.s.PutIfAbsent(ctx, id, []byte("1"), ttl)
}

// assertionGrant is the JWT-bearer grant with an ID-JAG (SEP-990 §5):
// the assertion is checked (resourceserver.AssertionVerifier: typ,
// signature by a trusted IdP, iss, aud, resource, client_id the
// authenticated client, sub, exp, iat, lifetime, scopes, never replayed),
// and an access token issued for a grant of its own, without refresh
// token: when it expires the client asks its IdP for a new assertion, and
// the IdP's policy applies again.
func (p *Proxy) assertionGrant(w http.ResponseWriter, r *http.Request, c *client) {
	if p.ea == nil || p.enterpriseClient(c.ID) == nil || c.SecretHash == "" {
		// Only the confidential clients of EnterpriseAuth.Clients (the
		// grant-type check before this one admits no other).
		oauthError(w, http.StatusBadRequest, "unauthorized_client", "this client may not use the JWT-bearer grant")
		return
	}
	f := r.PostForm
	if !p.resourceOK(f["resource"]) {
		oauthError(w, http.StatusBadRequest, "invalid_target", "resource must be "+p.resource)
		return
	}
	if len(f["assertion"]) > 1 {
		oauthError(w, http.StatusBadRequest, "invalid_request", "send one assertion")
		return
	}
	ctx := r.Context()
	a, err := p.ea.verifier.Verify(ctx, f.Get("assertion"), c.ID, f.Get("scope"))
	var ae *resourceserver.AssertionError
	switch {
	case errors.As(err, &ae):
		p.log.Info("ID-JAG refused", "client_id", c.ID, "reason", ae.Error())
		oauthError(w, http.StatusBadRequest, ae.Code, ae.Description)
		return
	case errors.Is(err, mcp.ErrAuthUnavailable):
		p.log.Warn("ID-JAG could not be checked", "client_id", c.ID, "err", err)
		unavailable(w, "the identity provider's keys or the token storage cannot be read now; try again")
		return
	case err != nil:
		p.log.Error("checking an ID-JAG", "client_id", c.ID, "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "the assertion could not be checked")
		return
	}
	now := p.now()
	g := &grant{ClientID: c.ID, Scopes: a.Granted, LoginAt: now.Unix(), IdP: a.Issuer,
		Identity: Identity{Subject: "idjag:" + a.User, Claims: a.Claims}}
	gid := randomToken(16)
	key := "grant:" + gid
	// The grant lives as long as its one access token.
	if err := p.store.Put(ctx, key, p.seal.seal(key, marshal(g)), p.cfg.AccessTokenTTL+ClockSkew); err != nil {
		p.log.Error("storing the grant of an ID-JAG", "err", err)
		unavailable(w, "the login could not be stored; get a new assertion and try again")
		return
	}
	at, err := p.jwt.mint(AccessTokenClaims{
		Claims: jwt.Claims{Issuer: p.issuer, Audience: jwt.Audience{p.resource}, Subject: g.Identity.Subject,
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
			Expiry: jwt.NewNumericDate(now.Add(p.cfg.AccessTokenTTL)), ID: randomToken(16)},
		ClientID: c.ID, Scope: strings.Join(a.Granted, " "), GrantID: gid,
	})
	if err != nil {
		p.log.Error("minting access token", "err", err)
		oauthError(w, http.StatusInternalServerError, "server_error", "the access token could not be minted")
		return
	}
	p.log.Info("access token issued for an ID-JAG", "client_id", c.ID, "idp", a.Issuer, "sub", g.Identity.Subject)
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": int(p.cfg.AccessTokenTTL / time.Second)}
	if len(a.Granted) > 0 {
		resp["scope"] = strings.Join(a.Granted, " ")
	}
	writeJSON(w, http.StatusOK, resp)
}
