package cache_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/cache"
)

// harness is a server behind the cache, reached in process or over HTTP.
type harness struct {
	srv  *mcp.Server
	runs *atomic.Int64
	h    *mcphttp.Handler
	mw   func(http.Handler) http.Handler
}

func newHarness(t *testing.T, opts cache.Options, hopts *mcphttp.Options) *harness {
	t.Helper()
	var runs atomic.Int64
	srv := testServer(&runs)
	h := mcphttp.New(srv, hopts)
	t.Cleanup(func() { _ = h.Close() })
	return &harness{srv: srv, runs: &runs, h: h, mw: cache.New(srv, opts)}
}

// client connects in process as a caller with auth data auth.
func (hs *harness) client(t *testing.T, auth any) *client.Client {
	return connect(t, client.InProcess(authAs(auth)(hs.mw(hs.h)), nil))
}

// httpClient connects over HTTP as a caller with auth data auth.
func (hs *harness) httpClient(t *testing.T, auth any) *client.Client {
	ts := httptest.NewServer(authAs(auth)(hs.mw(hs.h)))
	t.Cleanup(ts.Close)
	return connect(t, client.HTTP(ts.URL, nil))
}

// A repeated call is answered from the cache: the same tool, arguments
// (however they are spelled) and _meta (besides the progress token and
// the trace context); anything else runs the tool.
func TestCacheAnswersRepeats(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, cache.Options{}, nil)
	c := hs.client(t, user("ada"))
	first := call(t, c, "whoami", "x", nil)
	assert.Equal(t, `ada asked "x", run 1`, first)
	assert.Equal(t, first, call(t, c, "whoami", "x", nil), "from the cache")
	assert.Equal(t, first, call(t, c, "whoami", "x", map[string]any{"progressToken": 7, "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}))
	var raw mcp.ContentResult
	require.NoError(t, c.Call(t.Context(), "tools/call", json.RawMessage(`{ "arguments" : { "q" : "\u0078" }, "name":"whoami"}`), &raw))
	assert.Equal(t, first, raw.Text(), "another spelling of the same arguments")
	assert.Equal(t, int64(1), hs.runs.Load())

	assert.Equal(t, `ada asked "y", run 2`, call(t, c, "whoami", "y", nil), "other arguments")
	assert.Equal(t, `ada asked "x", run 3`, call(t, c, "whoami", "x", map[string]any{"tenant": "acme"}), "other _meta")
	assert.Equal(t, `ada asked "x", run 3`, call(t, c, "whoami", "x", map[string]any{"tenant": "acme"}))
}

// Only read-only tools and those Options.Tools names are cached; an
// idempotent one is not.
func TestCacheWhichTools(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, cache.Options{Tools: []string{"optin"}}, nil)
	c := hs.client(t, user("ada"))
	for _, tt := range []struct {
		tool   string
		cached bool
	}{{"whoami", true}, {"optin", true}, {"write", false}, {"idempotent", false}} {
		first := call(t, c, tt.tool, "q", nil)
		second := call(t, c, tt.tool, "q", nil)
		assert.Equal(t, tt.cached, first == second, "%s: %q then %q", tt.tool, first, second)
	}
}

// An answer never crosses from one caller to another: a subject shares
// its answers across its sessions; a caller without a subject (anonymous
// or opaque auth data) keeps them in its session; with neither a subject
// nor a session nothing is cached.
func TestCacheNeverCrossesIdentities(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		a, b      any  // two callers, each in a session of its own
		stateless bool // over stateless HTTP: no session
		shared    bool // b gets a's answer
		cached    bool // a's second call is answered from the cache
	}{
		{name: "two subjects", a: user("ada"), b: user("bob"), cached: true},
		{name: "one subject, two sessions", a: user("ada"), b: user("ada"), shared: true, cached: true},
		{name: "anonymous, two sessions", cached: true},
		{name: "opaque, two sessions", a: opaque{"t1"}, b: opaque{"t1"}, cached: true},
		{name: "opaque and a subject", a: opaque{"ada"}, b: user("ada"), cached: true},
		{name: "anonymous, stateless", stateless: true},
		{name: "a subject, stateless", a: user("ada"), b: user("ada"), stateless: true, shared: true, cached: true},
		{name: "two subjects, stateless", a: user("ada"), b: user("bob"), stateless: true, cached: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var hs *harness
			var a, b *client.Client
			if tt.stateless {
				hs = newHarness(t, cache.Options{}, &mcphttp.Options{Stateless: true})
				a, b = hs.httpClient(t, tt.a), hs.httpClient(t, tt.b)
			} else {
				hs = newHarness(t, cache.Options{}, nil)
				a, b = hs.client(t, tt.a), hs.client(t, tt.b)
			}
			first := call(t, a, "whoami", "q", nil)
			again := call(t, a, "whoami", "q", nil)
			assert.Equal(t, tt.cached, first == again, "%q then %q", first, again)
			other := call(t, b, "whoami", "q", nil)
			assert.Equal(t, tt.shared, other == first, "a: %q, b: %q", first, other)
			if !tt.shared {
				assert.NotEqual(t, first, other)
			}
		})
	}
}

