package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRev20260728Results(t *testing.T) {
	ts, _ := newRev20260728Server(t, nil, nil)
	tests := []struct {
		name    string
		body    string
		header  []string
		cached  bool
		members []string
	}{
		{"server/discover", rev20260728Body("server/discover", ""), nil, true, []string{"supportedVersions", "capabilities"}},
		{"tools/list", rev20260728Body("tools/list", ""), nil, true, []string{"tools"}},
		{"prompts/list", rev20260728Body("prompts/list", ""), nil, true, []string{"prompts"}},
		{"resources/list", rev20260728Body("resources/list", ""), nil, true, []string{"resources"}},
		{"resources/templates/list", rev20260728Body("resources/templates/list", ""), nil, true, []string{"resourceTemplates"}},
		{"resources/read", rev20260728Body("resources/read", `"uri":"mem://hello"`), []string{"Mcp-Name", "mem://hello"}, true, []string{"contents"}},
		{"prompts/get", rev20260728Body("prompts/get", `"name":"greet","arguments":{"name":"Ada"}`), []string{"Mcp-Name", "greet"}, false, []string{"messages"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, msgs := rev20260728Post(t, ts, tt.body, tt.header...)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Len(t, msgs, 1)
			require.Nil(t, msgs[0].Error)
			var res map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(msgs[0].Result, &res))
			assert.JSONEq(t, `"complete"`, string(res["resultType"]))
			assert.JSONEq(t, `{"io.modelcontextprotocol/serverInfo":{"name":"mcphttp-test","version":"1.0.0"}}`, string(res["_meta"]))
			for _, m := range tt.members {
				assert.Contains(t, res, m)
			}
			if tt.cached {
				assert.JSONEq(t, `0`, string(res["ttlMs"]))
				assert.JSONEq(t, `"public"`, string(res["cacheScope"]))
			} else {
				assert.NotContains(t, res, "ttlMs")
			}
		})
	}
}

// cacheServer is wiretest.CacheServer with the list hints cache; add
// registers more, and wrap, when set, is middleware around the engine.
type cacheServer struct {
	cache *mcp.CacheOptions
	add   func(srv *mcp.Server)
	wrap  func(http.Handler) http.Handler
}

func (cs cacheServer) start(t *testing.T) *httptest.Server {
	t.Helper()
	srv := wiretest.CacheServer(cs.cache)
	if cs.add != nil {
		cs.add(srv)
	}
	engine := mcphttp.New(srv, nil)
	var h http.Handler = engine
	if cs.wrap != nil {
		h = cs.wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = engine.Close() })
	return ts
}

// cacheReq is one cacheable request: its method, its params (without
// _meta) and its Mcp-Name.
type cacheReq struct{ method, params, name string }

var (
	toolsList     = cacheReq{"tools/list", "", ""}
	resourcesList = cacheReq{"resources/list", "", ""}
	templatesList = cacheReq{"resources/templates/list", "", ""}
	promptsList   = cacheReq{"prompts/list", "", ""}
	discover      = cacheReq{"server/discover", "", ""}
)

func read(uri string) cacheReq { return cacheReq{"resources/read", `"uri":` + strconv.Quote(uri), uri} }

// hint is what a result says of its caching: ttlMs and cacheScope as
// sent, "" for a member that is absent.
type hint struct{ ttl, scope string }

// members returns the caching members of a result.
func members(t *testing.T, m msg) hint {
	t.Helper()
	require.Nil(t, m.Error, "%s", m.Result)
	var res map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(m.Result, &res))
	var scope string
	if raw, ok := res["cacheScope"]; ok {
		require.NoError(t, json.Unmarshal(raw, &scope))
	}
	return hint{string(res["ttlMs"]), scope}
}

// rev20260728 sends q at 2026-07-28, as user ("": anonymous), and returns the
// result's caching members.
func (q cacheReq) rev20260728(t *testing.T, ts *httptest.Server, user string) hint {
	t.Helper()
	var header []string
	if q.name != "" {
		header = append(header, "Mcp-Name", q.name)
	}
	if user != "" {
		header = append(header, "X-User", user)
	}
	resp, msgs := rev20260728Post(t, ts, rev20260728Body(q.method, q.params), header...)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, msgs, 1)
	return members(t, msgs[0])
}

