package mcpjson_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/mcpjson"
	"github.com/mcpchain/mcp/internal/gotool"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/sampling"
)

// stdioServer is the path of testdata/stdioserver, built once by TestMain.
var stdioServer string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpjson-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	stdioServer = filepath.Join(dir, "stdioserver")
	if out, err := gotool.Command("build", "-o", stdioServer, "./testdata/stdioserver").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building testdata/stdioserver: %v\n%s", err, out)
		_ = os.RemoveAll(dir)
		os.Exit(2)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// httpServer serves a server of one tool, named tool, that answers
// name's greeting and the request's X-Test header, over Streamable HTTP.
func httpServer(t *testing.T, name, tool string) string {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: name, Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: tool, Description: "Greet"},
		func(_ context.Context, c *mcp.Context, in struct {
			Who string `json:"who"`
		}) (string, error) {
			return name + " greets " + in.Who, nil
		})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts.URL + "/mcp"
}

func config(t *testing.T, file string) *mcpjson.Config {
	t.Helper()
	cfg, err := mcpjson.Parse([]byte(file))
	require.NoError(t, err)
	return cfg
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestConnect(t *testing.T) {
	t.Parallel()
	a, b := httpServer(t, "alpha", "greet"), httpServer(t, "beta", "hello")
	cwd := t.TempDir()
	cfg := config(t, `{"mcpServers": {
		"alpha": {"url": `+quote(a)+`},
		"beta": {"type": "http", "url": `+quote(b)+`, "headers": {"X-Test": "yes"}},
		"local": {"command": `+quote(stdioServer)+`, "env": {"MCPJSON_TEST": "from the file"}, "cwd": `+quote(cwd)+`},
		"off": {"command": "/nonexistent", "disabled": true}}}`)
	ctx := t.Context()
	cs, err := mcpjson.Connect(ctx, cfg, nil)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cs.Close()) })

	assert.Equal(t, []string{"alpha", "beta", "local"}, cs.Names())
	assert.Nil(t, cs.Client("off"), "a disabled server is not connected")
	require.NotNil(t, cs.Client("local"))
	assert.Equal(t, "stdioserver", cs.Client("local").Initialize().ServerInfo.Name)

	tools, err := cs.ListTools(ctx)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"alpha_greet", "beta_hello", "local_cwd", "local_getenv"}, slices.Sorted(slices.Values(names)))

	tests := []struct {
		tool string
		args any
		want string
	}{
		{"alpha_greet", map[string]any{"who": "you"}, "alpha greets you"},
		{"beta_hello", map[string]any{"who": "me"}, "beta greets me"},
		{"local_getenv", map[string]any{"name": "MCPJSON_TEST"}, "from the file"},
		{"local_cwd", nil, cwd},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, err := cs.CallTool(ctx, tt.tool, tt.args, nil)
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Equal(t, tt.want, res.Text())
		})
	}
}

func TestCallToolUnknown(t *testing.T) {
	t.Parallel()
	cfg := config(t, `{"mcpServers": {"alpha": {"url": `+quote(httpServer(t, "alpha", "greet"))+`}}}`)
	cs, err := mcpjson.Connect(t.Context(), cfg, nil)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cs.Close()) })
	tests := []struct{ tool, want string }{
		{"greet", `tool "greet" has no server prefix (server_tool)`},
		{"beta_greet", `"beta" (tool "beta_greet"; connected: alpha)`},
		{"_greet", `"" (tool "_greet"`},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			_, err := cs.CallTool(t.Context(), tt.tool, nil, nil)
			require.ErrorIs(t, err, mcpjson.ErrUnknownServer)
			assert.ErrorContains(t, err, tt.want)
		})
	}
	// A tool the server does not have is the server's error.
	_, err = cs.CallTool(t.Context(), "alpha_nope", nil, nil)
	var rpc *mcp.Error
	require.ErrorAs(t, err, &rpc)
	assert.NotErrorIs(t, err, mcpjson.ErrUnknownServer)
}

func TestConnectFailure(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/mcp"
	down.Close()
	file := `{"mcpServers": {
		"alpha": {"url": ` + quote(httpServer(t, "alpha", "greet")) + `},
		"gone": {"url": ` + quote(downURL) + `},
		"missing": {"command": "/nonexistent/mcpjson-server"},
		"local": {"command": ` + quote(stdioServer) + `}}}`
	tests := []struct {
		name    string
		partial bool
	}{{"all or nothing", false}, {"partial", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, err := mcpjson.Connect(t.Context(), config(t, file), &mcpjson.ConnectOptions{Partial: tt.partial})
			var ce *mcpjson.ConnectError
			require.ErrorAs(t, err, &ce)
			assert.ElementsMatch(t, []string{"gone", "missing"}, keys(ce.Failed))
			assert.Equal(t, []string{"alpha", "local"}, ce.Connected)
			assert.Contains(t, err.Error(), `server "gone": `)
			assert.Contains(t, err.Error(), `server "missing": `)
			assert.ErrorIs(t, err, os.ErrNotExist, "the command's error is wrapped")
			if !tt.partial {
				assert.Nil(t, cs)
				return
			}
			require.NotNil(t, cs)
			t.Cleanup(func() { assert.NoError(t, cs.Close()) })
			assert.Equal(t, []string{"alpha", "local"}, cs.Names())
			res, err := cs.CallTool(t.Context(), "alpha_greet", map[string]any{"who": "x"}, nil)
			require.NoError(t, err)
			assert.Equal(t, "alpha greets x", res.Text())
		})
	}
}

