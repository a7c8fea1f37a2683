package resourceserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpchain/mcp"
)

// Identifiers of the identity assertion authorization grant
// (draft-ietf-oauth-identity-assertion-authz-grant; MCP's
// enterprise-managed authorization, SEP-990).
const (
	// JWTBearerGrant is the grant_type of RFC 7523 §2.1: an assertion
	// (here an ID-JAG) exchanged for an access token.
	JWTBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	// idJAGType is the JWS typ header of an ID-JAG.
	idJAGType = "oauth-id-jag+jwt"
)

// EnterpriseIdP is an enterprise identity provider trusted to issue
// identity assertion JWT authorization grants (ID-JAGs, SEP-990): the IdP
// a user signed in to their MCP client with, which the client asks for a
// grant to this server and which this server trusts to have decided
// (by its policy) that the client may act for the user here.
type EnterpriseIdP struct {
	// Issuer is the IdP's issuer identifier, exactly as its assertions
	// carry it in iss (an https URL without query or fragment). Required.
	Issuer string
	// JWKSURL is where the IdP publishes its signing keys. Default: the
	// jwks_uri of its metadata (OpenID Connect discovery, then RFC 8414),
	// read at the first assertion that names it.
	JWKSURL string
	// Algorithms are the JWS algorithms accepted from it. Default: RS256,
	// RS384, RS512, ES256, ES384, ES512, PS256, PS384, PS512, EdDSA;
	// "none" and HMAC are never accepted.
	Algorithms []string
	// MaxLifetime bounds an assertion's lifetime (exp minus iat): the
	// extension wants them short-lived, and each is remembered until it
	// expires to refuse its replay. Default: 1 hour.
	MaxLifetime time.Duration
	// Subject maps a verified assertion to the subject this server knows
	// its user by, or refuses it with an error (an invalid_grant whose
	// description is generic; the error is logged): a tenant or group
	// check, or a user directory lookup. Default: the assertion's issuer
	// and subject, "iss|sub", so that two IdPs can never name one user.
	Subject func(*IdentityAssertion) (string, error)
}

// AssertionClient is a client registered beforehand that may present
// ID-JAGs: the identifier the enterprise IdP puts in the assertions'
// client_id, and the secret it authenticates with at the token endpoint
// (client_secret_basic or client_secret_post). The extension is for
// confidential clients only.
type AssertionClient struct {
	// ID is the client_id. Required.
	ID string
	// Secret is the client_secret, at least 16 bytes. Required.
	Secret string
}

// IdentityAssertion is a verified ID-JAG.
type IdentityAssertion struct {
	// Issuer is the enterprise IdP (iss).
	Issuer string
	// Subject is the user at the IdP (sub).
	Subject string
	// User is what [EnterpriseIdP.Subject] mapped it to ("iss|sub" by
	// default): the subject of the tokens issued for it.
	User string
	// ClientID is the client the IdP issued it to (client_id), the one
	// that authenticated.
	ClientID string
	// JWTID is its unique identifier (jti), accepted once.
	JWTID string
	// Audience is its aud: this authorization server.
	Audience []string
	// Resource is its resource: the MCP servers it is for.
	Resource []string
	// Scopes are the scopes the IdP granted; nil when it carries no
	// scope claim.
	Scopes []string
	// Granted are the scopes to issue (SEP-990 §6.2.1): those of the
	// token request that the assertion grants (all the assertion grants
	// when the request names none); for an assertion without a scope
	// claim, those of the request the authorization server offers.
	Granted []string
	// IssuedAt and Expiry are its iat and exp.
	IssuedAt, Expiry time.Time
	// Claims are all its claims, numbers as json.Number.
	Claims map[string]any

	notBefore time.Time // nbf, when present
}

