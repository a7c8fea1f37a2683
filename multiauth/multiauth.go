package multiauth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
)

// Owner is a verifier that can tell which credentials are its own. The
// verifiers of packages providers and resourceserver and [APIKeys]
// implement it; so can a verifier of yours.
type Owner interface {
	mcp.AuthProvider
	// Owns reports whether r carries credentials this verifier is to
	// judge, from their form alone (a prefix, the issuer a JWT names),
	// without verifying anything, calling anything or failing. A
	// verifier that owns credentials must answer VerifyRequest for them
	// with auth data or an error: that answer is final.
	Owns(r *http.Request) bool
}

// Auth is several verifiers as one mcp.AuthProvider: the first that owns
// a request's credentials judges them (see the package documentation).
// It implements discovery.MetadataProvider when one of its verifiers has
// metadata. Safe for concurrent use.
type Auth struct {
	verifiers []Owner
	names     []string // for logs: "verifier 2 (*resourceserver.Verifier)"
	meta      *discovery.Options
}

// New returns the verifiers, in this order, as one provider. It fails
// when one of them is nil or is not an [Owner], when a verifier that
// takes every opaque token (token introspection) is not the last one,
// when two verifiers protect different resources (their
// protected-resource metadata name different resource URLs), or when
// more than one of them is an authorization server (two OAuth proxies).
func New(verifiers ...mcp.AuthProvider) (*Auth, error) {
	if len(verifiers) == 0 {
		return nil, errors.New("multiauth: New needs at least one verifier")
	}
	a := &Auth{}
	probe, err := probeRequest()
	if err != nil {
		return nil, err
	}
	catchAll := -1
	for i, v := range verifiers {
		name := fmt.Sprintf("verifier %d (%T)", i+1, v)
		o, ok := v.(Owner)
		switch {
		case v == nil || isNil(v):
			return nil, fmt.Errorf("multiauth: verifier %d is nil", i+1)
		case !ok:
			return nil, fmt.Errorf("multiauth: %s cannot say which credentials are its own: it needs an Owns(*http.Request) bool method (multiauth.Owner)", name)
		}
		if o.Owns(probe) {
			if catchAll >= 0 {
				return nil, fmt.Errorf("multiauth: %s and %s both take every opaque token (token introspection): an opaque token names no issuer, so it cannot be sent to the right one; keep one", a.names[catchAll], name)
			}
			catchAll = i
		}
		a.verifiers = append(a.verifiers, o)
		a.names = append(a.names, name)
	}
	if catchAll >= 0 && catchAll != len(verifiers)-1 {
		return nil, fmt.Errorf("multiauth: %s takes every opaque token (token introspection), so the verifiers after it would never see theirs (and an API key would be sent to its introspection endpoint): put it last", a.names[catchAll])
	}
	if a.meta, err = mergeMetadata(a.verifiers, a.names); err != nil {
		return nil, err
	}
	return a, nil
}

// probeRequest is a request carrying a random opaque bearer token, which
// only a verifier that takes every opaque token owns.
func probeRequest() (*http.Request, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	r, err := http.NewRequest(http.MethodPost, "http://multiauth.invalid/mcp", nil)
	if err != nil {
		return nil, err
	}
	r.Header.Set("Authorization", "Bearer multiauth-probe-"+hex.EncodeToString(b))
	return r, nil
}

