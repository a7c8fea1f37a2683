package openapi

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGuardRedirects: what counts as the base URL's origin (scheme, host
// and port, a default port the same as none, the host's case aside), and
// what a redirect elsewhere loses when it is allowed.
func TestGuardRedirects(t *testing.T) {
	t.Parallel()
	base, err := url.Parse("https://API.example.com/v1")
	require.NoError(t, err)
	for _, tc := range []struct {
		to   string
		same bool
	}{
		{"https://api.example.com/v2/x", true},
		{"https://api.example.com:443/x", true},
		{"HTTPS://api.EXAMPLE.com/x", true},
		{"https://user:pw@api.example.com/x", true},
		{"http://api.example.com/x", false}, // a downgrade is another origin
		{"https://api.example.com:8443/x", false},
		{"https://api.example.com.evil.example/x", false},
		{"https://169.254.169.254/latest/meta-data", false},
		{"http://[::1]:80/x", false},
	} {
		for _, allow := range []bool{false, true} {
			c := guardRedirects(nil, base, allow)
			names := []string{"X-Api-Key"}
			req, err := http.NewRequestWithContext(context.WithValue(context.Background(), operatorHeadersKey{}, names), "GET", tc.to, nil)
			require.NoError(t, err)
			req.Header.Set("X-Api-Key", "secret")
			req.Header.Set("Accept", "application/json")
			via := []*http.Request{{URL: base}}
			err = c.CheckRedirect(req, via)
			switch {
			case tc.same:
				assert.NoError(t, err, tc.to)
				assert.Equal(t, "secret", req.Header.Get("X-Api-Key"), tc.to)
			case !allow:
				var re *redirectError
				assert.ErrorAs(t, err, &re, tc.to)
			default:
				assert.NoError(t, err, tc.to)
				assert.Empty(t, req.Header.Get("X-Api-Key"), "%s: the operator's header is dropped", tc.to)
				assert.Equal(t, "application/json", req.Header.Get("Accept"), "%s: other headers stay", tc.to)
			}
		}
	}
	// net/http's default limit stands without a CheckRedirect of the
	// operator's.
	req, _ := http.NewRequest("GET", "https://api.example.com/x", nil)
	assert.ErrorContains(t, guardRedirects(nil, base, false).CheckRedirect(req, make([]*http.Request, 10)), "10 redirects")
}
