package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client/mcpjson"
	"github.com/mcpchain/mcp/proxy"
)

// TestServeConfigStdio: a stdio client reaches every server of an
// mcp.json, namespaced, through one stdio server; a call written just
// before the end of the input is answered before ServeConfigStdio
// returns (the drain), and stdout carries only JSON-RPC.
func TestServeConfigStdio(t *testing.T) {
	t.Parallel()
	cfg, err := mcpjson.Parse([]byte(`{"mcpServers": {
		"alpha": {"url": ` + jsonString(greeter(t, "alpha")) + `},
		"beta": {"url": ` + jsonString(greeter(t, "beta")) + `}}}`))
	require.NoError(t, err)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"beta_greet","arguments":{"who":"you"}}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	err = proxy.ServeConfigStdio(t.Context(), cfg, strings.NewReader(in), &out,
		&proxy.StdioOptions{Gateway: proxy.Options{Server: mcp.Options{Name: "hub", Logger: quiet}}})
	require.NoError(t, err)

	answers := map[float64]json.RawMessage{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var msg struct {
			ID     float64         `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &msg), "stdout carries JSON-RPC only: %s", sc.Text())
		require.Nil(t, msg.Error, "%s", sc.Text())
		answers[msg.ID] = msg.Result
	}
	require.Len(t, answers, 3, "initialize, tools/list and tools/call are answered: %s", out.String())

	var init struct {
		ServerInfo mcp.Implementation `json:"serverInfo"`
	}
	require.NoError(t, json.Unmarshal(answers[1], &init))
	assert.Equal(t, "hub", init.ServerInfo.Name, "Gateway.Server names the server that mounts them")
	var list struct {
		Tools []mcp.Tool `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(answers[2], &list))
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	assert.ElementsMatch(t, []string{"alpha_greet", "beta_greet"}, names)
	assert.Contains(t, string(answers[3]), "beta greets you", "the last call, answered after the input ended")
}

// TestServeConfigStdioFailure: a server of the file that cannot be
// reached fails the start with a *mcpjson.ConnectError naming it, and
// nothing is written to the client.
func TestServeConfigStdioFailure(t *testing.T) {
	t.Parallel()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL + "/mcp"
	down.Close()
	cfg, err := mcpjson.Parse([]byte(`{"mcpServers": {
		"alpha": {"url": ` + jsonString(greeter(t, "alpha")) + `},
		"gone": {"url": ` + jsonString(downURL) + `}}}`))
	require.NoError(t, err)
	inR, inW := io.Pipe()
	t.Cleanup(func() { _ = inW.Close() })
	var out bytes.Buffer
	err = proxy.ServeConfigStdio(context.Background(), cfg, inR, &out,
		&proxy.StdioOptions{Gateway: proxy.Options{Server: mcp.Options{Logger: quiet}}})
	var ce *mcpjson.ConnectError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []string{"gone"}, keys(ce.Failed))
	assert.Empty(t, out.String())
}

func keys(m map[string]error) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
