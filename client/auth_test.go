package client_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// stamp is an Authorizer that puts a header on every request to the
// server and counts them.
type stamp struct {
	server string
	n      atomic.Int64
}

func (s *stamp) Wrap(serverURL string, base http.RoundTripper) http.RoundTripper {
	s.server = serverURL
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		s.n.Add(1)
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer stamped")
		return base.RoundTrip(r)
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestHTTPOptionsAuth: every request of the HTTP transports, at each
// revision and over the deprecated HTTP+SSE transport, goes through
// HTTPOptions.Auth (the server refuses any request without its header),
// and the caller's http.Client is left as it was.
func TestHTTPOptionsAuth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		version mcp.Version
		legacy  bool
	}{
		{"HTTP " + string(mcp.Version20251125), mcp.Version20251125, false},
		{"HTTP " + string(mcp.Version20260728), mcp.Version20260728, false},
		{"legacy SSE", mcp.Version20251125, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := mcphttp.New(newServer(t), &mcphttp.Options{LegacySSE: tc.legacy})
			mux := mcphttp.NewMux(h, nil)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer stamped" {
					http.Error(w, "no token", http.StatusUnauthorized)
					return
				}
				mux.ServeHTTP(w, r)
			}))
			t.Cleanup(func() { ts.Close(); _ = h.Close() })
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			hc := &http.Client{Transport: tr}
			auth := &stamp{}
			opts := &client.HTTPOptions{Client: hc, Auth: auth}
			url, transport := ts.URL+"/mcp", client.HTTP(ts.URL+"/mcp", opts)
			if tc.legacy {
				url, transport = ts.URL+mcphttp.LegacySSEPath, client.LegacySSE(ts.URL+mcphttp.LegacySSEPath, opts)
			}
			c := connect(t, transport, &client.Options{ProtocolVersion: tc.version})
			_, err := c.ListTools(t.Context())
			require.NoError(t, err)
			assert.Equal(t, url, auth.server)
			assert.GreaterOrEqual(t, auth.n.Load(), int64(2))
			assert.Same(t, tr, hc.Transport, "the caller's client is not changed")
		})
	}
}
