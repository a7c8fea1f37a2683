package oauth

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfiguredScopes: Config.Scopes are asked for on top of the scopes
// the server names, each once, and alone when it names none.
func TestConfiguredScopes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		mod    func(*fake)
		scopes []string
		want   string
	}{
		{"added to scopes_supported", func(f *fake) { f.prmScopes = []string{"c"} }, []string{"d", "c"}, "c d"},
		{"added to the challenge's", func(f *fake) { f.headerScope = "a" }, []string{"b"}, "a b"},
		{"alone", nil, []string{"d"}, "d"},
		{"none", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, &fake{prmPath: "/.well-known/oauth-protected-resource/mcp", asMetaPath: "/.well-known/oauth-authorization-server"})
			if tc.mod != nil {
				tc.mod(f)
			}
			resp, body, err := call(t, f, newHandler(f, Config{Scopes: tc.scopes}), "/mcp")
			require.NoError(t, err)
			require.Equal(t, 200, resp.StatusCode, body)
			require.NotEmpty(t, f.authReqs)
			assert.Equal(t, tc.want, f.authReqs[0].Get("scope"))
		})
	}
}
