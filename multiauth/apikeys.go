package multiauth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
)

// keyBodyLen is the length of a key after its prefix: 32 random bytes in
// unpadded base64url.
const keyBodyLen = 43

// APIKey is one service's API key as the configuration holds it: its
// hash, never the key itself, so a leaked configuration (a file, an
// environment dump, a database) holds no usable key.
type APIKey struct {
	// Hash is the hexadecimal SHA-256 of the whole key, prefix included:
	// what `printf %s "$KEY" | sha256sum` prints, and the second result
	// of [NewAPIKey]. Required.
	Hash string
	// Name names the service the key belongs to: its identity. The
	// session's subject is "apikey:" followed by Name, so a key can never
	// pass for a user of an identity provider. Two keys may share a name
	// (the old and the new key while a rotation is under way): they are
	// one caller. 1 to 128 printable ASCII characters, no space.
	// Required.
	Name string
	// Scopes and Roles are what the key grants, for access.Scopes and
	// access.Roles.
	Scopes []string
	Roles  []string
}

// APIKeys verifies the API keys of services, sent as "Authorization:
// Bearer <key>". A key is its prefix followed by 43 characters of
// base64url (256 random bits, made by [NewAPIKey]); the verifier holds
// only the SHA-256 of each key. A presented key is hashed and compared
// with every configured hash in constant time, without stopping at a
// match, so the time of a check depends on neither the key nor which
// key matched. SHA-256 rather than a slow password hash: a key has 256
// bits of entropy, which no hash speed makes guessable, and a slow hash
// would let anyone cost the server a CPU-second per request.
//
// It implements mcp.AuthProvider (alone it is a whole mcp.Options.Auth)
// and [Owner]: in a [New] list it owns every Bearer token that starts
// with its prefix, so a key is never shown to another verifier (an
// introspection endpoint) and a malformed or unknown one is refused here.
// Sessions are *[APIKeySession]. Safe for concurrent use.
type APIKeys struct {
	prefix  string
	keys    []keyEntry
	compare func(x, y []byte) int // subtle.ConstantTimeCompare; a test counts its calls
}

type keyEntry struct {
	hash    [sha256.Size]byte
	session APIKeySession
}

// NewAPIKeys returns the verifier of keys, which all start with prefix.
// The prefix (such as "mcpk_") tells keys apart from other tokens, and
// lets secret scanners find a leaked key: 3 to 32 characters of
// A-Z, a-z, 0-9, '_' and '-', not starting with "eyJ" (every JWT does).
// It fails on a bad prefix, a hash that is not 64 hexadecimal digits,
// two keys with one hash, or a bad Name.
func NewAPIKeys(prefix string, keys ...APIKey) (*APIKeys, error) {
	if err := checkPrefix(prefix); err != nil {
		return nil, err
	}
	k := &APIKeys{prefix: prefix, compare: subtle.ConstantTimeCompare}
	for i, key := range keys {
		h, err := hex.DecodeString(key.Hash)
		if err != nil || len(h) != sha256.Size {
			return nil, fmt.Errorf("multiauth: key %d (%q): Hash must be the 64 hexadecimal digits of a SHA-256", i+1, key.Name)
		}
		if err := checkName(key.Name); err != nil {
			return nil, fmt.Errorf("multiauth: key %d: %w", i+1, err)
		}
		e := keyEntry{session: APIKeySession{Name: key.Name, Scopes: slices.Clone(key.Scopes), Roles: slices.Clone(key.Roles)}}
		copy(e.hash[:], h)
		if slices.ContainsFunc(k.keys, func(x keyEntry) bool { return x.hash == e.hash }) {
			return nil, fmt.Errorf("multiauth: key %d (%q): another key has the same hash", i+1, key.Name)
		}
		k.keys = append(k.keys, e)
	}
	return k, nil
}

func checkPrefix(p string) error {
	if len(p) < 3 || len(p) > 32 || strings.HasPrefix(p, "eyJ") || strings.IndexFunc(p, func(c rune) bool { return !b64url(c) }) >= 0 {
		return fmt.Errorf("multiauth: API key prefix %q: want 3 to 32 characters of A-Z, a-z, 0-9, '_' and '-', not starting with eyJ (such as mcpk_)", p)
	}
	return nil
}

func checkName(n string) error {
	if n == "" || len(n) > 128 || strings.IndexFunc(n, func(c rune) bool { return c <= ' ' || c > '~' }) >= 0 {
		return fmt.Errorf("API key Name %q: want 1 to 128 printable ASCII characters without spaces (the service's name)", n)
	}
	return nil
}

