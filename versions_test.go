package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0", "2.0", -1},
		{"2.0", "1.0", 1},
		{"1.9", "1.10", -1},
		{"1", "1.0", 0},
		{"1", "1.0.0", 0},
		{"v1.2", "1.2", 0},
		{"V2", "1.9", 1},
		{"1.0.0+build.5", "1.0.0", 0},
		{"1.0.0-rc.1", "1.0.0", -1},
		{"1.0.0-alpha", "1.0.0-alpha.1", -1},
		{"1.0.0-alpha.1", "1.0.0-alpha.beta", -1},
		{"1.0.0-beta.2", "1.0.0-beta.11", -1},
		{"1.0.0-rc.1", "0.9", 1},
		{"2025-01-15", "2025-02-01", -1},
		{"2024-12-31", "2025-01-01", -1},
		{"010", "9", 1},
		{"1.x", "1.2", 1}, // text after numbers
		{"alpha", "beta", -1},
		{"vnext", "2", 1}, // "vnext" keeps its v: text, after numbers
	}
	for _, tt := range tests {
		t.Run(tt.a+" vs "+tt.b, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, mcp.CompareVersions(tt.a, tt.b))
			assert.Equal(t, -tt.want, mcp.CompareVersions(tt.b, tt.a), "antisymmetric")
		})
	}
}

// betaUser is auth data whose subject says whether it is a beta tester.
type betaUser string

func (u betaUser) Subject() string { return string(u) }

// versionedServer has calc in versions 1.0 (x+y), 2.0 (x+y+z) and 3.0-beta
// (x*y, beta testers only), and a plain tool.
func versionedServer(t testing.TB) *mcp.Server {
	s := newServer(t)
	type args struct {
		X int `json:"x"`
		Y int `json:"y"`
		Z int `json:"z,omitempty"`
	}
	mcp.AddTool(s, mcp.Tool{Name: "calc", Version: "1.0", Description: "Add two numbers"},
		func(_ context.Context, _ *mcp.Context, in args) (string, error) { return "v1 " + itoa(in.X+in.Y), nil })
	mcp.AddTool(s, mcp.Tool{Name: "calc", Version: "3.0-beta", Description: "Multiply",
		CanAccess: func(_ context.Context, auth any) bool { return auth == betaUser("beta") }},
		func(_ context.Context, _ *mcp.Context, in args) (string, error) { return "v3 " + itoa(in.X*in.Y), nil })
	mcp.AddTool(s, mcp.Tool{Name: "calc", Version: "2.0", Description: "Add two or three numbers", Meta: map[string]any{"team": "math"}},
		func(_ context.Context, _ *mcp.Context, in args) (string, error) {
			return "v2 " + itoa(in.X+in.Y+in.Z), nil
		})
	mcp.AddTool(s, mcp.Tool{Name: "plain"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "plain", nil })
	return s
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// versionHeader keeps the versions of the major the X-Api-Major header
// names (none: every version): the per-caller filter the docs show.
func versionHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if major := r.Header.Get("X-Api-Major"); major != "" {
			r = r.WithContext(mcp.WithVersionFilter(r.Context(), func(v string) bool { return strings.HasPrefix(v, major+".") }))
		}
		next.ServeHTTP(w, r)
	})
}

// authAs puts auth in every request's context.
func authAs(auth any) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithAuth(r.Context(), auth)))
		})
	}
}

