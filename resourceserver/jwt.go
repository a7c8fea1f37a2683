package resourceserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	claimpath "github.com/mcpchain/mcp/internal/claims"
)

// verifyJWT checks a JWT access token: signature by a key of the issuer's
// JWKS (see keySet),
// then iss, aud, exp, nbf and iat, each refusal with its own description.
func (v *Verifier) verifyJWT(ctx context.Context, tok string) (*Session, error) {
	jws, err := jose.ParseSignedCompact(tok, v.algs)
	if err != nil {
		return nil, v.refuse("the access token is not a JWT signed with an accepted algorithm", "parse: "+err.Error())
	}
	if len(jws.Signatures) != 1 {
		return nil, v.refuse("the access token must carry exactly one signature", "signatures")
	}
	if typ, _ := jws.Signatures[0].Header.ExtraHeaders[jose.HeaderType].(string); !accessTokenType(typ) {
		if len(typ) > 64 {
			typ = typ[:64] + "…" // for the log: the token chose it
		}
		return nil, v.refuse("the JWT is not an access token: its typ header names another kind of token (an access token's is at+jwt, JWT, or none)",
			fmt.Sprintf("typ %q", typ))
	}
	kid := jws.Signatures[0].Header.KeyID
	if len(kid) > 64 {
		kid = kid[:64] + "…" // for the log: the token chose it
	}
	payload, err := v.keys.verify(ctx, jws)
	switch {
	case errors.Is(err, errUnknownKey):
		return nil, v.refuse("the access token's signature does not verify: it names a key the issuer does not publish",
			fmt.Sprintf("unknown kid %q", kid))
	case errors.Is(err, errBadSig):
		return nil, v.refuse("the access token's signature does not verify with the issuer's published keys",
			fmt.Sprintf("kid %q: bad signature", kid))
	case err != nil:
		return nil, v.unavailable("fetching the issuer's keys", err)
	}
	c, err := parseClaims(payload)
	if err != nil {
		return nil, v.refuse("the access token's claims are malformed", err.Error())
	}
	for _, name := range idTokenClaims {
		if _, ok := c.all[name]; ok {
			return nil, v.refuse("the JWT is an ID token, not an access token (it carries "+name+")", "claim "+name)
		}
	}
	return v.checkClaims(c)
}

// accessTokenType reports whether typ, a JWT's typ header, may be an
// access token's: at+jwt (RFC 9068 §2.1, with or without "application/",
// compared without case as RFC 7515 §4.1.9 asks), JWT, or none, since
// most providers (Okta, Entra, Keycloak, Auth0 without its RFC 9068
// profile) type their access tokens JWT or not at all, as they do ID
// tokens. Any other value names another kind of JWT the issuer may sign
// (an ID-JAG, a logout token, a security event, an explicitly typed ID
// token), which is no access token whatever its audience.
func accessTokenType(typ string) bool {
	t := strings.ToLower(typ)
	return t == "" || t == "jwt" || t == "at+jwt" || t == "application/at+jwt"
}

// idTokenClaims are claims that OpenID Connect defines for ID tokens
// only (Core §3.1.3.6, §3.3.2.11: the hash of the access token or code
// the ID token came with), which an access token never carries. They
// tell an ID token that is typed JWT like an access token, and whose aud
// is a client ID listed in Config.Audiences, from one. nonce is not
// among them: Entra puts one in some access tokens.
var idTokenClaims = []string{"at_hash", "c_hash"}

// checkClaims applies the checks every verifier shares (JWT and
// introspection) to decoded claims.
func (v *Verifier) checkClaims(c *claims) (*Session, error) {
	now := v.cfg.Now()
	switch {
	case c.Iss != v.cfg.Issuer:
		return nil, v.refuse("the access token was not issued by "+v.cfg.Issuer, fmt.Sprintf("iss %q", c.Iss))
	case !slices.ContainsFunc(c.Aud, func(a string) bool { return slices.Contains(v.audiences, a) }):
		return nil, v.refuse("the access token is not for this resource (aud must name "+v.cfg.Resource+")",
			fmt.Sprintf("aud %q", c.Aud))
	case c.Exp == nil:
		return nil, v.refuse("the access token has no expiry (exp)", "no exp")
	case !now.Before(c.Exp.Add(v.cfg.Leeway)):
		return nil, v.refuse("the access token has expired", fmt.Sprintf("exp %s, now %s", c.Exp.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339)))
	case c.Nbf != nil && now.Add(v.cfg.Leeway).Before(*c.Nbf):
		return nil, v.refuse("the access token is not valid yet (nbf)", "nbf in the future")
	case c.Iat != nil && now.Add(v.cfg.Leeway).Before(*c.Iat):
		return nil, v.refuse("the access token was issued in the future (iat)", "iat in the future")
	case c.Sub == "":
		return nil, v.refuse("the access token names no subject (sub)", "no sub")
	case c.cnfOther:
		// A token bound to a client certificate (x5t#S256) or to a key
		// given otherwise than by thumbprint: a binding this server
		// cannot check is refused rather than ignored.
		return nil, v.refuse("the access token is bound (cnf) by a method this server does not check; only DPoP (cnf.jkt) is supported",
			"cnf with a member other than jkt")
	}
	return &Session{Sub: c.Sub, Issuer: c.Iss, Audience: c.Aud, ClientID: c.clientID(), Scopes: c.scopes(),
		Roles: claimpath.Roles(c.all, v.roles), Expiry: *c.Exp, Claims: c.all, jkt: c.Jkt}, nil
}

