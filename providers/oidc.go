package providers

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// oidcUpstream is the OpenID Connect half shared by the consumer identity,
// enterprise directory and (with an Issuer) generic providers: endpoints
// either given or discovered, and ID token verification with nonce.
type oidcUpstream struct {
	clientID, clientSecret string
	scopes                 []string
	style                  oauth2.AuthStyle
	issuer                 string // expected iss; with no endpoints it is discovered
	authURL, tokenURL      string
	jwksURL, userinfoURL   string
	skipIssuerCheck        bool
	checkClaims            func(claims map[string]any) error

	mu       sync.Mutex
	provider *oidc.Provider
}

func (o *oidcUpstream) load(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider != nil {
		return o.provider, nil
	}
	var p *oidc.Provider
	if o.authURL != "" && o.tokenURL != "" && o.jwksURL != "" {
		p = (&oidc.ProviderConfig{IssuerURL: o.issuer, AuthURL: o.authURL, TokenURL: o.tokenURL,
			JWKSURL: o.jwksURL, UserInfoURL: o.userinfoURL}).NewProvider(ctx)
	} else {
		var err error
		if o.skipIssuerCheck {
			ctx = oidc.InsecureIssuerURLContext(ctx, o.issuer)
		}
		if p, err = oidc.NewProvider(ctx, o.issuer); err != nil {
			return nil, fmt.Errorf("%w: OIDC discovery at %s: %v", ErrUpstream, o.issuer, err)
		}
	}
	o.provider = p
	return p, nil
}

func (o *oidcUpstream) config(ctx context.Context) (*oauth2.Config, error) {
	p, err := o.load(ctx)
	if err != nil {
		return nil, err
	}
	ep := p.Endpoint()
	if o.authURL != "" {
		ep.AuthURL = o.authURL
	}
	if o.tokenURL != "" {
		ep.TokenURL = o.tokenURL
	}
	ep.AuthStyle = o.style
	return &oauth2.Config{ClientID: o.clientID, ClientSecret: o.clientSecret, Endpoint: ep, Scopes: o.scopes}, nil
}

func (o *oidcUpstream) authOptions(nonce string) []oauth2.AuthCodeOption {
	return []oauth2.AuthCodeOption{oidc.Nonce(nonce)}
}

// verify checks the ID token of tok (signature, iss, aud, exp, nonce) and
// returns its claims.
func (o *oidcUpstream) verify(ctx context.Context, tok *oauth2.Token, nonce string) (string, map[string]any, error) {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return "", nil, fmt.Errorf("%w: the token response has no id_token (is the openid scope requested?)", ErrUpstream)
	}
	p, err := o.load(ctx)
	if err != nil {
		return "", nil, err
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: o.clientID, SkipIssuerCheck: o.skipIssuerCheck}).Verify(ctx, raw)
	if err != nil {
		return "", nil, fmt.Errorf("%w: ID token: %v", ErrUpstream, err)
	}
	if idt.Nonce != nonce {
		return "", nil, fmt.Errorf("%w: ID token nonce does not match this login", ErrUpstream)
	}
	claims := map[string]any{}
	if err := idt.Claims(&claims); err != nil {
		return "", nil, fmt.Errorf("%w: ID token claims: %v", ErrUpstream, err)
	}
	if o.checkClaims != nil {
		if err := o.checkClaims(claims); err != nil {
			return "", nil, fmt.Errorf("%w: %v", ErrUpstream, err)
		}
	}
	if idt.Subject == "" {
		return "", nil, errors.Join(ErrUpstream, errors.New("ID token has no sub"))
	}
	return idt.Subject, claims, nil
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}