func connectTo(t *testing.T, h http.Handler, header http.Header) *client.Client {
	t.Helper()
	c, err := client.Connect(t.Context(), client.InProcess(h, header), &client.Options{Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// listed returns the tool named name in c's tools/list, raw.
func listed(t *testing.T, c *client.Client, name string) map[string]any {
	t.Helper()
	var page struct {
		Tools []map[string]any `json:"tools"`
	}
	require.NoError(t, c.Call(t.Context(), "tools/list", nil, &page))
	var found map[string]any
	n := 0
	for _, tool := range page.Tools {
		if tool["name"] == name {
			found = tool
			n++
		}
	}
	require.LessOrEqual(t, n, 1, "a name is listed once")
	return found
}

// Each caller gets the newest version it may use, listed once with the
// version and the versions it may ask for in _meta, and called by default;
// a call names another with _meta "mcpchain/version"; a version the
// caller may not use is an unknown tool, never a fall-back.
func TestToolVersions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		auth        any
		header      http.Header
		listed      string
		versions    []any
		description string
		callDefault string
		ask         string
		askResult   string // "" : refused as unknown
	}{
		{name: "everyone gets the newest it may use", listed: "2.0", versions: []any{"2.0", "1.0"},
			description: "Add two or three numbers", callDefault: "v2 6", ask: "1.0", askResult: "v1 3"},
		{name: "a version its CanAccess refuses is neither listed nor callable", auth: betaUser("ada"),
			listed: "2.0", versions: []any{"2.0", "1.0"}, callDefault: "v2 6", ask: "3.0-beta"},
		{name: "a beta tester gets the pre-release", auth: betaUser("beta"), listed: "3.0-beta",
			versions: []any{"3.0-beta", "2.0", "1.0"}, description: "Multiply", callDefault: "v3 2", ask: "v2", askResult: "v2 6"},
		{name: "a header filter keeps the old major", header: http.Header{"X-Api-Major": {"1"}}, listed: "1.0",
			versions: []any{"1.0"}, description: "Add two numbers", callDefault: "v1 3", ask: "2.0"},
		{name: "a filter and CanAccess together", auth: betaUser("beta"), header: http.Header{"X-Api-Major": {"3"}},
			listed: "3.0-beta", versions: []any{"3.0-beta"}, callDefault: "v3 2", ask: "2.0"},
		{name: "a filter keeps what CanAccess refuses hidden", auth: betaUser("ada"), header: http.Header{"X-Api-Major": {"3"}}},
		{name: "an unknown version", listed: "2.0", versions: []any{"2.0", "1.0"}, callDefault: "v2 6", ask: "9.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := mcphttp.New(versionedServer(t), nil)
			t.Cleanup(func() { _ = h.Close() })
			c := connectTo(t, authAs(tt.auth)(versionHeader(h)), tt.header)

			tool := listed(t, c, "calc")
			if tt.listed == "" {
				assert.Nil(t, tool, "no version is left: the name is hidden")
				_, err := c.CallTool(t.Context(), "calc", map[string]int{"x": 1, "y": 2}, nil)
				assert.ErrorContains(t, err, `Unknown tool: "calc"`)
				return
			}
			require.NotNil(t, tool)
			meta, _ := tool["_meta"].(map[string]any)
			assert.Equal(t, tt.listed, meta["mcpchain/version"])
			assert.Equal(t, tt.versions, meta["mcpchain/versions"])
			if tt.listed == "2.0" {
				assert.Equal(t, "math", meta["team"], "the tool's own _meta stays")
			}
			if tt.description != "" {
				assert.Equal(t, tt.description, tool["description"])
			}
			plain := listed(t, c, "plain")
			assert.Nil(t, plain["_meta"], "an unversioned tool has no version")

			args := map[string]int{"x": 1, "y": 2, "z": 3}
			res, err := c.CallTool(t.Context(), "calc", args, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.callDefault, res.Text())

			res, err = c.CallTool(t.Context(), "calc", args, &client.CallOptions{Meta: map[string]any{"mcpchain/version": tt.ask}})
			if tt.askResult == "" {
				var rpc *mcp.Error
				require.True(t, errors.As(err, &rpc), "%v", err)
				assert.Equal(t, int64(mcp.CodeInvalidParams), rpc.Code)
				assert.Contains(t, rpc.Message, `"calc" has no version "`+tt.ask+`"`)
				var usable []string
				for _, v := range tt.versions {
					usable = append(usable, v.(string))
				}
				assert.Contains(t, rpc.Message, "(its versions: "+strings.Join(usable, ", ")+")")
				if tt.ask != "3.0-beta" && !slices.Contains(usable, "3.0-beta") {
					assert.NotContains(t, rpc.Message, "3.0-beta", "a version the caller may not use is never named")
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.askResult, res.Text())
		})
	}
}

// A name that every version's checks refuse is hidden, as an unknown tool;
// a version that is not a string is an invalid request.
func TestToolVersionsHidden(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(versionedServer(t), nil)
	t.Cleanup(func() { _ = h.Close() })
	none := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(mcp.WithVersionFilter(r.Context(), func(string) bool { return false })))
		})
	}
	c := connectTo(t, none(h), nil)
	assert.Nil(t, listed(t, c, "calc"))
	assert.NotNil(t, listed(t, c, "plain"), "unversioned tools are not filtered")
	_, err := c.CallTool(t.Context(), "calc", map[string]int{"x": 1, "y": 2}, nil)
	var rpc *mcp.Error
	require.True(t, errors.As(err, &rpc), "%v", err)
	assert.Contains(t, rpc.Message, `Unknown tool: "calc"`)

	c = connectTo(t, h, nil)
	_, err = c.CallTool(t.Context(), "calc", map[string]int{"x": 1, "y": 2}, &client.CallOptions{Meta: map[string]any{"mcpchain/version": 2}})
	require.True(t, errors.As(err, &rpc), "%v", err)
	assert.Equal(t, int64(mcp.CodeInvalidParams), rpc.Code)
	assert.Contains(t, rpc.Message, "must be a string")
}

