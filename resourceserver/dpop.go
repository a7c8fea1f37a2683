package resourceserver

import (
	"bytes"
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// DPoPConfig configures how a [Verifier] checks the proofs of DPoP-bound
// tokens (RFC 9449). The checks themselves are always on: a token bound
// to a key (cnf.jkt in the JWT or in the introspection answer) is
// admitted only with the DPoP scheme and a valid proof signed with that
// key, never as a bearer token.
type DPoPConfig struct {
	// Algorithms are the JWS algorithms accepted for proofs, advertised
	// as dpop_signing_alg_values_supported in the metadata and as algs
	// in DPoP challenges. Default: ES256, ES384, ES512, PS256, PS384,
	// PS512, RS256, RS384, RS512, EdDSA. "none" and HMAC algorithms are
	// never accepted.
	Algorithms []string
	// PublicURL is the URL clients reach this server at: scheme, host
	// and, behind a reverse proxy that strips a path prefix, that prefix
	// (https://example.com/api when https://example.com/api/mcp reaches
	// this server as /mcp). A proof's htu must be PublicURL followed by
	// the path of the request as this server received it (before any
	// http.StripPrefix of its own), query and fragment aside. Default:
	// the scheme and host of Config.Resource. The Host header and
	// X-Forwarded-* headers are never read: a client could choose them.
	PublicURL string
	// ProofLifetime is how long after its iat a proof is accepted; a
	// proof may also be Config.Leeway ahead of this server's clock.
	// Default: 60 s; at most 5 min.
	ProofLifetime time.Duration
	// ReplayCache remembers the proofs accepted, so that none is accepted
	// twice (RFC 9449 §11.1). Default: in memory, which covers one
	// process: with several replicas behind one URL, give them a shared
	// cache (package resourceserver/redisreplay), or a proof replayed at
	// another replica passes there.
	ReplayCache ReplayCache
	// NonceKey, when set (at least 32 bytes, the same on every replica),
	// makes proofs carry a nonce of this server (RFC 9449 §9): a proof
	// without one, or with one older than 5 minutes, is answered with 401
	// use_dpop_nonce and a fresh nonce in DPoP-Nonce, which the client
	// puts in its next proof. Proofs made in advance then stop working.
	// Default: no nonces.
	NonceKey []byte
}

// ReplayCache remembers the identifiers of accepted DPoP proofs for as
// long as the proofs would pass the time check. A [Verifier] calls it
// once per proof, after every other check passed.
type ReplayCache interface {
	// Remember records id for ttl and reports whether it is new: false
	// when id is already recorded and its ttl has not run out. Of two
	// concurrent calls with one id, at most one may report true. An
	// error refuses the request with 503.
	Remember(ctx context.Context, id string, ttl time.Duration) (bool, error)
}

// Limits of what the proof checks read from outside.
const (
	maxProofLen      = 8 << 10 // a DPoP header longer than this is refused unread
	maxJTILen        = 256
	maxNonceLen      = 256
	minRSABits       = 2048
	maxRSABits       = 8192
	nonceLifetime    = 5 * time.Minute
	maxProofLifetime = 5 * time.Minute
	nonceKeyMin      = 32
)

// defaultDPoPAlgs are defaultAlgs, those clients use for proofs first.
var defaultDPoPAlgs = []jose.SignatureAlgorithm{jose.ES256, jose.ES384, jose.ES512, jose.PS256, jose.PS384, jose.PS512,
	jose.RS256, jose.RS384, jose.RS512, jose.EdDSA}

// dpopChecker checks proofs for one Verifier.
type dpopChecker struct {
	algs     []jose.SignatureAlgorithm
	algNames string // space-separated, for challenges
	scheme   string // of PublicURL, lower case
	host     string // of PublicURL, lower case, without a default port
	prefix   string // path of PublicURL, without a trailing slash
	lifetime time.Duration
	leeway   time.Duration
	replay   ReplayCache
	nonceKey []byte
	now      func() time.Time
}

func newDPoPChecker(cfg Config) (*dpopChecker, error) {
	var dc DPoPConfig
	if cfg.DPoP != nil {
		dc = *cfg.DPoP
	}
	d := &dpopChecker{algs: defaultDPoPAlgs, lifetime: dc.ProofLifetime, leeway: cfg.Leeway, replay: dc.ReplayCache,
		now: cfg.Now}
	if len(dc.Algorithms) > 0 {
		algs, err := dpopAlgorithms(dc.Algorithms)
		if err != nil {
			return nil, err
		}
		d.algs = algs
	}
	names := make([]string, len(d.algs))
	for i, a := range d.algs {
		names[i] = string(a)
	}
	d.algNames = strings.Join(names, " ")
	u, prefix, err := dpopPublicURL(dc.PublicURL, cfg.Resource)
	if err != nil {
		return nil, err
	}
	d.prefix = prefix
	d.scheme, d.host = strings.ToLower(u.Scheme), canonicalHost(u)
	if d.lifetime == 0 {
		d.lifetime = time.Minute
	}
	if d.lifetime < 0 || d.lifetime > maxProofLifetime {
		return nil, fmt.Errorf("resourceserver: Config.DPoP.ProofLifetime %v is outside 0..%v", d.lifetime, maxProofLifetime)
	}
	if dc.NonceKey != nil {
		if len(dc.NonceKey) < nonceKeyMin {
			return nil, fmt.Errorf("resourceserver: Config.DPoP.NonceKey has %d bytes; it needs at least %d random bytes", len(dc.NonceKey), nonceKeyMin)
		}
		d.nonceKey = slices.Clone(dc.NonceKey)
	}
	if d.replay == nil {
		d.replay = newMemoryReplay(cfg.Now)
	}
	return d, nil
}

// dpopAlgorithms checks Config.DPoP.Algorithms: each must be an
// asymmetric JWS algorithm this package accepts.
func dpopAlgorithms(names []string) ([]jose.SignatureAlgorithm, error) {
	var algs []jose.SignatureAlgorithm
	for _, a := range names {
		if !slices.Contains(defaultAlgs, jose.SignatureAlgorithm(a)) {
			return nil, fmt.Errorf("resourceserver: Config.DPoP.Algorithms: %q is not an asymmetric JWS algorithm this package accepts", a)
		}
		algs = append(algs, jose.SignatureAlgorithm(a))
	}
	return algs, nil
}

// dpopPublicURL parses the URL proofs' htu is checked against:
// Config.DPoP.PublicURL (no query or fragment; its path is the prefix
// returned, without a trailing slash), or else the resource.
func dpopPublicURL(public, resource string) (*url.URL, string, error) {
	given := public != ""
	if !given {
		public = resource
	}
	u, err := url.Parse(public)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return nil, "", fmt.Errorf("resourceserver: Config.DPoP.PublicURL %q is not an absolute http(s) URL", public)
	}
	if !given {
		return u, "", nil
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, "", fmt.Errorf("resourceserver: Config.DPoP.PublicURL %q has a query or fragment", public)
	}
	return u, strings.TrimSuffix(u.Path, "/"), nil
}