// isNil reports whether v holds a nil pointer (or map, func…).
func isNil(v any) bool {
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

// mergeMetadata builds the one metadata of the verifiers: the resource
// they share, every authorization server in order, the scopes of the
// first (where clients sign in), the DPoP algorithms of all, the
// authorization-server document of the one that has it.
func mergeMetadata(vs []Owner, names []string) (*discovery.Options, error) {
	var out *discovery.Options
	var pr *discovery.ProtectedResourceMetadata
	var asFrom, prFrom string
	for i, v := range vs {
		mp, ok := v.(discovery.MetadataProvider)
		if !ok {
			continue
		}
		m := mp.OAuthMetadata()
		if m == nil || !m.Enabled {
			continue
		}
		if out == nil {
			out = &discovery.Options{Enabled: true}
		}
		if m.AuthorizationServer != nil {
			if out.AuthorizationServer != nil {
				return nil, fmt.Errorf("multiauth: %s and %s are both authorization servers (OAuth proxies): one server can mount the routes of only one", asFrom, names[i])
			}
			out.AuthorizationServer, asFrom = m.AuthorizationServer, names[i]
		}
		p := m.ProtectedResource
		if p == nil {
			continue
		}
		if pr == nil {
			cp := *p
			cp.AuthorizationServers = slices.Clone(p.AuthorizationServers)
			cp.ScopesSupported = slices.Clone(p.ScopesSupported)
			cp.BearerMethodsSupported = slices.Clone(p.BearerMethodsSupported)
			cp.DPoPSigningAlgValuesSupported = slices.Clone(p.DPoPSigningAlgValuesSupported)
			pr, prFrom = &cp, names[i]
			continue
		}
		if p.Resource != pr.Resource {
			return nil, fmt.Errorf("multiauth: %s protects %q and %s protects %q: the verifiers of one server must protect one resource (its MCP endpoint's URL)", prFrom, pr.Resource, names[i], p.Resource)
		}
		pr.AuthorizationServers = union(pr.AuthorizationServers, p.AuthorizationServers)
		// scopes_supported stays the first verifier's: a client asks the
		// first authorization server for the scopes listed (MCP
		// 2025-11-25 scope selection), and one it does not know answers
		// invalid_scope.
		pr.BearerMethodsSupported = union(pr.BearerMethodsSupported, p.BearerMethodsSupported)
		pr.DPoPSigningAlgValuesSupported = union(pr.DPoPSigningAlgValuesSupported, p.DPoPSigningAlgValuesSupported)
		if pr.ResourceName == "" {
			pr.ResourceName = p.ResourceName
		}
	}
	if out != nil {
		out.ProtectedResource = pr
	}
	return out, nil
}

// union is a followed by the members of b it lacks.
func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

// VerifyRequest implements mcp.AuthProvider: the first verifier that
// owns the request's credentials verifies them, and its answer (auth
// data, or its refusal, scope error or outage, with its own challenge
// details) is the answer. A request no verifier owns is refused: one
// without an Authorization header with mcp.ErrUnauthorized (401, "authorize
// first"), one with credentials with an *mcp.AuthError wrapping
// mcp.ErrInvalidToken. A verifier that owns the credentials and admits
// the request with no auth data is a failed check (500), never an
// anonymous admission.
func (a *Auth) VerifyRequest(r *http.Request) (any, error) {
	for i, v := range a.verifiers {
		if !v.Owns(r) {
			continue
		}
		auth, err := v.VerifyRequest(r)
		if err != nil {
			return nil, fmt.Errorf("multiauth: %s: %w", a.names[i], err)
		}
		if auth == nil {
			return nil, fmt.Errorf("multiauth: %s owns the request's credentials but returned no auth data: refused", a.names[i])
		}
		return auth, nil
	}
	if len(r.Header.Values("Authorization")) == 0 {
		return nil, fmt.Errorf("%w: no credentials", mcp.ErrUnauthorized)
	}
	return nil, &mcp.AuthError{Err: fmt.Errorf("%w: no verifier owns the credentials (no trusted issuer, no API key prefix)", mcp.ErrInvalidToken),
		Description: "the credentials are of no kind this server accepts (a token of another issuer, or malformed)"}
}

// Mount implements mcp.AuthProvider: the merged discovery documents,
// then the routes of every verifier (the OAuth endpoints of a proxy;
// their own copies of the documents are left out, the merged ones being
// there first).
func (a *Auth) Mount(mux *http.ServeMux) {
	discovery.Mount(mux, a.meta)
	for _, v := range a.verifiers {
		v.Mount(mux)
	}
}

// OAuthMetadata implements discovery.MetadataProvider: one
// protected-resource document for the resource every verifier protects,
// naming each verifier's authorization servers in the order of the
// list, with the scopes of the first verifier that has metadata (a
// client asks the first authorization server for the scopes listed, and
// would get invalid_scope for another's); and the authorization-server
// document of the verifier that is one (an OAuth proxy), if any. Nil
// when no verifier has metadata (API keys alone).
func (a *Auth) OAuthMetadata() *discovery.Options { return a.meta }

// UseServerInfo passes the MCP server's identity on to the verifiers
// that show it on pages of their own (the consent page of an OAuth
// proxy); mcphttp.NewMux calls it.
func (a *Auth) UseServerInfo(info mcp.Implementation) {
	for _, v := range a.verifiers {
		if u, ok := v.(interface{ UseServerInfo(mcp.Implementation) }); ok {
			u.UseServerInfo(info)
		}
	}
}

var (
	_ mcp.AuthProvider           = (*Auth)(nil)
	_ discovery.MetadataProvider = (*Auth)(nil)
)