// Registration refuses what cannot work: a bad version, a repeated one
// (also as another spelling), mixing versioned and unversioned under one
// name, versions that differ in Task.
func TestToolVersionsRegistration(t *testing.T) {
	t.Parallel()
	fn := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	tests := []struct {
		name   string
		first  *mcp.Tool
		second mcp.Tool
		is     error
		msg    string
	}{
		{name: "bad characters", second: mcp.Tool{Name: "t", Version: "1 0"}, is: mcp.ErrInvalidDefinition, msg: "only letters, digits"},
		{name: "too long", second: mcp.Tool{Name: "t", Version: string(make([]byte, 65))}, is: mcp.ErrInvalidDefinition, msg: "1 to 64"},
		{name: "no alnum", second: mcp.Tool{Name: "t", Version: "..."}, is: mcp.ErrInvalidDefinition, msg: "no letter or digit"},
		{name: "repeated", first: &mcp.Tool{Name: "t", Version: "1.0"}, second: mcp.Tool{Name: "t", Version: "1.0"}, is: mcp.ErrAlreadyRegistered},
		{name: "repeated in another spelling", first: &mcp.Tool{Name: "t", Version: "1.0"}, second: mcp.Tool{Name: "t", Version: "v1"}, is: mcp.ErrAlreadyRegistered, msg: `(as "1.0")`},
		{name: "versioned after unversioned", first: &mcp.Tool{Name: "t"}, second: mcp.Tool{Name: "t", Version: "1.0"}, is: mcp.ErrInvalidDefinition, msg: "versioned in all its registrations or in none"},
		{name: "unversioned after versioned", first: &mcp.Tool{Name: "t", Version: "1.0"}, second: mcp.Tool{Name: "t"}, is: mcp.ErrInvalidDefinition, msg: "the name has versions (1.0)"},
		{name: "different Task", first: &mcp.Tool{Name: "t", Version: "1.0"}, second: mcp.Tool{Name: "t", Version: "2.0", Task: &mcp.TaskOptions{}}, is: mcp.ErrInvalidDefinition, msg: "share one Task"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t)
			if tt.first != nil {
				require.NoError(t, mcp.TryAddTool(s.Registry(), *tt.first, fn))
			}
			before := s.ListTools(t.Context(), nil)
			err := mcp.TryAddTool(s.Registry(), tt.second, fn)
			require.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.msg)
			assert.Equal(t, before, s.ListTools(t.Context(), nil), "nothing registered")
		})
	}
}

// The versions of a mounted tool are chosen per caller through the mount,
// listed under the prefixed name; an Import copies every version; a
// transform derives from the newest; removing the name removes them all;
// and a versioned tool keeps the place of its first registration.
func TestToolVersionsComposition(t *testing.T) {
	t.Parallel()
	child := versionedServer(t)
	parent := newServer(t)
	parent.Mount("m", child, nil)
	imported := newServer(t)
	imported.Import("i", versionedServer(t), nil)
	derived := versionedServer(t)
	derived.AddTransformedTool("calc", mcp.Transform{Name: "calc_small", Description: "Adds, small numbers"})

	for _, tt := range []struct {
		name string
		srv  *mcp.Server
		tool string
	}{{"mount", parent, "m_calc"}, {"import", imported, "i_calc"}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := mcphttp.New(tt.srv, nil)
			t.Cleanup(func() { _ = h.Close() })
			for _, caller := range []struct {
				auth     any
				version  string
				versions []any
				result   string
			}{{nil, "2.0", []any{"2.0", "1.0"}, "v2 3"}, {betaUser("beta"), "3.0-beta", []any{"3.0-beta", "2.0", "1.0"}, "v3 2"}} {
				c := connectTo(t, authAs(caller.auth)(h), nil)
				tool := listed(t, c, tt.tool)
				require.NotNil(t, tool)
				meta := tool["_meta"].(map[string]any)
				assert.Equal(t, caller.version, meta["mcpchain/version"])
				assert.Equal(t, caller.versions, meta["mcpchain/versions"])
				res, err := c.CallTool(t.Context(), tt.tool, map[string]int{"x": 1, "y": 2}, nil)
				require.NoError(t, err)
				assert.Equal(t, caller.result, res.Text())
				res, err = c.CallTool(t.Context(), tt.tool, map[string]int{"x": 1, "y": 2}, &client.CallOptions{Meta: map[string]any{"mcpchain/version": "1.0"}})
				require.NoError(t, err)
				assert.Equal(t, "v1 3", res.Text())
			}
		})
	}

	// A transform of a versioned tool derives from its newest version (3.0-beta
	// here, whose own CanAccess it keeps).
	tools := derived.ListTools(t.Context(), betaUser("beta"))
	i := indexOf(tools, "calc_small")
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, "3.0-beta", tools[i].Version)
	assert.Equal(t, []string{"calc", "plain", "calc_small"}, namesOf(tools), "calc keeps its first place")
	assert.Equal(t, -1, indexOf(derived.ListTools(t.Context(), nil), "calc_small"), "the newest version's CanAccess holds")

	derived.Registry().Remove(access.KindTool, "calc")
	assert.Equal(t, []string{"plain", "calc_small"}, namesOf(derived.ListTools(t.Context(), betaUser("beta"))))
}

