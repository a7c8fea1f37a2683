package proxy_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/mcpjson"
	"github.com/mcpchain/mcp/internal/gotool"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// greeter serves over Streamable HTTP a server whose tool greet answers
// with name.
func greeter(t *testing.T, name string) string {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: name, Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.Context, in struct {
		Who string `json:"who"`
	}) (string, error) {
		return name + " greets " + in.Who, nil
	})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts.URL + "/mcp"
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestConfigGateway(t *testing.T) {
	t.Parallel()
	// The stdio server of client/mcpjson's tests: its tool getenv shows
	// the file's env reached the process the gateway started.
	bin := filepath.Join(t.TempDir(), "stdioserver")
	out, err := gotool.Command("build", "-o", bin, "../client/mcpjson/testdata/stdioserver").CombinedOutput()
	require.NoError(t, err, "%s", out)
	cfg, err := mcpjson.Parse([]byte(`{"mcpServers": {
		"alpha": {"url": ` + jsonString(greeter(t, "alpha")) + `},
		"beta": {"type": "http", "url": ` + jsonString(greeter(t, "beta")) + `},
		"local": {"command": ` + jsonString(bin) + `, "env": {"MCPJSON_TEST": "set"}},
		"off": {"command": "/nonexistent", "disabled": true}}}`))
	require.NoError(t, err)
	cg, err := proxy.NewConfigGateway(t.Context(), cfg, &proxy.ConfigOptions{Server: mcp.Options{Name: "hub", Logger: quiet}})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cg.Close()) })
	assert.Equal(t, []string{"alpha", "beta", "local"}, cg.Names())
	assert.Nil(t, cg.Gateway("off"))
	assert.Equal(t, "local", cg.Gateway("local").UpstreamName())

	h := mcphttp.New(cg.Server(), nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	cl, err := client.Connect(t.Context(), client.HTTP(ts.URL+"/mcp", nil), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cl.Close() })
	assert.Equal(t, "hub", cl.Initialize().ServerInfo.Name)

	tools, err := cl.ListTools(t.Context())
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	assert.Equal(t, []string{"alpha_greet", "beta_greet", "local_cwd", "local_getenv"}, names)

	tests := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"alpha_greet", map[string]any{"who": "you"}, "alpha greets you"},
		{"beta_greet", map[string]any{"who": "me"}, "beta greets me"},
		{"local_getenv", map[string]any{"name": "MCPJSON_TEST"}, "set"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			res, err := cl.CallTool(t.Context(), tt.tool, tt.args, nil)
			require.NoError(t, err)
			assert.False(t, res.IsError, res.Text())
			assert.Equal(t, tt.want, res.Text())
		})
	}
}

func TestConfigGatewayFailure(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/mcp"
	down.Close()
	cfg, err := mcpjson.Parse([]byte(`{"mcpServers": {
		"alpha": {"url": ` + jsonString(greeter(t, "alpha")) + `},
		"gone": {"url": ` + jsonString(downURL) + `}}}`))
	require.NoError(t, err)
	cg, err := proxy.NewConfigGateway(t.Context(), cfg, &proxy.ConfigOptions{Server: mcp.Options{Logger: quiet}})
	assert.Nil(t, cg)
	var ce *mcpjson.ConnectError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Failed, "gone")
	assert.Len(t, ce.Failed, 1)
	assert.Equal(t, []string{"alpha"}, ce.Connected)
	assert.ErrorContains(t, err, `server "gone": `)

	// A Config a program built itself is checked as Parse checks a file.
	cg, err = proxy.NewConfigGateway(t.Context(), nil, nil)
	assert.Nil(t, cg)
	assert.ErrorContains(t, err, "the Config is nil")
	cg, err = proxy.NewConfigGateway(t.Context(), &mcpjson.Config{Servers: []mcpjson.Server{{Name: "a.b", URL: "http://x/"}}}, nil)
	assert.Nil(t, cg)
	assert.ErrorContains(t, err, `server "a.b": the name prefixes`)
}

func TestConfigGatewayUpstreamOption(t *testing.T) {
	t.Parallel()
	// The option's transport replaces the file's: the URL in the file
	// is never reached.
	url := greeter(t, "real")
	cfg, err := mcpjson.Parse([]byte(`{"mcpServers": {"x": {"url": "http://127.0.0.1:1/never"}}}`))
	require.NoError(t, err)
	var mu sync.Mutex
	var asked []string
	cg, err := proxy.NewConfigGateway(t.Context(), cfg, &proxy.ConfigOptions{
		Server: mcp.Options{Logger: quiet},
		Upstream: func(s *mcpjson.Server, _ *mcp.Context) client.Transport {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, s.Name)
			return client.HTTP(url, nil)
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cg.Close()) })
	mu.Lock()
	assert.Equal(t, []string{"x"}, asked)
	mu.Unlock()
	h := mcphttp.New(cg.Server(), nil)
	t.Cleanup(func() { _ = h.Close() })
	cl, err := client.Connect(t.Context(), client.InProcess(h, nil), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cl.Close() })
	res, err := cl.CallTool(t.Context(), "x_greet", map[string]any{"who": "z"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "real greets z", res.Text())
}
