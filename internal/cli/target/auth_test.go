package target

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// stampAuth is a client.Authorizer that adds a bearer token and counts
// the requests it saw.
type stampAuth struct{ seen atomic.Int32 }

func (a *stampAuth) Wrap(_ string, base http.RoundTripper) http.RoundTripper {
	return roundTrip(func(r *http.Request) (*http.Response, error) {
		a.seen.Add(1)
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer stamped")
		return base.RoundTrip(r)
	})
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSpecAuth: Spec.Auth (what --oauth sets) authorizes every request
// to an http(s) target; without it the server refuses the connection.
func TestSpecAuth(t *testing.T) {
	srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0"})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer stamped" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	ctx := context.Background()

	_, err := Spec{URL: ts.URL}.Connect(ctx, nil)
	require.Error(t, err, "without Auth the server refuses")

	a := &stampAuth{}
	c, err := Spec{URL: ts.URL, Auth: a}.Connect(ctx, nil)
	require.NoError(t, err)
	_, err = c.ListTools(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Close())
	require.GreaterOrEqual(t, a.seen.Load(), int32(2), "initialize and tools/list went through Auth")
}
