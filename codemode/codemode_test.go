package codemode_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/codemode"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

type weather struct {
	City  string  `json:"city"`
	TempC float64 `json:"temp_c"`
}

// testServer has tools a script chains: cities lists cities, weather
// gives a city's weather (structured), echo returns its text, fail always
// fails, slow waits for its context, wipe is for admin alone, and
// counter counts its calls.
func testServer(t testing.TB, calls *atomic.Int64) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "cm", Version: "1.0.0", Logger: quiet()})
	mcp.AddTool(srv, mcp.Tool{Name: "cities", Description: "List the cities"},
		func(context.Context, *mcp.Context, struct{}) (struct {
			Cities []string `json:"cities"`
		}, error) {
			return struct {
				Cities []string `json:"cities"`
			}{[]string{"Oslo", "Lima"}}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "weather", Description: "A city's weather"},
		func(_ context.Context, _ *mcp.Context, in struct {
			City string `json:"city"`
		}) (weather, error) {
			temps := map[string]float64{"Oslo": -3.5, "Lima": 19}
			return weather{City: in.City, TempC: temps[in.City]}, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		if calls != nil {
			calls.Add(1)
		}
		return in.Text, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "fail"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "", mcp.UserErrorf("the disk is full")
	})
	mcp.AddTool(srv, mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	})
	mcp.AddTool(srv, mcp.Tool{Name: "wipe", CanAccess: func(_ context.Context, auth any) bool { return auth == "admin" }},
		func(context.Context, *mcp.Context, struct{}) (string, error) {
			if calls != nil {
				calls.Add(1000)
			}
			return "wiped", nil
		})
	return srv
}

// connect serves srv behind the Runner (and toolsearch's middleware, when
// s is not nil) with a header-based auth, and connects a client as who.
func connect(t testing.TB, srv *mcp.Server, r *codemode.Runner, s *toolsearch.Search, who string) *client.Client {
	t.Helper()
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if u := req.Header.Get("X-User"); u != "" {
				req = req.WithContext(mcp.WithAuth(req.Context(), u))
			}
			next.ServeHTTP(w, req)
		})
	}
	var handler http.Handler = h
	if s != nil {
		handler = s.Middleware(handler)
	}
	handler = r.Middleware(handler)
	hdr := http.Header{}
	if who != "" {
		hdr.Set("X-User", who)
	}
	c, err := client.Connect(t.Context(), client.InProcess(auth(handler), hdr), &client.Options{Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func structured(t testing.TB, res *mcp.ContentResult) string {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	return string(b)
}

func run(t testing.TB, c *client.Client, script string) *mcp.ContentResult {
	t.Helper()
	res, err := c.CallTool(t.Context(), codemode.DefaultTool, map[string]any{"script": script}, nil)
	require.NoError(t, err)
	return res
}

// A script chains two tools: it lists the cities, asks each one's
// weather and returns the coldest, as structured content and text.
func TestScriptChainsTools(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	r, err := codemode.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, r, nil, "")
	res := run(t, c, `
temps = {}
for city in call("cities")["cities"]:
    temps[city] = call("weather", {"city": city})["temp_c"]
coldest = sorted(temps.keys(), key=lambda c: temps[c])[0]
print("asked", len(temps), "cities")
result = {"coldest": coldest, "temp_c": temps[coldest], "said": call("echo", {"text": "hi"})}
`)
	require.False(t, res.IsError, res.Text())
	assert.JSONEq(t, `{"result":{"coldest":"Oslo","temp_c":-3.5,"said":"hi"}}`, structured(t, res))
	assert.Contains(t, res.Text(), "asked 2 cities")
	assert.Contains(t, res.Text(), `"coldest":"Oslo"`)
}

// A tool's access check applies to a call from a script: a caller the
// check refuses gets "Unknown tool" and the tool does not run, by call
// and by try_call, and toolsearch's call_tool reached from the script is
// no way around it; the caller it admits runs it from a script.
func TestScriptHonoursAccess(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script string
	}{
		{"call", `result = call("wipe")`},
		{"try_call", `r = try_call("wipe")
if not r["ok"]:
    fail(r["error"])
result = r`},
		{"through call_tool", `result = call("call_tool", {"name": "wipe"})`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int64
			srv := testServer(t, &calls)
			r, err := codemode.New(srv, nil)
			require.NoError(t, err)
			s, err := toolsearch.New(srv, &toolsearch.Options{Pinned: []string{codemode.DefaultTool}})
			require.NoError(t, err)

			bob := connect(t, srv, r, s, "bob")
			res := run(t, bob, tc.script)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text(), "Unknown tool")
			assert.NotContains(t, res.Text(), "wiped")
			assert.Zero(t, calls.Load(), "the denied tool ran")

			admin := connect(t, srv, r, s, "admin")
			res = run(t, admin, tc.script)
			require.False(t, res.IsError, res.Text())
			assert.Contains(t, res.Text(), "wiped")
			assert.Equal(t, int64(1000), calls.Load())
		})
	}
}