// isError results and JSON-RPC errors are not cached.
func TestCacheErrorsNotCached(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, cache.Options{}, nil)
	c := hs.client(t, user("ada"))
	res, err := c.CallTool(t.Context(), "flaky", map[string]string{"q": "q"}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, `ada asked "q", run 2`, call(t, c, "flaky", "q", nil), "the failure was not kept")
	assert.Equal(t, `ada asked "q", run 2`, call(t, c, "flaky", "q", nil))
	_, err = c.CallTool(t.Context(), "nothing", nil, nil)
	assert.ErrorContains(t, err, "Unknown tool")
}

// When the server's tools change, every answer is dropped; a tool the
// caller may no longer see is unknown, never answered from the cache.
func TestCacheInvalidatedByToolChanges(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, srv *mcp.Server)
		gone   bool
	}{
		{"a tool added", func(t *testing.T, srv *mcp.Server) {
			mcp.AddTool(srv, mcp.Tool{Name: "new"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
		}, false},
		{"another tool removed", func(t *testing.T, srv *mcp.Server) { srv.Registry().Remove(access.KindTool, "write") }, false},
		{"the tool disabled", func(t *testing.T, srv *mcp.Server) {
			require.NoError(t, srv.Registry().Disable(mcp.Match{Names: []string{"whoami"}}))
		}, true},
		{"a mounted server's tool added", func(t *testing.T, srv *mcp.Server) {
			child := mcp.NewServer(mcp.Options{Name: "child", Version: "1.0.0", Logger: quiet})
			srv.Mount("c", child, nil)
			mcp.AddTool(child, mcp.Tool{Name: "x"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hs := newHarness(t, cache.Options{}, nil)
			c := hs.client(t, user("ada"))
			first := call(t, c, "whoami", "q", nil)
			require.Equal(t, first, call(t, c, "whoami", "q", nil))
			tt.change(t, hs.srv)
			if tt.gone {
				_, err := c.CallTool(t.Context(), "whoami", map[string]string{"q": "q"}, nil)
				assert.ErrorContains(t, err, "Unknown tool")
				return
			}
			assert.Equal(t, `ada asked "q", run 2`, call(t, c, "whoami", "q", nil))
		})
	}
}

// Options.Vary keeps apart requests the tools answer differently.
func TestCacheVary(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, cache.Options{Vary: func(r *http.Request) string { return r.Header.Get("X-Tenant") }}, nil)
	tenant := func(name string) *client.Client {
		return connect(t, client.InProcess(authAs(user("ada"))(hs.mw(hs.h)), http.Header{"X-Tenant": {name}}))
	}
	acme, globex := tenant("acme"), tenant("globex")
	first := call(t, acme, "whoami", "q", nil)
	assert.Equal(t, first, call(t, acme, "whoami", "q", nil))
	assert.NotEqual(t, first, call(t, globex, "whoami", "q", nil))
}

// The version a caller gets is part of the key: callers whose version
// filters differ never share an answer, and a call that names a version
// is cached under it.
func TestCacheVersions(t *testing.T) {
	t.Parallel()
	hs := newHarness(t, cache.Options{}, nil)
	old := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Old") != "" {
				r = r.WithContext(mcp.WithVersionFilter(r.Context(), func(v string) bool { return mcp.CompareVersions(v, "2") < 0 }))
			}
			next.ServeHTTP(w, r)
		})
	}
	chain := authAs(user("ada"))(old(hs.mw(hs.h)))
	latest := connect(t, client.InProcess(chain, nil))
	legacy := connect(t, client.InProcess(chain, http.Header{"X-Old": {"1"}}))
	v2 := call(t, latest, "versioned", "q", nil)
	assert.True(t, strings.HasPrefix(v2, "v2 "), v2)
	v1 := call(t, legacy, "versioned", "q", nil)
	assert.True(t, strings.HasPrefix(v1, "v1 "), v1)
	assert.Equal(t, v1, call(t, legacy, "versioned", "q", nil))
	asked := call(t, latest, "versioned", "q", map[string]any{"mcpchain/version": "1.0"})
	assert.True(t, strings.HasPrefix(asked, "v1 "), asked)
	assert.NotEqual(t, v1, asked, "another default version, not cached under it")
	assert.Equal(t, v2, call(t, latest, "versioned", "q", nil))
}