// canonicalHost is u's host in lower case without the scheme's default
// port (RFC 3986 §6.2.3).
func canonicalHost(u *url.URL) string {
	h := strings.ToLower(u.Host)
	switch {
	case strings.EqualFold(u.Scheme, "https") && strings.HasSuffix(h, ":443"):
		h = strings.TrimSuffix(h, ":443")
	case strings.EqualFold(u.Scheme, "http") && strings.HasSuffix(h, ":80"):
		h = strings.TrimSuffix(h, ":80")
	}
	return h
}

// proof is a DPoP proof whose signature verified with its own key.
type proof struct {
	jkt   string // RFC 7638 SHA-256 thumbprint of the jwk, base64url
	jti   string
	htm   string
	htu   string
	ath   string
	nonce string
	iat   time.Time
}

// proofError is a proof refused: desc says why, for the client (never
// a value taken from the proof).
type proofError struct{ desc string }

func (e *proofError) Error() string { return e.desc }

func badProof(desc string) error { return &proofError{desc} }

// parseProof checks what a DPoP proof says of itself (RFC 9449 §4.3,
// checks 2 to 7): a compact JWS with one signature, typ dpop+jwt, an alg
// of algs, a public jwk (RSA of 2048 to 8192 bits, EC or Ed25519) that
// verifies the signature, and the claims jti, htm, htu and iat of their
// types (ath and nonce strings when present). What the proof must match
// (the request, the token, the time, the replay cache) is the caller's.
func parseProof(p string, algs []jose.SignatureAlgorithm) (*proof, error) {
	if p == "" || len(p) > maxProofLen {
		return nil, badProof(fmt.Sprintf("the DPoP proof is empty or longer than %d bytes", maxProofLen))
	}
	jws, err := jose.ParseSignedCompact(p, algs)
	if err != nil {
		return nil, badProof(whyNotParsed(p))
	}
	if len(jws.Signatures) != 1 {
		return nil, badProof("the DPoP proof must carry exactly one signature")
	}
	h := jws.Signatures[0].Header
	typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
	if !strings.EqualFold(typ, "dpop+jwt") && !strings.EqualFold(typ, "application/dpop+jwt") {
		return nil, badProof("the DPoP proof's typ is not dpop+jwt")
	}
	jwk := h.JSONWebKey
	if err := checkProofKey(jwk); err != nil {
		return nil, err
	}
	payload, err := jws.Verify(jwk)
	if err != nil {
		return nil, badProof("the DPoP proof's signature does not verify with its jwk")
	}
	pr, err := parseProofClaims(payload)
	if err != nil {
		return nil, err
	}
	tp, err := jwk.Thumbprint(crypto.SHA256)
	if err != nil {
		return nil, badProof("the DPoP proof's jwk has no thumbprint")
	}
	pr.jkt = base64.RawURLEncoding.EncodeToString(tp)
	return pr, nil
}

