package client_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

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

// TestHTTPOwnConnectionPool: a transport made without a client of the
// caller's keeps its connections out of http.DefaultTransport, so code
// elsewhere that drops the default transport's idle connections (as
// httptest.Server.Close does) cannot take one from under it, and closing
// the connection closes them. Not parallel: it drops the default
// transport's idle connections.
func TestHTTPOwnConnectionPool(t *testing.T) {
	for _, tc := range []struct {
		name   string
		legacy bool
	}{{"HTTP", false}, {"legacy SSE", true}} {
		t.Run(tc.name, func(t *testing.T) {
			h := mcphttp.New(newServer(t), &mcphttp.Options{LegacySSE: tc.legacy})
			ts := httptest.NewUnstartedServer(mcphttp.NewMux(h, nil))
			var opened, closed atomic.Int64
			ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				switch s {
				case http.StateNew:
					opened.Add(1)
				case http.StateClosed, http.StateHijacked:
					closed.Add(1)
				}
			}
			ts.Start()
			t.Cleanup(func() { ts.Close(); _ = h.Close() })
			transport := client.HTTP(ts.URL+"/mcp", &client.HTTPOptions{NoListen: true})
			if tc.legacy {
				transport = client.LegacySSE(ts.URL+mcphttp.LegacySSEPath, nil)
			}
			ctx := t.Context()
			c, err := client.Connect(ctx, transport, &client.Options{ProtocolVersion: mcp.Version20251125})
			require.NoError(t, err)
			_, err = c.ListTools(ctx)
			require.NoError(t, err)
			before := opened.Load()
			http.DefaultTransport.(*http.Transport).CloseIdleConnections()
			_, err = c.ListTools(ctx)
			require.NoError(t, err)
			assert.Equal(t, before, opened.Load(), "the next request reuses the client's idle connection")
			require.NoError(t, c.Close())
			assert.Eventually(t, func() bool { return closed.Load() == opened.Load() },
				5*time.Second, 10*time.Millisecond, "Close closes the client's connections")
		})
	}
}
