package multiauth

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAPIKeyComparisonIsConstantTime: the work of a check does not
// depend on the key presented. Every configured hash is compared, with
// subtle.ConstantTimeCompare on full-length SHA-256 sums, whether the
// key matches the first, the last or none; a wall-clock measurement
// would only measure this machine's load, so the test counts the
// comparisons and their lengths instead.
func TestAPIKeyComparisonIsConstantTime(t *testing.T) {
	t.Parallel()
	const n = 5
	var keys []string
	var cfg []APIKey
	for i := range n {
		key, hash, err := NewAPIKey("mcpk_")
		require.NoError(t, err)
		keys = append(keys, key)
		cfg = append(cfg, APIKey{Hash: hash, Name: fmt.Sprint("svc", i)})
	}
	unknown, _, err := NewAPIKey("mcpk_")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		key  string
		ok   bool
	}{
		{"matches the first", keys[0], true},
		{"matches the last", keys[n-1], true},
		{"matches none", unknown, false},
		{"differs in the last character", flip(keys[0]), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, err := NewAPIKeys("mcpk_", cfg...)
			require.NoError(t, err)
			var calls, lengths int
			k.compare = func(x, y []byte) int {
				calls++
				lengths += len(x) + len(y)
				return subtle.ConstantTimeCompare(x, y)
			}
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			r.Header.Set("Authorization", "Bearer "+tc.key)
			_, err = k.VerifyRequest(r)
			assert.Equal(t, tc.ok, err == nil, "%v", err)
			assert.Equal(t, n, calls, "every configured hash is compared, no early exit")
			assert.Equal(t, n*64, lengths, "full SHA-256 sums, never the key's own bytes")
		})
	}
}

// flip changes the last character of a key, keeping its alphabet.
func flip(k string) string {
	if k[len(k)-1] == 'A' {
		return k[:len(k)-1] + "B"
	}
	return k[:len(k)-1] + "A"
}