// claims are the members of a token the verifier reads; all holds every
// member for the session.
type claims struct {
	Iss      string
	Sub      string
	Aud      []string
	Exp      *time.Time
	Nbf      *time.Time
	Iat      *time.Time
	Scope    []string // scope (a space-separated string)
	Scp      []string // scp (a list, or a space-separated string)
	ClientID string
	Azp      string
	Jkt      string // cnf.jkt: the thumbprint of the DPoP key the token is bound to
	cnfOther bool   // cnf has a confirmation method other than jkt
	all      map[string]any
}

func (c *claims) clientID() string {
	if c.ClientID != "" {
		return c.ClientID
	}
	return c.Azp
}

func (c *claims) scopes() []string {
	out := slices.Clone(c.Scope)
	for _, s := range c.Scp {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// maxClaimsLen bounds a token payload or an introspection answer.
const maxClaimsLen = 64 << 10

// parseClaims decodes a JWT payload or an introspection answer: a JSON
// object whose registered members have their RFC 7519 types (aud a
// string or a list of strings; exp, nbf, iat numbers) and whose scope is
// a space-separated string and scp a list of strings or a string. A
// member with the wrong type is an error, never a zero value. Member
// names are matched exactly (encoding/json would also take "ISS").
func parseClaims(b []byte) (*claims, error) {
	if len(b) > maxClaimsLen {
		return nil, fmt.Errorf("claims of %d bytes exceed %d", len(b), maxClaimsLen)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var all map[string]any
	if err := dec.Decode(&all); err != nil {
		return nil, fmt.Errorf("claims are not a JSON object: %w", err)
	}
	if all == nil {
		return nil, errors.New("claims are not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("claims have data after the object")
	}
	c := &claims{all: all}
	r := claimReader{all: all}
	r.str("iss", &c.Iss)
	r.str("sub", &c.Sub)
	r.str("client_id", &c.ClientID)
	r.str("azp", &c.Azp)
	r.list("aud", &c.Aud, false)
	r.time("exp", &c.Exp)
	r.time("nbf", &c.Nbf)
	r.time("iat", &c.Iat)
	var scope string
	r.str("scope", &scope)
	c.Scope = strings.Fields(scope)
	r.list("scp", &c.Scp, true)
	if r.err != nil {
		return nil, r.err
	}
	if v, ok := all["cnf"]; ok {
		if err := c.readCnf(v); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// readCnf reads the cnf claim: RFC 7800 §3.1's confirmation methods, an
// object, of which RFC 9449 §6.1's jkt (a key thumbprint) is the one
// known here; another method marks the token as bound to something this
// package cannot check.
func (c *claims) readCnf(v any) error {
	cnf, ok := v.(map[string]any)
	if !ok || len(cnf) == 0 {
		return errors.New("cnf is not an object of confirmation methods")
	}
	for m, val := range cnf {
		if m != "jkt" {
			c.cnfOther = true
			continue
		}
		s, ok := val.(string)
		if !ok || len(s) != 43 {
			return errors.New("cnf.jkt is not a base64url SHA-256 thumbprint")
		}
		c.Jkt = s
	}
	return nil
}

// claimReader reads typed claims from a decoded payload, keeping the
// first error: a claim of the wrong type refuses the token.
type claimReader struct {
	all map[string]any
	err error
}

// str reads a string claim, if present.
func (r *claimReader) str(name string, dst *string) {
	if r.err != nil {
		return
	}
	if v, ok := r.all[name]; ok {
		s, ok := v.(string)
		if !ok {
			r.err = fmt.Errorf("%s is not a string", name)
		}
		*dst = s
	}
}

// time reads a NumericDate claim (seconds since the epoch), if present.
func (r *claimReader) time(name string, dst **time.Time) {
	if r.err != nil {
		return
	}
	v, ok := r.all[name]
	if !ok {
		return
	}
	n, ok := v.(json.Number)
	if !ok {
		r.err = fmt.Errorf("%s is not a number", name)
		return
	}
	f, ferr := n.Float64()
	if ferr != nil || f < 0 || f > 1e11 {
		r.err = fmt.Errorf("%s is not a time in seconds", name)
		return
	}
	t := time.Unix(int64(f), 0)
	*dst = &t
}

// list reads a claim that is a list of strings or one string: split at
// spaces when stringSplits (scp), else a list of one (aud).
func (r *claimReader) list(name string, dst *[]string, stringSplits bool) {
	if r.err != nil {
		return
	}
	switch v := r.all[name].(type) {
	case nil:
		if _, present := r.all[name]; present {
			r.err = fmt.Errorf("%s is null", name)
		}
	case string:
		if stringSplits {
			*dst = strings.Fields(v)
		} else {
			*dst = []string{v}
		}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				r.err = fmt.Errorf("%s has a member that is not a string", name)
				return
			}
			*dst = append(*dst, s)
		}
	default:
		r.err = fmt.Errorf("%s is neither a string nor a list of strings", name)
	}
}

// keysUnavailable is the error of a key-set or introspection fetch that
// did not get an answer: a transport error or a status other than 200.
type keysUnavailable struct{ err error }

func (e *keysUnavailable) Error() string { return e.err.Error() }
func (e *keysUnavailable) Unwrap() error { return e.err }

// guardTransport marks failed fetches as *keysUnavailable (so the
// verifier can tell an outage from a bad token) and bounds what a
// response body may hold.
type guardTransport struct {
	next http.RoundTripper
}

func (t *guardTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err != nil {
		return nil, &keysUnavailable{err}
	}
	if resp.StatusCode >= 500 || (r.Method == http.MethodGet && resp.StatusCode != http.StatusOK) {
		_ = resp.Body.Close()
		return nil, &keysUnavailable{fmt.Errorf("%s %s: %s", r.Method, r.URL.Redacted(), resp.Status)}
	}
	resp.Body = &limitedBody{r: io.LimitReader(resp.Body, maxMetadataLen), c: resp.Body}
	return resp, nil
}

type limitedBody struct {
	r io.Reader
	c io.Closer
}

func (b *limitedBody) Read(p []byte) (int, error) { return b.r.Read(p) }
func (b *limitedBody) Close() error               { return b.c.Close() }

func transportOf(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

func withTransport(c *http.Client, rt http.RoundTripper) *http.Client {
	cp := *c
	cp.Transport = rt
	return &cp
}

// Session is the auth data of a caller admitted by a [Verifier]: tools
// get it as Context.Session (c.Session.(*resourceserver.Session)).
type Session struct {
	// Sub is the token's subject: the user (or, for client-credentials
	// tokens, the client).
	Sub string
	// Issuer is the token's iss.
	Issuer string
	// Audience is the token's aud.
	Audience []string
	// ClientID is the client the token was issued to (client_id, else
	// azp), when the token says.
	ClientID string
	// Scopes are the scopes granted (scope and scp together).
	Scopes []string
	// Roles are the strings of the claims Config.RoleClaims names (a
	// group is a role here), for access.Roles.
	Roles []string
	// Expiry is the token's exp.
	Expiry time.Time
	// Claims are all members of the token (or of the introspection
	// answer), numbers as json.Number.
	Claims map[string]any

	jkt string // the DPoP key the token is bound to (cnf.jkt), checked

	// token is the access token the request came with, for
	// SubjectToken; set on the copy each request gets, never on the
	// sessions the introspection cache keeps.
	token string
}

// Subject implements mcp.Subject: an MCP session is bound to the token's
// issuer and sub together.
func (s *Session) Subject() string { return s.Issuer + "|" + s.Sub }

// HasScope implements access.ScopeChecker, for access.Scopes.
func (s *Session) HasScope(scope string) bool { return slices.Contains(s.Scopes, scope) }

func (s *Session) missing(required []string) []string {
	var out []string
	for _, r := range required {
		if !s.HasScope(r) {
			out = append(out, r)
		}
	}
	return out
}

var _ interface {
	mcp.AuthProvider
	discovery.MetadataProvider
} = (*Verifier)(nil)
