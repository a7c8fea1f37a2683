package multiauth_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/multiauth"
)

func hashOf(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// TestAPIKeys: a configured key admits its service (the old and the new
// key of a rotation are one caller); every other presentation is
// refused with a description that never holds the key.
func TestAPIKeys(t *testing.T) {
	t.Parallel()
	oldKey, oldHash, err := multiauth.NewAPIKey("svc_")
	require.NoError(t, err)
	newKey, newHash, err := multiauth.NewAPIKey("svc_")
	require.NoError(t, err)
	assert.Len(t, oldKey, len("svc_")+43)
	assert.Equal(t, hashOf(oldKey), oldHash, "the hash is the SHA-256 of the whole key")
	k, err := multiauth.NewAPIKeys("svc_",
		multiauth.APIKey{Hash: oldHash, Name: "billing", Scopes: []string{"read"}, Roles: []string{"service"}},
		multiauth.APIKey{Hash: strings.ToUpper(newHash), Name: "billing", Scopes: []string{"read"}})
	require.NoError(t, err)
	other, _, err := multiauth.NewAPIKey("svc_")
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		headers []string
		owns    bool
		subject string
		err     error
		desc    string
	}{
		{"the key", []string{"Bearer " + oldKey}, true, "apikey:billing", nil, ""},
		{"the rotated key, same caller", []string{"Bearer " + newKey}, true, "apikey:billing", nil, ""},
		{"scheme in lower case", []string{"bearer " + oldKey}, true, "apikey:billing", nil, ""},
		{"no header", nil, false, "", mcp.ErrUnauthorized, ""},
		{"unknown key", []string{"Bearer " + other}, true, "", mcp.ErrInvalidToken, "unknown API key"},
		{"one character short", []string{"Bearer " + oldKey[:len(oldKey)-1]}, true, "", mcp.ErrInvalidToken, "malformed API key"},
		{"one character long", []string{"Bearer " + oldKey + "x"}, true, "", mcp.ErrInvalidToken, "malformed API key"},
		{"outside the alphabet", []string{"Bearer " + oldKey[:len(oldKey)-1] + "+"}, true, "", mcp.ErrInvalidToken, "malformed API key"},
		{"prefix alone", []string{"Bearer svc_"}, true, "", mcp.ErrInvalidToken, "malformed API key"},
		{"another prefix", []string{"Bearer mcpk_" + oldKey[4:]}, false, "", mcp.ErrInvalidToken, "not an API key of this server"},
		{"two headers", []string{"Bearer " + oldKey, "Bearer " + oldKey}, false, "", mcp.ErrInvalidToken, "must be Bearer"},
		{"Basic", []string{"Basic " + oldKey}, false, "", mcp.ErrInvalidToken, "must be Bearer"},
		{"two spaces", []string{"Bearer  " + oldKey}, false, "", mcp.ErrInvalidToken, "not an API key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			for _, h := range tc.headers {
				r.Header.Add("Authorization", h)
			}
			assert.Equal(t, tc.owns, k.Owns(r))
			auth, err := k.VerifyRequest(r)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Nil(t, auth)
				var ae *mcp.AuthError
				if tc.desc != "" {
					require.ErrorAs(t, err, &ae)
					assert.Contains(t, ae.Description, tc.desc)
				}
				assert.NotContains(t, err.Error(), oldKey[4:10], "the key is never echoed")
				return
			}
			require.NoError(t, err)
			s := auth.(*multiauth.APIKeySession)
			assert.Equal(t, tc.subject, s.Subject())
			assert.True(t, s.HasScope("read"))
		})
	}
}

// TestAPIKeySubjectsAreTheirOwn: a key whose name is another verifier's
// subject (a resource-server user "https://id.example|alice", a proxy
// user "generic:alice") is still another caller under the one identity
// rule.
func TestAPIKeySubjectsAreTheirOwn(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"https://id.example|alice", "generic:alice"} {
		key, hash, err := multiauth.NewAPIKey("mcpk_")
		require.NoError(t, err)
		k, err := multiauth.NewAPIKeys("mcpk_", multiauth.APIKey{Hash: hash, Name: name})
		require.NoError(t, err)
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+key)
		auth, err := k.VerifyRequest(r)
		require.NoError(t, err)
		assert.False(t, identity.Same(auth, userWithSubject(name)), "a key named %q is not that user", name)
		assert.Equal(t, "apikey:"+name, auth.(mcp.Subject).Subject())
	}
}

type userWithSubject string

func (u userWithSubject) Subject() string { return string(u) }

func TestNewAPIKeysRefuses(t *testing.T) {
	t.Parallel()
	_, good, err := multiauth.NewAPIKey("mcpk_")
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		prefix string
		keys   []multiauth.APIKey
		err    string
	}{
		{"empty prefix", "", nil, "prefix"},
		{"short prefix", "ab", nil, "prefix"},
		{"JWT-like prefix", "eyJ_", nil, "eyJ"},
		{"prefix with a space", "mc k_", nil, "prefix"},
		{"hash not hex", "mcpk_", []multiauth.APIKey{{Hash: strings.Repeat("z", 64), Name: "a"}}, "64 hexadecimal"},
		{"hash too short", "mcpk_", []multiauth.APIKey{{Hash: good[:62], Name: "a"}}, "64 hexadecimal"},
		{"the key instead of its hash", "mcpk_", []multiauth.APIKey{{Hash: "mcpk_abc", Name: "a"}}, "64 hexadecimal"},
		{"no name", "mcpk_", []multiauth.APIKey{{Hash: good}}, "Name"},
		{"name with a space", "mcpk_", []multiauth.APIKey{{Hash: good, Name: "a b"}}, "Name"},
		{"one hash twice", "mcpk_", []multiauth.APIKey{{Hash: good, Name: "a"}, {Hash: good, Name: "b"}}, "same hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := multiauth.NewAPIKeys(tc.prefix, tc.keys...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
	_, _, err = multiauth.NewAPIKey("x")
	assert.Error(t, err)
}

// FuzzAPIKeyHeader: whatever the Authorization header, VerifyRequest
// neither panics nor admits anything but the one configured key.
func FuzzAPIKeyHeader(f *testing.F) {
	key, hash, err := multiauth.NewAPIKey("mcpk_")
	require.NoError(f, err)
	k, err := multiauth.NewAPIKeys("mcpk_", multiauth.APIKey{Hash: hash, Name: "svc"})
	require.NoError(f, err)
	for _, s := range []string{"Bearer " + key, "Bearer mcpk_", "bearer " + key + " ", "Bearer \x00", "Bearer"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Authorization", h)
		_ = k.Owns(r)
		auth, err := k.VerifyRequest(r)
		if err == nil {
			scheme, tok, _ := strings.Cut(h, " ")
			if !strings.EqualFold(scheme, "bearer") || tok != key {
				t.Fatalf("admitted %q", h)
			}
			if auth.(*multiauth.APIKeySession).Name != "svc" {
				t.Fatalf("admitted as %v", auth)
			}
		}
	})
}