func b64url(c rune) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// NewAPIKey makes a key: prefix followed by 256 random bits in base64url.
// Give the key to the service once and keep only its hash (an [APIKey]'s
// Hash).
func NewAPIKey(prefix string) (key, hash string, err error) {
	if err := checkPrefix(prefix); err != nil {
		return "", "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	key = prefix + base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(key))
	return key, hex.EncodeToString(sum[:]), nil
}

// bearerToken returns the token of the one Authorization header when it
// is "Bearer <token>" (the scheme in any case).
func bearerToken(r *http.Request) (string, bool) {
	vals := r.Header.Values("Authorization")
	if len(vals) != 1 {
		return "", false
	}
	scheme, tok, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" {
		return "", false
	}
	return tok, true
}

// Owns implements [Owner]: the request's bearer token starts with the
// keys' prefix.
func (k *APIKeys) Owns(r *http.Request) bool {
	tok, ok := bearerToken(r)
	return ok && strings.HasPrefix(tok, k.prefix)
}

// VerifyRequest implements mcp.AuthProvider: it returns the
// *[APIKeySession] of the request's key. No Authorization header is
// mcp.ErrUnauthorized (401); a header that is not "Bearer <key>", a key
// without the prefix, of the wrong length or alphabet, or one that
// matches no configured hash is an *mcp.AuthError wrapping
// mcp.ErrInvalidToken. The key is never logged or echoed.
func (k *APIKeys) VerifyRequest(r *http.Request) (any, error) {
	if len(r.Header.Values("Authorization")) == 0 {
		return nil, fmt.Errorf("%w: no API key", mcp.ErrUnauthorized)
	}
	tok, ok := bearerToken(r)
	switch {
	case !ok:
		return nil, refuse("the Authorization header must be Bearer followed by one API key", "malformed Authorization header")
	case !strings.HasPrefix(tok, k.prefix):
		return nil, refuse("the credentials are not an API key of this server", "no API key prefix")
	case len(tok) != len(k.prefix)+keyBodyLen || strings.IndexFunc(tok[len(k.prefix):], func(c rune) bool { return !b64url(c) }) >= 0:
		return nil, refuse(fmt.Sprintf("malformed API key: want the prefix followed by %d characters of base64url", keyBodyLen),
			fmt.Sprintf("API key of %d bytes or outside the alphabet", len(tok)))
	}
	sum := sha256.Sum256([]byte(tok))
	match := -1
	for i := range k.keys {
		match = subtle.ConstantTimeSelect(k.compare(sum[:], k.keys[i].hash[:]), i, match)
	}
	if match < 0 {
		return nil, refuse("unknown API key", "no configured key has this hash")
	}
	s := k.keys[match].session
	s.Scopes, s.Roles = slices.Clone(s.Scopes), slices.Clone(s.Roles)
	return &s, nil
}

func refuse(desc, why string) error {
	return &mcp.AuthError{Err: fmt.Errorf("%w: %s", mcp.ErrInvalidToken, why), Description: desc}
}

// Mount implements mcp.AuthProvider: API keys need no route.
func (*APIKeys) Mount(*http.ServeMux) {}

// APIKeySession is the auth data of a caller admitted by [APIKeys]: the
// service the key names, and what the key grants.
type APIKeySession struct {
	// Name is the key's APIKey.Name.
	Name string
	// Scopes and Roles are the key's.
	Scopes []string
	Roles  []string
}

// Subject implements mcp.Subject: "apikey:" and the key's name, a
// namespace no identity provider's subject is in, so a service's
// sessions, tasks and rate-limit bucket are its own.
func (s *APIKeySession) Subject() string { return "apikey:" + s.Name }

// HasScope implements access.ScopeChecker, for access.Scopes.
func (s *APIKeySession) HasScope(scope string) bool {
	return s != nil && slices.Contains(s.Scopes, scope)
}

// HasRole implements access.RoleChecker, for access.Roles.
func (s *APIKeySession) HasRole(role string) bool { return s != nil && slices.Contains(s.Roles, role) }

var (
	_ Owner               = (*APIKeys)(nil)
	_ mcp.Subject         = (*APIKeySession)(nil)
	_ access.RoleChecker  = (*APIKeySession)(nil)
	_ access.ScopeChecker = (*APIKeySession)(nil)
)