// AssertionVerifierConfig configures an [AssertionVerifier].
type AssertionVerifierConfig struct {
	// IdPs are the enterprise identity providers trusted. At least one.
	IdPs []EnterpriseIdP
	// Audience is the issuer identifier of the authorization server the
	// assertions must be for (their aud; a trailing slash aside).
	// Required.
	Audience string
	// Resources are the resource identifiers of the MCP servers this
	// authorization server issues tokens for: every value of an
	// assertion's resource claim must be one of them (a trailing slash
	// aside). Required.
	Resources []string
	// Scopes are the scopes the authorization server offers for its
	// resources: an assertion granting another is refused (SEP-990
	// §6.6.2). Empty: any scope the IdP grants.
	Scopes []string
	// ReplayCache remembers the assertions accepted (by issuer and jti)
	// until they expire. Default: in memory, which covers one process;
	// replicas need a shared one (package resourceserver/redisreplay).
	ReplayCache ReplayCache
	// Leeway is the clock skew allowed on exp, nbf and iat. Default:
	// 30 s; at most 5 min.
	Leeway time.Duration
	// HTTPClient fetches the IdPs' metadata and keys. Default: a client
	// with a 10 s timeout.
	HTTPClient *http.Client
	// Now is the clock (tests). Default: time.Now.
	Now func() time.Time
}

// AssertionVerifier checks ID-JAGs presented with the RFC 7523
// JWT-bearer grant, as an authorization server of the enterprise-managed
// authorization extension must (SEP-990 §5.1, §6.4, §6.6): typ
// oauth-id-jag+jwt; a signature by a key of a trusted IdP's JWKS with an
// accepted algorithm; iss that IdP; aud this authorization server;
// resource one of its MCP servers; client_id the client that
// authenticated; sub; exp, iat (and nbf) within the leeway and a lifetime
// of at most MaxLifetime; a jti never accepted before. The OAuth proxy
// (package providers) and a [Verifier] with [Config].EnterpriseAuth use
// one; an authorization server of your own can too. Safe for concurrent
// use.
type AssertionVerifier struct {
	cfg       AssertionVerifierConfig
	audience  string
	resources []string
	idps      map[string]*trustedIdP
	algs      []jose.SignatureAlgorithm // every IdP's, for the parse
	hc        *http.Client
	replay    ReplayCache
}

// trustedIdP is an EnterpriseIdP with its key set, found lazily.
type trustedIdP struct {
	EnterpriseIdP
	algs []jose.SignatureAlgorithm

	mu      sync.Mutex
	keys    *keySet
	tried   time.Time // the last failed metadata read
	lastErr error
}

// Limits of what the assertion checks read from outside.
const (
	maxAssertionLen        = 16 << 10
	defaultAssertionMaxAge = time.Hour
	metadataRetry          = 15 * time.Second
)