func keys(m map[string]error) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestConnectTransportOption(t *testing.T) {
	t.Parallel()
	// The header of the file reaches the server; a Transport option
	// replaces the file's transport.
	srv := mcp.NewServer(mcp.Options{Name: "h", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "ok", nil })
	h := mcphttp.New(srv, nil)
	seen := make(chan string, 16)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case seen <- r.Header.Get("X-Test"):
		default:
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	cfg := config(t, `{"mcpServers": {"h": {"url": `+quote(ts.URL+"/mcp")+`, "headers": {"X-Test": "from the file"}}}}`)
	cs, err := mcpjson.Connect(t.Context(), cfg, nil)
	require.NoError(t, err)
	require.NoError(t, cs.Close())
	assert.Equal(t, "from the file", <-seen)

	called := false
	_, err = mcpjson.Connect(t.Context(), cfg, &mcpjson.ConnectOptions{Transport: func(s *mcpjson.Server) (client.Transport, error) {
		called = true
		assert.Equal(t, "h", s.Name)
		return nil, errors.New("no transport today")
	}})
	assert.True(t, called)
	assert.ErrorContains(t, err, `server "h": no transport today`)
}

func TestConnectChecksConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  *mcpjson.Config
		want string
	}{
		{"nil", nil, "the Config is nil"},
		{"empty name", &mcpjson.Config{Servers: []mcpjson.Server{{Command: "x"}}}, `server "": a server's name is empty`},
		{"underscore", &mcpjson.Config{Servers: []mcpjson.Server{{Name: "a_b", Command: "x"}}}, `server "a_b": the name prefixes`},
		{"twice", &mcpjson.Config{Servers: []mcpjson.Server{{Name: "a", Command: "x"}, {Name: "a", Command: "y"}}}, `server "a" is configured twice`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cs, err := mcpjson.Connect(t.Context(), tt.cfg, nil)
			assert.Nil(t, cs)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestServerTransportByHand(t *testing.T) {
	t.Parallel()
	// A Server built without a Type is stdio when it has a Command.
	s := &mcpjson.Server{Name: "local", Command: stdioServer, Env: map[string]string{"MCPJSON_TEST": "by hand"}}
	cl, err := client.Connect(t.Context(), s.Transport(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cl.Close()) })
	res, err := cl.CallTool(t.Context(), "getenv", map[string]any{"name": "MCPJSON_TEST"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "by hand", res.Text())
}

// samplingServer serves tool "ask", which asks the client's model to
// sample and returns what it answered.
func samplingServer(t *testing.T, name string) string {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: name, Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 10,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: "who are you?"}}}})
		if err != nil {
			return "", err
		}
		return res.Content.(mcp.TextContent).Text, nil
	})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts.URL + "/mcp"
}

// TestConnectClientPerServer: ConnectOptions.Client gives each server's
// client options of its own, so a callback knows which server called it:
// each server's sampling request is answered by a handler that names it.
func TestConnectClientPerServer(t *testing.T) {
	t.Parallel()
	cfg := config(t, `{"mcpServers": {
		"alpha": {"url": `+quote(samplingServer(t, "alpha"))+`},
		"beta": {"url": `+quote(samplingServer(t, "beta"))+`}}}`)
	var asked []string
	cs, err := mcpjson.Connect(t.Context(), cfg, &mcpjson.ConnectOptions{Client: func(s *mcpjson.Server) *client.Options {
		return &client.Options{
			Info: mcp.Implementation{Name: "hub for " + s.Name, Version: "1"},
			Sample: func(context.Context, *sampling.Request) (*sampling.Result, error) {
				asked = append(asked, s.Name)
				return &sampling.Result{Role: mcp.RoleAssistant, Model: "m",
					Content: mcp.TextContent{Text: "the model of " + s.Name}}, nil
			},
		}
	}})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cs.Close()) })
	for _, name := range []string{"alpha", "beta"} {
		res, err := cs.CallTool(t.Context(), name+"_ask", nil, nil)
		require.NoError(t, err)
		assert.Equal(t, "the model of "+name, res.Text())
	}
	assert.Equal(t, []string{"alpha", "beta"}, asked)
}