// checkProofKey checks a proof's jwk: present, valid and public, and an
// RSA key of minRSABits to maxRSABits.
func checkProofKey(jwk *jose.JSONWebKey) error {
	if jwk == nil || !jwk.Valid() || !jwk.IsPublic() {
		return badProof("the DPoP proof's header has no public jwk")
	}
	if k, ok := jwk.Key.(*rsa.PublicKey); ok && (k.N.BitLen() < minRSABits || k.N.BitLen() > maxRSABits) {
		return badProof(fmt.Sprintf("the DPoP proof's RSA key must have %d to %d bits", minRSABits, maxRSABits))
	}
	return nil
}

// whyNotParsed says why go-jose refused a proof, from its header.
func whyNotParsed(p string) string {
	seg, _, _ := strings.Cut(p, ".")
	b, err := base64.RawURLEncoding.DecodeString(seg)
	var h struct {
		JWK map[string]any `json:"jwk"`
	}
	if err == nil && json.Unmarshal(b, &h) == nil && h.JWK != nil {
		for _, m := range []string{"d", "p", "q", "dp", "dq", "qi", "k"} {
			if _, ok := h.JWK[m]; ok {
				return "the DPoP proof's header has no public jwk: its jwk holds a private or symmetric key"
			}
		}
	}
	return "the DPoP proof is not a JWT signed with an accepted algorithm"
}