// NewAssertionVerifier checks cfg and returns a verifier. It makes no
// request: each IdP's metadata and keys are read at its first assertion.
func NewAssertionVerifier(cfg AssertionVerifierConfig) (*AssertionVerifier, error) {
	if len(cfg.IdPs) == 0 {
		return nil, errors.New("resourceserver: an enterprise authorization configuration needs at least one IdP")
	}
	if !absoluteHTTPURL(cfg.Audience) {
		return nil, fmt.Errorf("resourceserver: the assertions' audience %q is not an absolute http(s) URL", cfg.Audience)
	}
	if len(cfg.Resources) == 0 {
		return nil, errors.New("resourceserver: an enterprise authorization configuration needs the resources it issues tokens for")
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	}
	if cfg.Leeway < 0 || cfg.Leeway > maxLeeway {
		return nil, fmt.Errorf("resourceserver: the leeway %v is outside 0..%v", cfg.Leeway, maxLeeway)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	v := &AssertionVerifier{cfg: cfg, audience: trimSlash(cfg.Audience), idps: map[string]*trustedIdP{},
		replay: cfg.ReplayCache}
	for _, r := range cfg.Resources {
		if r == "" {
			return nil, errors.New("resourceserver: an empty resource identifier")
		}
		v.resources = append(v.resources, trimSlash(r))
	}
	if v.replay == nil {
		v.replay = newMemoryReplay(cfg.Now)
	}
	for i, idp := range cfg.IdPs {
		if err := v.addIdP(i, idp); err != nil {
			return nil, err
		}
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{Timeout: 10 * time.Second}
	}
	v.hc = withTransport(base, &guardTransport{next: transportOf(base)})
	return v, nil
}

// absoluteHTTPURL reports whether s parses as an absolute http(s) URL
// with a host.
func absoluteHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// addIdP adds cfg.IdPs[i] to the trusted identity providers (once each)
// and its algorithms to those assertions may be signed with.
func (v *AssertionVerifier) addIdP(i int, idp EnterpriseIdP) error {
	if _, dup := v.idps[idp.Issuer]; dup {
		return fmt.Errorf("resourceserver: IdP %s is listed twice", idp.Issuer)
	}
	t, err := newTrustedIdP(i, idp)
	if err != nil {
		return err
	}
	for _, a := range t.algs {
		if !slices.Contains(v.algs, a) {
			v.algs = append(v.algs, a)
		}
	}
	v.idps[idp.Issuer] = t
	return nil
}

// newTrustedIdP checks the configuration of cfg.IdPs[i] and fills in its
// defaults.
func newTrustedIdP(i int, idp EnterpriseIdP) (*trustedIdP, error) {
	if u, err := url.Parse(idp.Issuer); err != nil || !isHTTPSOrLoopback(idp.Issuer) || u.RawQuery != "" || u.Fragment != "" ||
		strings.ContainsAny(idp.Issuer, "|#") {
		return nil, fmt.Errorf("resourceserver: IdPs[%d].Issuer %q must be an https URL without query or fragment (http only on loopback)", i, idp.Issuer)
	}
	if idp.JWKSURL != "" && !isHTTPSOrLoopback(idp.JWKSURL) {
		return nil, fmt.Errorf("resourceserver: IdPs[%d].JWKSURL %q is not an https URL (http only on loopback)", i, idp.JWKSURL)
	}
	if idp.MaxLifetime == 0 {
		idp.MaxLifetime = defaultAssertionMaxAge
	}
	if idp.MaxLifetime < 0 {
		return nil, fmt.Errorf("resourceserver: IdPs[%d].MaxLifetime is negative", i)
	}
	algs, err := signingAlgorithms(fmt.Sprintf("IdPs[%d].Algorithms", i), idp.Algorithms)
	if err != nil {
		return nil, err
	}
	return &trustedIdP{EnterpriseIdP: idp, algs: algs}, nil
}

// AssertionError is a refused assertion: the OAuth error the token
// endpoint answers (invalid_grant, or invalid_request for a malformed
// request) and a description safe to send to the client (it never holds
// the assertion). An assertion that could not be checked (an IdP's keys
// unreachable, the replay cache down) is not an AssertionError: that
// error wraps mcp.ErrAuthUnavailable (temporarily_unavailable, 503).
type AssertionError struct {
	// Code is the OAuth error code.
	Code string
	// Description says what was wrong.
	Description string
	// Err is the detail for the log, when there is more to say.
	Err error
}

func (e *AssertionError) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Description + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Description
}

func (e *AssertionError) Unwrap() error { return e.Err }

func badAssertion(desc string) error {
	return &AssertionError{Code: "invalid_grant", Description: desc}
}

