package openapi_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/openapi"
)

const redirectSpec = `openapi: 3.0.3
info: {title: redirects, version: "1"}
paths:
  /thing:
    get:
      operationId: thing
      parameters:
        - {name: to, in: query, required: true, schema: {type: string}}
        - {name: code, in: query, required: true, schema: {type: integer}}
      responses:
        "200": {description: ok}
`

// recorder is an HTTP server that records the headers of each request.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newRecorder(t *testing.T, h http.HandlerFunc) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Clone())
		r.mu.Unlock()
		h(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.seen...)
}

// operatorHeaders are what Options.Headers adds: the operator's API key.
func operatorHeaders(context.Context, *mcp.Context) http.Header {
	return http.Header{"X-Api-Key": {"operator-secret"}, "Authorization": {"Bearer operator-token"}}
}

// redirectAPI is an API at one origin whose /thing redirects to the
// query's "to" with the status "code", and /final answers; other is
// another origin that answers everything.
func redirectAPI(t *testing.T) (api, other *recorder) {
	other = newRecorder(t, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("other")) })
	api = newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/final" {
			w.Write([]byte("final"))
			return
		}
		code := 302
		if r.URL.Query().Get("code") == "307" {
			code = 307
		}
		to := r.URL.Query().Get("to")
		if strings.HasPrefix(to, "/") {
			to = "http://" + r.Host + to
		}
		http.Redirect(w, r, to, code)
	})
	return api, other
}

func redirectSession(t *testing.T, opts openapi.Options) *mcptest.Session {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "redirects", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	opts.Headers = operatorHeaders
	require.NoError(t, openapi.Register(srv, []byte(redirectSpec), opts))
	return mcptest.NewSession(t, srv, nil)
}

// TestRedirectCrossOriginRefused: a redirect from the
// API to another origin (another host, or an internal address: an SSRF
// by redirect) is not followed by default, whatever client the operator
// gave, and the other origin sees no request, so none of the operator's
// headers; a redirect within the API's origin is followed with them.
func TestRedirectCrossOriginRefused(t *testing.T) {
	t.Parallel()
	var theirs int
	var mu sync.Mutex
	clients := map[string]func() *http.Client{
		"default": func() *http.Client { return nil },
		"own client": func() *http.Client {
			return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
				mu.Lock()
				theirs++
				mu.Unlock()
				return nil
			}}
		},
	}
	for name, hc := range clients {
		for _, code := range []int{302, 307} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				api, other := redirectAPI(t)
				s := redirectSession(t, openapi.Options{BaseURL: api.URL, Client: hc()})

				r := s.CallTool("thing", map[string]any{"to": other.URL + "/steal?x=1", "code": code}, nil)
				require.True(t, r.IsError, text(t, r))
				require.Contains(t, text(t, r), "redirected to another origin ("+other.URL+")")
				require.NotContains(t, text(t, r), "steal", "the redirect's path and query are not echoed")
				require.Empty(t, other.requests(), "the other origin got no request")

				r = s.CallTool("thing", map[string]any{"to": "/final", "code": code}, nil)
				require.False(t, r.IsError, text(t, r))
				require.Equal(t, "final", text(t, r))
				seen := api.requests()
				require.Equal(t, "operator-secret", seen[len(seen)-1].Get("X-Api-Key"), "same origin: the operator's headers go on")
			})
		}
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		require.Equal(t, 2, theirs, "the operator's CheckRedirect still runs, for the same-origin redirects")
	})
}

// TestRedirectAllowedWithoutHeaders: with
// Options.AllowCrossOriginRedirects the call follows a redirect to
// another origin, but the headers of Options.Headers (an API key, an
// Authorization that net/http would keep for the same host on another
// port) stay with the API's origin.
func TestRedirectAllowedWithoutHeaders(t *testing.T) {
	t.Parallel()
	for _, code := range []int{302, 307} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			t.Parallel()
			api, other := redirectAPI(t)
			s := redirectSession(t, openapi.Options{BaseURL: api.URL, AllowCrossOriginRedirects: true})
			r := s.CallTool("thing", map[string]any{"to": other.URL + "/x", "code": code}, nil)
			require.False(t, r.IsError, text(t, r))
			require.Equal(t, "other", text(t, r))
			seen := other.requests()
			require.Len(t, seen, 1)
			require.Empty(t, seen[0].Get("X-Api-Key"))
			require.Empty(t, seen[0].Get("Authorization"))
			require.Equal(t, "operator-secret", api.requests()[0].Get("X-Api-Key"), "the API itself got them")
		})
	}
}