// parseProofClaims decodes a proof's payload: a JSON object whose jti,
// htm and htu are non-empty strings, iat a number, ath and nonce strings
// when present. Member names are matched exactly.
func parseProofClaims(b []byte) (*proof, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var all map[string]any
	if err := dec.Decode(&all); err != nil || all == nil {
		return nil, badProof("the DPoP proof's claims are not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badProof("the DPoP proof's claims have data after the object")
	}
	pr := &proof{}
	for _, m := range []struct {
		name     string
		dst      *string
		required bool
		max      int
	}{
		{"jti", &pr.jti, true, maxJTILen},
		{"htm", &pr.htm, true, 32},
		{"htu", &pr.htu, true, maxProofLen},
		{"ath", &pr.ath, false, 128},
		{"nonce", &pr.nonce, false, maxNonceLen},
	} {
		v, ok := all[m.name]
		if !ok {
			if m.required {
				return nil, badProof("the DPoP proof has no " + m.name)
			}
			continue
		}
		s, ok := v.(string)
		if !ok || s == "" || len(s) > m.max {
			return nil, badProof(fmt.Sprintf("the DPoP proof's %s is not a string of 1 to %d bytes", m.name, m.max))
		}
		*m.dst = s
	}
	n, ok := all["iat"].(json.Number)
	if !ok {
		return nil, badProof("the DPoP proof has no iat (a number)")
	}
	f, err := n.Float64()
	if err != nil || f < 0 || f > 1e11 {
		return nil, badProof("the DPoP proof's iat is not a time in seconds")
	}
	pr.iat = time.Unix(int64(f), 0)
	return pr, nil
}

// check verifies the DPoP proofs of request r, which carries tok bound to
// the key with thumbprint jkt (RFC 9449 §4.3 and §7.1). A refusal is a
// *proofError, or errNonce when the proof lacks a valid nonce of ours;
// any other error is the replay cache's (an outage).
func (d *dpopChecker) check(r *http.Request, tok, jkt string) error {
	vals := r.Header.Values("DPoP")
	switch len(vals) {
	case 0:
		return badProof("the request has no DPoP header: a DPoP-bound token needs a proof")
	case 1:
	default:
		return badProof("the request has more than one DPoP header")
	}
	pr, err := parseProof(vals[0], d.algs)
	if err != nil {
		return err
	}
	if pr.htm != r.Method {
		return badProof("the DPoP proof's htm is not the request's method")
	}
	if !d.htuMatches(pr.htu, r) {
		return badProof("the DPoP proof's htu is not this request's URL (" + d.scheme + "://" + d.host + d.prefix + " and the path)")
	}
	now := d.now()
	if pr.iat.After(now.Add(d.leeway)) {
		return badProof("the DPoP proof was made in the future (iat): check the client's clock")
	}
	if now.After(pr.iat.Add(d.lifetime + d.leeway)) {
		return badProof(fmt.Sprintf("the DPoP proof is too old (iat more than %v ago): make one for each request", d.lifetime))
	}
	sum := sha256.Sum256([]byte(tok))
	if pr.ath != base64.RawURLEncoding.EncodeToString(sum[:]) {
		return badProof("the DPoP proof's ath is not the hash of the access token")
	}
	if pr.jkt != jkt {
		return badProof("the DPoP proof is not signed with the key the access token is bound to (cnf.jkt)")
	}
	if d.nonceKey != nil && !d.nonceValid(pr.nonce, now) {
		return errNonce
	}
	// Remembered for as long as the proof would pass the time check.
	ttl := max(pr.iat.Add(d.lifetime+d.leeway).Sub(now), time.Second)
	id := hexSum(pr.jkt + "\x00" + pr.jti)
	var fresh bool
	if kr, ok := d.replay.(keyedReplay); ok {
		fresh, err = kr.rememberFor(pr.jkt, id, ttl)
	} else {
		fresh, err = d.replay.Remember(r.Context(), id, ttl)
	}
	if err != nil {
		return err
	}
	if !fresh {
		return badProof("the DPoP proof was used before (its jti was seen): make one for each request")
	}
	return nil
}

// errNonce: the proof needs a fresh nonce of this server.
var errNonce = errors.New("the DPoP proof lacks a current nonce of this server")

// htuMatches compares a proof's htu with the request's URL: scheme and
// host of PublicURL, its path prefix followed by the path the request
// came with (RequestURI, which http.StripPrefix leaves alone), after
// syntax- and scheme-based normalization (RFC 3986 §6.2.2, §6.2.3: case
// of scheme and host, default port, percent-encoding); query and
// fragment are ignored.
func (d *dpopChecker) htuMatches(htu string, r *http.Request) bool {
	u, err := url.Parse(htu)
	if err != nil || u.User != nil || u.Opaque != "" || !strings.EqualFold(u.Scheme, d.scheme) || canonicalHost(u) != d.host {
		return false
	}
	path := r.URL.Path
	if r.RequestURI != "" {
		ru, err := url.ParseRequestURI(r.RequestURI)
		if err != nil {
			return false
		}
		path = ru.Path
	}
	return cmpPath(u.Path) == cmpPath(d.prefix+path)
}

func cmpPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// newNonce returns a nonce for the time now: the time and a MAC of it
// under NonceKey, so every replica that shares the key accepts it and
// nobody else can make one.
func (d *dpopChecker) newNonce(now time.Time) string {
	var b [8 + 16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(now.Unix()))
	copy(b[8:], d.nonceMAC(b[:8]))
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func (d *dpopChecker) nonceMAC(t []byte) []byte {
	m := hmac.New(sha256.New, d.nonceKey)
	m.Write([]byte("mcpchain DPoP nonce\x00"))
	m.Write(t)
	return m.Sum(nil)[:16]
}

// nonceValid: n is a nonce of ours, made at most nonceLifetime ago.
func (d *dpopChecker) nonceValid(n string, now time.Time) bool {
	b, err := base64.RawURLEncoding.DecodeString(n)
	if err != nil || len(b) != 24 || !hmac.Equal(b[8:], d.nonceMAC(b[:8])) {
		return false
	}
	made := time.Unix(int64(binary.BigEndian.Uint64(b[:8])), 0)
	return !made.After(now.Add(d.leeway)) && !now.After(made.Add(nonceLifetime))
}

// hexSum is the SHA-256 of s in hex: a proof's id in the replay cache.
func hexSum(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// keyedReplay is a ReplayCache that also knows the key (the JWK
// thumbprint) of each proof, so that it can bound what one key holds.
type keyedReplay interface {
	rememberFor(jkt, id string, ttl time.Duration) (bool, error)
}

// memoryReplay is the default ReplayCache: one process's memory, bounded.
// Expired ids are swept every sweepEvery, and when it is full (at most
// once a second); full of live ids, it refuses (an outage, 503) rather
// than forget one. One key may hold at most maxReplayIDsPerKey of the
// ids: a client with a bound token and its key can make proofs as fast
// as it likes, and would otherwise fill the cache, after which every
// client's DPoP requests were refused.
type memoryReplay struct {
	now    func() time.Time
	mu     sync.Mutex
	ids    map[string]replayEntry
	perKey map[string]int // live ids of each key (rememberFor)
	swept  time.Time      // last sweep
}

type replayEntry struct {
	until time.Time
	jkt   string // "" when remembered without its key (Remember)
}

const (
	maxReplayIDs       = 1 << 20
	maxReplayIDsPerKey = maxReplayIDs / 16
	sweepEvery         = 10 * time.Second
)

var errReplayFull = errors.New("the DPoP replay cache is full")

// errKeyQuota is one key's share of the replay cache used up.
var errKeyQuota = fmt.Errorf("this DPoP key made more than %d proofs within a proof's lifetime (the share of one key in the replay cache); slow down", maxReplayIDsPerKey)

func newMemoryReplay(now func() time.Time) *memoryReplay {
	return &memoryReplay{now: now, ids: map[string]replayEntry{}, perKey: map[string]int{}}
}

func (m *memoryReplay) Remember(_ context.Context, id string, ttl time.Duration) (bool, error) {
	return m.rememberFor("", id, ttl)
}

func (m *memoryReplay) rememberFor(jkt, id string, ttl time.Duration) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	if since := now.Sub(m.swept); since >= sweepEvery || ((len(m.ids) >= maxReplayIDs || m.perKey[jkt] >= maxReplayIDsPerKey) && since >= time.Second) {
		for k, e := range m.ids {
			if !now.Before(e.until) {
				m.forget(k, e)
			}
		}
		m.swept = now
	}
	if e, ok := m.ids[id]; ok && now.Before(e.until) {
		return false, nil
	}
	if len(m.ids) >= maxReplayIDs {
		return false, errReplayFull
	}
	if jkt != "" && m.perKey[jkt] >= maxReplayIDsPerKey {
		return false, errKeyQuota
	}
	if e, ok := m.ids[id]; ok {
		m.forget(id, e) // expired, not swept yet
	}
	m.ids[id] = replayEntry{until: now.Add(ttl), jkt: jkt}
	if jkt != "" {
		m.perKey[jkt]++
	}
	return true, nil
}

// forget drops id; m.mu is held.
func (m *memoryReplay) forget(id string, e replayEntry) {
	delete(m.ids, id)
	if e.jkt != "" {
		if m.perKey[e.jkt]--; m.perKey[e.jkt] <= 0 {
			delete(m.perKey, e.jkt)
		}
	}
}