// Verify checks assertion, presented by the client that authenticated as
// clientID with the token request's scope, and records it as used: a
// second Verify of it fails. A refusal is an *[AssertionError]; an
// outage wraps mcp.ErrAuthUnavailable.
func (v *AssertionVerifier) Verify(ctx context.Context, assertion, clientID, scope string) (*IdentityAssertion, error) {
	jws, err := v.parseAssertion(assertion)
	if err != nil {
		return nil, err
	}
	h := jws.Signatures[0].Header
	// The issuer, read before the signature is checked, only picks the
	// keys to check it with.
	iss, err := unverifiedIssuer(jws.UnsafePayloadWithoutVerification())
	if err != nil {
		return nil, badAssertion("the assertion's claims are malformed: " + err.Error())
	}
	idp, ok := v.idps[iss]
	if !ok {
		return nil, badAssertion("the assertion's issuer is not a trusted identity provider")
	}
	if !slices.Contains(idp.algs, jose.SignatureAlgorithm(h.Algorithm)) {
		return nil, badAssertion("the assertion's algorithm " + clipHeader(h.Algorithm) + " is not accepted from this identity provider")
	}
	keys, err := idp.keySet(ctx, v)
	if err != nil {
		return nil, err
	}
	payload, err := keys.verify(ctx, jws)
	if err != nil {
		return nil, signatureError(iss, err)
	}
	a, err := parseAssertionClaims(payload)
	if err != nil {
		return nil, badAssertion("the assertion's claims are malformed: " + err.Error())
	}
	if err := v.check(a, idp, clientID); err != nil {
		return nil, err
	}
	if a.Granted, err = v.grant(a.Scopes, scope); err != nil {
		return nil, err
	}
	if a.User, err = idp.user(a); err != nil {
		return nil, err
	}
	// Accepted once (SEP-990 §6.4.2), by issuer and jti, until it
	// expires; recorded last, so a refused assertion spends nothing.
	ttl := a.Expiry.Add(v.cfg.Leeway).Sub(v.cfg.Now())
	fresh, err := v.replay.Remember(ctx, replayKey(a.Issuer, a.JWTID), max(ttl, time.Second))
	if err != nil {
		return nil, fmt.Errorf("%w: remembering the assertion (ReplayCache): %v", mcp.ErrAuthUnavailable, err)
	}
	if !fresh {
		return nil, badAssertion("the assertion was already used: get a new one from the identity provider")
	}
	return a, nil
}

// parseAssertion parses an assertion as a compact JWS with one
// signature, of an accepted algorithm and the ID-JAG typ; not yet
// verified. Encrypted assertions (JWE) are refused.
func (v *AssertionVerifier) parseAssertion(assertion string) (*jose.JSONWebSignature, error) {
	if assertion == "" {
		return nil, &AssertionError{Code: "invalid_request", Description: "assertion is required"}
	}
	if len(assertion) > maxAssertionLen {
		return nil, badAssertion(fmt.Sprintf("the assertion is longer than %d bytes", maxAssertionLen))
	}
	if strings.Count(assertion, ".") == 4 {
		return nil, badAssertion("encrypted assertions (JWE) are not supported: the IdP must sign the ID-JAG")
	}
	jws, err := jose.ParseSignedCompact(assertion, v.algs)
	if err != nil {
		return nil, badAssertion("the assertion is not a JWT signed with an accepted algorithm")
	}
	if len(jws.Signatures) != 1 {
		return nil, badAssertion("the assertion must carry exactly one signature")
	}
	if typ, _ := jws.Signatures[0].Header.ExtraHeaders[jose.HeaderType].(string); !isIDJAGType(typ) {
		return nil, badAssertion("the assertion is not an ID-JAG: its typ header must be " + idJAGType)
	}
	return jws, nil
}

// signatureError is the error of an assertion of issuer iss whose
// signature check failed with err: a refusal when the key is unknown or
// the signature wrong, an outage when the keys could not be had.
func signatureError(iss string, err error) error {
	switch {
	case errors.Is(err, errUnknownKey):
		return badAssertion("the assertion's signature does not verify: it names a key the identity provider does not publish")
	case errors.Is(err, errBadSig):
		return badAssertion("the assertion's signature does not verify with the identity provider's keys")
	}
	return fmt.Errorf("%w: the keys of identity provider %s: %v", mcp.ErrAuthUnavailable, iss, err)
}

// user is the local user of assertion a: issuer|subject, or what the
// identity provider's Subject makes of it (an error or empty answer
// refuses the assertion).
func (idp *trustedIdP) user(a *IdentityAssertion) (string, error) {
	if idp.Subject == nil {
		return a.Issuer + "|" + a.Subject, nil
	}
	user, err := idp.Subject(a)
	if err != nil || user == "" {
		if err == nil {
			err = errors.New("Subject returned an empty subject")
		}
		return "", &AssertionError{Code: "invalid_grant", Description: "the identity provider's user is not admitted here", Err: err}
	}
	return user, nil
}