var fullHints = &mcp.CacheOptions{
	Tools:             mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic},
	Resources:         mcp.CacheHint{TTL: 2 * time.Minute},
	ResourceTemplates: mcp.CacheHint{TTL: 3 * time.Minute, Scope: mcp.CachePrivate},
	Prompts:           mcp.CacheHint{TTL: 1500 * time.Microsecond, Scope: mcp.CachePublic},
	Discover:          mcp.CacheHint{TTL: time.Hour, Scope: mcp.CachePublic},
}

// TestCacheHintsByRevision: the hints go out at 2026-07-28 only; the
// 2025 revisions' results have no ttlMs or cacheScope, whatever the
// server set.
func TestCacheHintsByRevision(t *testing.T) {
	t.Parallel()
	ts := cacheServer{cache: fullHints}.start(t)
	tests := []struct {
		req  cacheReq
		want hint // at 2026-07-28
	}{
		{toolsList, hint{"60000", "public"}},
		{resourcesList, hint{"120000", "public"}},
		{templatesList, hint{"180000", "private"}},
		{promptsList, hint{"1", "public"}}, // whole milliseconds, rounded down
		{read("mem://plain"), hint{"0", "public"}},
		{read("mem://shared"), hint{"90000", "public"}},
		{read("doc://intro"), hint{"2500", "public"}},
		{discover, hint{"3600000", "public"}},
	}
	for _, v := range []mcp.Version{mcp.Version20241105, mcp.Version20250326, mcp.Version20250618, mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			var c *httpClient
			if !v.Sessionless() {
				c = &httpClient{t: t, url: ts.URL, hc: ts.Client()}
				c.initialize(string(v))
			}
			for i, tt := range tests {
				if !v.Sessionless() {
					if tt.req == discover {
						continue // a 2026-07-28 method
					}
					params := "{" + tt.req.params + "}"
					res, _ := c.call(i+1, tt.req.method, params)
					assert.Equal(t, hint{}, members(t, res), "%s at %s", tt.req.method, v)
					continue
				}
				assert.Equal(t, tt.want, tt.req.rev20260728(t, ts, ""), "%s %s", tt.req.method, tt.req.params)
			}
		})
	}
}

// TestCacheHintRetriedRound: the result of a request retried with
// inputResponses and requestState goes out with ttlMs 0 and private,
// whatever the resource's hint: clients must not cache it. Its first
// round's input-required result has no hint at all.
func TestCacheHintRetriedRound(t *testing.T) {
	t.Parallel()
	ts := cacheServer{add: func(srv *mcp.Server) {
		srv.AddResource(mcp.Resource{URI: "mem://asks", Name: "asks", Cache: mcp.CacheHint{TTL: time.Hour, Scope: mcp.CachePublic},
			Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
				out, err := c.Ask(ctx, map[string]mcp.InputRequest{"client_roots": {Method: "roots/list"}})
				if err != nil {
					return nil, err
				}
				return []mcp.ResourceContents{{Text: string(out["client_roots"])}}, nil
			}})
	}}.start(t)
	q := mrtrRequest{method: "resources/read", name: "mem://asks", params: `"uri":"mem://asks"`}
	r1 := decodeIRR(t, q.send(t, ts, ""))
	assert.NotContains(t, r1.raw, "ttlMs")
	assert.NotContains(t, r1.raw, "cacheScope")
	r2 := q.send(t, ts, `"inputResponses":{"client_roots":`+rootsList+`},`+stateParam(r1.RequestState))
	assert.Equal(t, hint{"0", "private"}, members(t, r2))
}

// TestCacheHintInterceptorAnswers: when an interceptor answers a list
// without running it, the result goes out with the server's default:
// ttlMs 0, scoped by the request's authentication.
func TestCacheHintInterceptorAnswers(t *testing.T) {
	t.Parallel()
	ts := cacheServer{cache: fullHints, wrap: func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), func(next mcp.CallHandler) mcp.CallHandler {
				return func(ctx context.Context, c *mcp.Call) (any, error) {
					if c.Method == "tools/list" {
						return json.RawMessage(`{"tools":[]}`), nil
					}
					return next(ctx, c)
				}
			})))
		})
	}}.start(t)
	assert.Equal(t, hint{"0", "public"}, toolsList.rev20260728(t, ts, ""))
	assert.Equal(t, hint{"0", "private"}, toolsList.rev20260728(t, ts, "alice"))
	assert.Equal(t, hint{"1", "public"}, promptsList.rev20260728(t, ts, "alice"), "what runs keeps its hint")
}