func indexOf(tools []mcp.Tool, name string) int {
	for i, t := range tools {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// Over HTTP, a stateless handler chooses per request: the filter of each
// request decides, with no session to remember a choice.
func TestToolVersionsHTTP(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(versionedServer(t), &mcphttp.Options{Stateless: true})
	ts := httptest.NewServer(versionHeader(h))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	for major, want := range map[string]string{"": "v2 3", "1": "v1 3", "2": "v2 3"} {
		var header http.Header
		if major != "" {
			header = http.Header{"X-Api-Major": {major}}
		}
		c, err := client.Connect(t.Context(), client.HTTP(ts.URL, &client.HTTPOptions{Header: header}), &client.Options{Logger: quietLogger()})
		require.NoError(t, err)
		res, err := c.CallTool(t.Context(), "calc", map[string]int{"x": 1, "y": 2}, nil)
		require.NoError(t, err)
		assert.Equal(t, want, res.Text(), "major %q", major)
		_ = c.Close()
	}
}

// FuzzCompareVersions: a client's version (params._meta) never panics the
// comparison, which is an order: reflexive, antisymmetric, transitive.
func FuzzCompareVersions(f *testing.F) {
	for _, s := range [][3]string{{"1.0", "2.0", "1.10"}, {"v1", "1.0.0-rc.1", "1.0.0+b"}, {"2025-01-15", "", "-"}, {"1..2", ".", "v"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		assert.Equal(t, 0, mcp.CompareVersions(a, a))
		ab, bc, ac := mcp.CompareVersions(a, b), mcp.CompareVersions(b, c), mcp.CompareVersions(a, c)
		assert.Equal(t, -ab, mcp.CompareVersions(b, a))
		if ab <= 0 && bc <= 0 {
			assert.LessOrEqual(t, ac, 0, "%q <= %q <= %q", a, b, c)
		}
		if ab >= 0 && bc >= 0 {
			assert.GreaterOrEqual(t, ac, 0, "%q >= %q >= %q", a, b, c)
		}
	})
}

// A session registers versions of a tool for itself alone; they shadow
// the server's tool of that name in that session only.
func TestToolVersionsPerSession(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "calc"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "server", nil })
	mcp.AddTool(s, mcp.Tool{Name: "unlock"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		for _, v := range []string{"1.0", "2.0"} {
			if err := mcp.TryAddTool(s.SessionRegistry(c.SessionID), mcp.Tool{Name: "calc", Version: v},
				func(context.Context, *mcp.Context, struct{}) (string, error) { return "session " + v, nil }); err != nil {
				return "", err
			}
		}
		return "unlocked", nil
	})
	h := mcphttp.New(s, nil)
	t.Cleanup(func() { _ = h.Close() })
	mine, other := connectTo(t, h, nil), connectTo(t, h, nil)
	res, err := mine.CallTool(t.Context(), "unlock", nil, nil)
	require.NoError(t, err)
	require.Equal(t, "unlocked", res.Text(), res.Text())
	tool := listed(t, mine, "calc")
	assert.Equal(t, []any{"2.0", "1.0"}, tool["_meta"].(map[string]any)["mcpchain/versions"])
	for _, tt := range []struct {
		c    *client.Client
		meta map[string]any
		want string
	}{{mine, nil, "session 2.0"}, {mine, map[string]any{"mcpchain/version": "1"}, "session 1.0"}, {other, nil, "server"}} {
		res, err := tt.c.CallTool(t.Context(), "calc", nil, &client.CallOptions{Meta: tt.meta})
		require.NoError(t, err)
		assert.Equal(t, tt.want, res.Text())
	}
	assert.Nil(t, listed(t, other, "calc")["_meta"])
}