// check applies the claim checks of SEP-990 §5.1 and §6.
func (v *AssertionVerifier) check(a *IdentityAssertion, idp *trustedIdP, clientID string) error {
	switch {
	case a.Issuer != idp.Issuer:
		return badAssertion("the assertion's issuer is not a trusted identity provider")
	case !slices.ContainsFunc(a.Audience, func(s string) bool { return trimSlash(s) == v.audience }):
		return badAssertion("the assertion is not for this authorization server (aud must be " + v.cfg.Audience + ")")
	case len(a.Resource) == 0:
		return badAssertion("the assertion names no resource")
	case slices.ContainsFunc(a.Resource, func(r string) bool { return !slices.Contains(v.resources, trimSlash(r)) }):
		return badAssertion("the assertion is for another resource (resource must be " + strings.Join(v.cfg.Resources, " or ") + ")")
	case a.ClientID == "":
		return badAssertion("the assertion names no client (client_id)")
	case a.ClientID != clientID:
		return badAssertion("the assertion was issued to another client than the one that authenticated")
	case a.Subject == "":
		return badAssertion("the assertion names no subject (sub)")
	case a.JWTID == "":
		return badAssertion("the assertion has no jti: it could not be refused when replayed")
	}
	return v.checkTimes(a, idp)
}

// checkTimes checks an assertion's exp, iat and nbf against the clock
// (with the leeway) and the identity provider's maximum lifetime.
func (v *AssertionVerifier) checkTimes(a *IdentityAssertion, idp *trustedIdP) error {
	now, leeway := v.cfg.Now(), v.cfg.Leeway
	switch {
	case a.Expiry.IsZero():
		return badAssertion("the assertion has no expiry (exp)")
	case !now.Before(a.Expiry.Add(leeway)):
		return badAssertion("the assertion has expired")
	case a.IssuedAt.IsZero():
		return badAssertion("the assertion has no issue time (iat)")
	case now.Add(leeway).Before(a.IssuedAt):
		return badAssertion("the assertion was issued in the future (iat)")
	case a.Expiry.Sub(a.IssuedAt) > idp.MaxLifetime:
		return badAssertion(fmt.Sprintf("the assertion lives longer than %v (exp minus iat): ID-JAGs must be short-lived", idp.MaxLifetime))
	}
	if !a.notBefore.IsZero() && now.Add(leeway).Before(a.notBefore) {
		return badAssertion("the assertion is not valid yet (nbf)")
	}
	return nil
}

// maxScopeLen bounds the scope of a token request.
const maxScopeLen = 1024

// grant returns the scopes to issue for an assertion granting granted
// (nil: no scope claim) to a request for scope.
func (v *AssertionVerifier) grant(granted []string, scope string) ([]string, error) {
	if len(scope) > maxScopeLen {
		return nil, &AssertionError{Code: "invalid_scope", Description: fmt.Sprintf("scope is longer than %d bytes", maxScopeLen)}
	}
	offered := func(s string) bool { return len(v.cfg.Scopes) == 0 || slices.Contains(v.cfg.Scopes, s) }
	for _, s := range granted {
		if !offered(s) {
			return nil, badAssertion("the assertion grants a scope this server does not offer: " + clipHeader(s))
		}
	}
	requested := strings.Fields(scope)
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	switch {
	case granted == nil:
		for _, s := range requested {
			if offered(s) {
				add(s)
			}
		}
	case len(requested) == 0:
		for _, s := range granted {
			add(s)
		}
	default:
		for _, s := range requested {
			if slices.Contains(granted, s) {
				add(s)
			}
		}
	}
	return out, nil
}