// The script tool itself is checked as any tool: hidden by a Disable
// rule, it cannot be called at all.
func TestScriptToolIsATool(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	r, err := codemode.New(srv, nil)
	require.NoError(t, err)
	require.NoError(t, srv.Registry().Disable(mcp.Match{Kind: access.KindTool, Names: []string{codemode.DefaultTool}}))
	c := connect(t, srv, r, nil, "")
	_, err = c.CallTool(t.Context(), codemode.DefaultTool, map[string]any{"script": `result = call("wipe")`}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Unknown tool")
}

// Without its middleware, the script tool refuses to run (it has no
// chain to call tools through) and says why.
func TestScriptWithoutMiddleware(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	_, err := codemode.New(srv, nil)
	require.NoError(t, err)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	c, err := client.Connect(t.Context(), client.InProcess(h, nil), &client.Options{Logger: quiet()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	res := run(t, c, `result = call("echo", {"text": "x"})`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "middleware is not installed")
}

// The hostile table: each script is refused with a tool error naming the
// limit or the fault (and the line where there is one), within the
// bounds, and the server answers the next call as before.
func TestHostileScripts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		opts   codemode.Options
		setup  func(t *testing.T, srv *mcp.Server)
		script string
		want   []string
		calls  int64 // echo calls made, at most
	}{
		{name: "infinite loop", script: "x = 0\nwhile True:\n    x += 1\n",
			want: []string{"exceeded its 1000000 execution steps", "line 3"}},
		{name: "deep recursion", script: "def f(n):\n    return f(n + 1)\nf(0)\n",
			want: []string{"called recursively", "line 2"}},
		{name: "mutual recursion", script: "def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nf(0)\n",
			want: []string{"called recursively"}},
		{name: "huge string in a loop", script: "s = 'x'\nfor i in range(100):\n    s = s + s\n",
			want: []string{"line 3", "one value may hold at most 4194304"}},
		{name: "huge string by +=", script: "s = 'x'\nfor i in range(100):\n    s += s\n",
			want: []string{"line 3", "one value may hold at most 4194304"}},
		{name: "huge list by *=", script: "l = [1]\nfor i in range(100):\n    l *= 2\n",
			want: []string{"line 3", "at most 1000000"}},
		{name: "huge list by +", script: "l = [1]\nfor i in range(100):\n    l = l + l\n",
			want: []string{"line 3", "at most 1000000"}},
		{name: "huge list in a loop", script: "l = []\nwhile True:\n    l.append(1)\n",
			opts: codemode.Options{MaxSteps: 100_000}, want: []string{"exceeded its 100000 execution steps"}},
		{name: "str of many references", script: "s = 'x' * 4000000\nl = [s] * 1000000\nt = str(l)\n",
			want: []string{"line 3", "its text would exceed"}},
		{name: "print of many references", script: "s = 'x' * 4000000\nl = [s] * 1000000\nprint(l)\n",
			want: []string{"line 3", "its text would exceed"}},
		{name: "join of many references", script: "s = 'x' * 4000000\nl = [s] * 1000000\nt = ','.join(l)\n",
			want: []string{"line 3", "join: the result would be"}},
		{name: "join through a bound method", script: "s = 'x' * 4000000\nl = [s] * 1000000\nf = ','.join\nt = f(l)\n",
			want: []string{"line 4", "join: the result would be"}},
		{name: "replace through getattr", script: "s = 'x' * 4000000\nt = getattr(s, 'replace')('', s)\n",
			want: []string{"line 2", "replace: the result would be"}},
		{name: "format of many references", script: "s = 'x' * 4000000\nt = '{}{}{}'.format(s)\n",
			want: []string{"line 2", "format: the result would be"}},
		{name: "percent of many references", script: "s = 'x' * 4000000\nl = [s] * 1000000\nt = '%s' % (l,)\n",
			want: []string{"line 3", "the result would be"}},
		{name: "extend doubling", script: "l = [1]\nfor i in range(40):\n    l.extend(l)\n",
			want: []string{"line 3", "at most 1000000"}},
		{name: "keep-alive copies", script: "s = 'x' * 4000000\nkeep = []\nfor i in range(1000):\n    keep.append(s + str(i))\n",
			want: []string{"line 4", "more than 67108864 bytes of values"}},
		{name: "keep-alive list copies", script: "l = list(range(1000000))\nkeep = []\nfor i in range(1000):\n    keep.append(list(l))\n",
			want: []string{"line 4", "more than 67108864 bytes of values"}},
		{name: "int squaring", script: "x = 3\nfor i in range(100):\n    x = x * x\n",
			want: []string{"line 3", "bits; at most 65536"}},
		{name: "int shifting", script: "x = 1\nfor i in range(100000):\n    x = x << 500\n",
			want: []string{"line 3", "bits; at most 65536"}},
		{name: "int of a long string", script: "x = int('9' * 100000)\n",
			want: []string{"line 1", "at most 4300 are converted"}},
		{name: "huge range", script: "l = list(range(1 << 40))\n",
			want: []string{"range: 1099511627776 elements; at most 1000000", "line 1"}},
		{name: "huge repeat", script: "s = 'x' * (1 << 40)\n", want: []string{"1099511627776 bytes; one value may hold at most", "line 1"}},
		{name: "huge result", script: "result = 'x' * 1000000\n", want: []string{"result: more than 65536 bytes"}},
		{name: "huge print", script: "for i in range(100000):\n    print('xxxxxxxxxxxxxxxxxxxxxx')\n",
			want: []string{"printed more than 65536 bytes", "line 2"}},
		{name: "huge arguments", script: "call('echo', {'text': 'x' * 1000000})\n",
			want: []string{"arguments: more than 65536 bytes"}},
		{name: "denied tool", script: "call('wipe')\n", want: []string{"Unknown tool", "line 1"}},
		{name: "hidden tool", script: "call('echo', {'text': 'x'})\n", want: []string{"Unknown tool", "line 1"},
			setup: func(t *testing.T, srv *mcp.Server) {
				require.NoError(t, srv.Registry().Disable(mcp.Match{Kind: access.KindTool, Names: []string{"echo"}}))
			}},
		{name: "unknown tool", script: "call('no_such_tool')\n", want: []string{"Unknown tool"}},
		{name: "script calls itself", script: "call('run_script', {'script': 'result = 1'})\n",
			want: []string{"a script cannot run a script", "line 1"}},
		{name: "script calls itself through call_tool",
			script: "call('call_tool', {'name': 'run_script', 'arguments': {'script': 'result = 1'}})\n",
			want:   []string{"run_script cannot run from a script"}},
		{name: "1000 tool calls", script: "for i in range(1000):\n    call('echo', {'text': 'x'})\n",
			want: []string{"more than 50 tool calls", "line 2"}, calls: 50},
		{name: "slower than the timeout", opts: codemode.Options{Timeout: 50 * time.Millisecond},
			script: "call('slow')\n", want: []string{"time limit (50ms", "line 1"}},
		{name: "loop slower than the timeout", opts: codemode.Options{Timeout: 50 * time.Millisecond, MaxSteps: 1 << 62},
			script: "while True:\n    pass\n", want: []string{"time limit (50ms"}},
		{name: "syntax error", script: "x = (1,\nif True:\n", want: []string{"syntax error at line 2"}},
		{name: "undefined name", script: "x = 1\ny = open('/etc/passwd')\n", want: []string{"undefined: open"}},
		{name: "load", script: "load('os', 'system')\n", want: []string{"load"}},
		{name: "runtime error", script: "x = 1\ny = x / 0\n", want: []string{"line 2", "division by zero"}},
		{name: "non-JSON result", script: "result = lambda: 1\n", want: []string{"result: a value of type function has no JSON form"}},
		{name: "non-JSON set", script: "result = set([1])\n", want: []string{"has no JSON form"}},
		{name: "non-string key", script: "result = {1: 2}\n", want: []string{"keys must be strings"}},
		{name: "NaN", script: "result = float('nan')\n", want: []string{"no JSON form"}},
		{name: "arguments not a dict", script: "call('echo', ['x'])\n", want: []string{"arguments must be a dict, not list"}},
		{name: "argument injection", script: `call('echo', {'text': '", "name": "wipe'})` + "\nresult = call('echo', {'text': '\"}, \"name\": \"wipe'})\n",
			want: []string{}},
		{name: "tool error", script: "x = 1\ncall('fail')\n", want: []string{"fail: the disk is full", "line 2"}},
		{name: "deep nesting", script: "v = []\nfor i in range(100):\n    v = [v]\nresult = v\n", want: []string{"nested more than 64 deep"}},
		{name: "bad call", script: "call()\n", want: []string{"call: got 0 arguments, want at least 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int64
			srv := testServer(t, &calls)
			if tc.setup != nil {
				tc.setup(t, srv)
			}
			r, err := codemode.New(srv, &tc.opts)
			require.NoError(t, err)
			s, err := toolsearch.New(srv, &toolsearch.Options{Pinned: []string{codemode.DefaultTool}})
			require.NoError(t, err)
			c := connect(t, srv, r, s, "")
			start := time.Now()
			res := run(t, c, tc.script)
			assert.Less(t, time.Since(start), 30*time.Second)
			if len(tc.want) == 0 { // injection: the text stays a string
				require.False(t, res.IsError, res.Text())
				assert.Contains(t, res.Text(), `"}, \"name\": \"wipe`)
				assert.Less(t, calls.Load(), int64(1000), "wipe ran")
			} else {
				require.True(t, res.IsError, res.Text())
				for _, w := range tc.want {
					assert.Contains(t, res.Text(), w)
				}
			}
			assert.LessOrEqual(t, calls.Load()%1000, max(tc.calls, 2))
			assert.Less(t, calls.Load(), int64(1000), "wipe ran")
			// The server is unharmed.
			ok := run(t, c, `result = call("cities")`)
			require.False(t, ok.IsError, ok.Text())
			assert.Contains(t, ok.Text(), "Oslo")
		})
	}
}

// try_call hands a tool's failure to the script as a value.
func TestTryCall(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	r, err := codemode.New(srv, nil)
	require.NoError(t, err)
	c := connect(t, srv, r, nil, "")
	res := run(t, c, `
r = try_call("fail")
ok = try_call("echo", {"text": "fine"})
result = [r["ok"], r["error"], ok["ok"], ok["value"]]
`)
	require.False(t, res.IsError, res.Text())
	assert.JSONEq(t, `{"result":[false,"fail: the disk is full",true,"fine"]}`, structured(t, res))
}

func TestNewOptions(t *testing.T) {
	t.Parallel()
	srv := testServer(t, nil)
	for _, o := range []codemode.Options{{Timeout: -1}, {MaxCalls: -1}, {MaxOutputBytes: -1}, {Tool: "bad name!"}} {
		_, err := codemode.New(srv, &o)
		assert.Error(t, err, "%+v", o)
	}
	_, err := codemode.New(srv, &codemode.Options{Tool: "echo"})
	assert.ErrorIs(t, err, mcp.ErrAlreadyRegistered)
	_, err = codemode.New(srv, nil)
	require.NoError(t, err)
	tools := srv.ListTools(t.Context(), nil)
	var desc string
	for _, tl := range tools {
		if tl.Name == codemode.DefaultTool {
			desc = tl.Description
		}
	}
	assert.True(t, strings.Contains(desc, `call("tool_name", {"arg": 1})`), desc)
}