// keySet returns the IdP's key set, reading its metadata the first time
// when no JWKSURL is configured. A failed read is tried again at most
// once per metadataRetry: assertions that name a trusted IdP which is
// down cannot make the server hammer it.
func (t *trustedIdP) keySet(ctx context.Context, v *AssertionVerifier) (*keySet, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.keys != nil {
		return t.keys, nil
	}
	if t.JWKSURL != "" {
		t.keys = newKeySet(t.JWKSURL, v.hc, v.cfg.Now)
		return t.keys, nil
	}
	now := v.cfg.Now()
	if !t.tried.IsZero() && now.Sub(t.tried) < metadataRetry {
		return nil, fmt.Errorf("%w: the metadata of identity provider %s: %v", mcp.ErrAuthUnavailable, t.Issuer, t.lastErr)
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	md, err := fetchIssuerMetadata(fctx, v.hc, t.Issuer)
	if err == nil && !isHTTPSOrLoopback(md.JWKSURI) {
		err = fmt.Errorf("the metadata of %s names no https jwks_uri", t.Issuer)
	}
	if err != nil {
		t.tried, t.lastErr = now, err
		return nil, fmt.Errorf("%w: the metadata of identity provider %s: %v", mcp.ErrAuthUnavailable, t.Issuer, err)
	}
	t.keys = newKeySet(md.JWKSURI, v.hc, v.cfg.Now)
	return t.keys, nil
}

// isIDJAGType: the typ header names the ID-JAG media type, with or
// without its application/ prefix (RFC 7515 §4.1.9), in any case.
func isIDJAGType(typ string) bool {
	typ = strings.ToLower(typ)
	return typ == idJAGType || typ == "application/"+idJAGType
}

// replayKey is the replay cache's key of an assertion: its issuer and
// jti together, hashed so that the key's length is fixed.
func replayKey(iss, jti string) string {
	sum := sha256.Sum256([]byte(iss + "\x00" + jti))
	return "idjag:" + hex.EncodeToString(sum[:])
}

func trimSlash(s string) string { return strings.TrimSuffix(s, "/") }

// isHTTPSOrLoopback: an absolute https URL, or http on a loopback host
// (tests and development).
func isHTTPSOrLoopback(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		h := u.Hostname()
		return h == "localhost" || h == "127.0.0.1" || h == "::1"
	}
	return false
}

func clipHeader(s string) string {
	if len(s) > 32 {
		s = s[:32] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// unverifiedIssuer reads iss from a payload whose signature is not yet
// checked; it only chooses the IdP whose keys check it.
func unverifiedIssuer(payload []byte) (string, error) {
	if len(payload) > maxClaimsLen {
		return "", fmt.Errorf("claims of %d bytes exceed %d", len(payload), maxClaimsLen)
	}
	var c map[string]json.RawMessage // members matched exactly, not by case
	if err := json.Unmarshal(payload, &c); err != nil {
		return "", errors.New("the claims are not a JSON object")
	}
	var iss string
	if err := json.Unmarshal(c["iss"], &iss); err != nil || iss == "" {
		return "", errors.New("iss is missing or not a string")
	}
	return iss, nil
}

// parseAssertionClaims decodes an ID-JAG's claims with the types of
// RFC 7519 and the draft: the registered claims as parseClaims reads
// them, client_id and jti strings, resource a string or a list of
// strings, scope a space-separated string. A claim of the wrong type is
// an error, never a zero value.
func parseAssertionClaims(b []byte) (*IdentityAssertion, error) {
	c, err := parseClaims(b)
	if err != nil {
		return nil, err
	}
	a := &IdentityAssertion{Issuer: c.Iss, Subject: c.Sub, ClientID: c.ClientID, Audience: c.Aud, Claims: c.all}
	if c.Exp != nil {
		a.Expiry = *c.Exp
	}
	if c.Iat != nil {
		a.IssuedAt = *c.Iat
	}
	if c.Nbf != nil {
		a.notBefore = *c.Nbf
	}
	if v, ok := c.all["jti"]; ok {
		s, ok := v.(string)
		if !ok || len(s) > maxJTILen {
			return nil, fmt.Errorf("jti is not a string of at most %d bytes", maxJTILen)
		}
		a.JWTID = s
	}
	switch r := c.all["resource"].(type) {
	case nil:
		if _, present := c.all["resource"]; present {
			return nil, errors.New("resource is null")
		}
	case string:
		a.Resource = []string{r}
	case []any:
		for _, e := range r {
			s, ok := e.(string)
			if !ok {
				return nil, errors.New("resource has a member that is not a string")
			}
			a.Resource = append(a.Resource, s)
		}
	default:
		return nil, errors.New("resource is neither a string nor a list of strings")
	}
	if _, ok := c.all["scope"]; ok {
		a.Scopes = append([]string{}, c.Scope...) // present, possibly empty: not nil
	}
	return a, nil
}
