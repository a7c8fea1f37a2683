package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/stdio"
)

// errorRow is one row of DESIGN.md §4's error table.
type errorRow struct {
	name   string
	method string
	params string // JSON; "" sends none
	// line, when set, is the raw stdio line (instead of one built from
	// method and params).
	line string
	// embedMethod, when set, is the method the embedded session sends
	// instead: its Request builds a well-formed envelope, so an invalid
	// request is made with an empty method name.
	embedMethod string
	// noEmbed says why the embedded transport cannot send this row.
	noEmbed string

	wantCode int64          // a JSON-RPC error
	wantData map[string]any // its data
	wantText []string       // else: an isError result whose text holds these
}

var errorRows = []errorRow{
	{name: "unknown tool", method: "tools/call", params: `{"name":"no_such_tool","arguments":{}}`, wantCode: -32602},
	{name: "hidden tool reads as unknown", method: "tools/call", params: `{"name":"admin_only","arguments":{}}`, wantCode: -32602},
	{name: "unknown prompt", method: "prompts/get", params: `{"name":"no_such_prompt"}`, wantCode: -32602},
	{name: "prompt missing a required argument", method: "prompts/get", params: `{"name":"greet","arguments":{}}`, wantCode: -32602},
	{name: "unknown resource", method: "resources/read", params: `{"uri":"mem://no-such-thing"}`,
		wantCode: -32602, wantData: map[string]any{"uri": "mem://no-such-thing"}},
	{name: "malformed JSON", line: `{"jsonrpc":"2.0","id":1,"method":"ping"`, wantCode: -32700,
		noEmbed: "the embedded session encodes every message itself: it cannot send malformed JSON"},
	{name: "invalid request", line: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, embedMethod: "", wantCode: -32600},
	{name: "unknown method", method: "tools/frobnicate", params: `{}`, wantCode: -32601},
	{name: "tool returns an error", method: "tools/call", params: `{"name":"fail","arguments":{}}`,
		wantText: []string{`"fail"`, "the disk is full"}},
	{name: "tool returns a UserError", method: "tools/call", params: `{"name":"user_error","arguments":{}}`,
		wantText: []string{"Please pick a date in the future."}},
	{name: "tool panics", method: "tools/call", params: `{"name":"panic","arguments":{}}`,
		wantText: []string{`"panic"`, "internal error"}},
	{name: "tool times out", method: "tools/call", params: `{"name":"timeout","arguments":{}}`,
		wantText: []string{`"timeout"`, "timed out", "20ms"}},
	{name: "invalid arguments: wrong type", method: "tools/call", params: `{"name":"add","arguments":{"a":"one","b":2}}`,
		wantText: []string{`"add"`, `argument "a"`, "type"}},
	{name: "invalid arguments: missing required", method: "tools/call", params: `{"name":"add","arguments":{"a":1}}`,
		wantText: []string{`"add"`, "required", `"b"`}},
	{name: "invalid arguments: extra property", method: "tools/call", params: `{"name":"add","arguments":{"a":1,"b":2,"c":3}}`,
		wantText: []string{`"add"`, "additional", `"c"`}},
}

// errorServer is the engine test server plus a tool only "admin" sees.
func errorServer(t testing.TB) *mcp.Server {
	srv := newEngineServer(t, nil)
	mcp.AddTool(srv, mcp.Tool{Name: "admin_only", CanAccess: func(_ context.Context, auth any) bool { return auth == "admin" }},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "secret", nil })
	return srv
}

// outcome is what a transport answered: a JSON-RPC error or a tool result.
type outcome struct {
	code   int64
	data   json.RawMessage
	result *mcp.ContentResult
}

func checkOutcome(t *testing.T, row errorRow, got outcome) {
	t.Helper()
	if row.wantCode != 0 {
		require.Equal(t, row.wantCode, got.code, "want a JSON-RPC error; got result %+v", got.result)
		if row.wantData != nil {
			var data map[string]any
			require.NoError(t, json.Unmarshal(got.data, &data), "data %s", got.data)
			assert.Equal(t, row.wantData, data)
		}
		return
	}
	require.Zero(t, got.code, "want an isError result, got JSON-RPC error %d", got.code)
	require.NotNil(t, got.result)
	assert.True(t, got.result.IsError)
	for _, w := range row.wantText {
		assert.Contains(t, got.result.Text(), w)
	}
}

func TestErrorRowsOverStdio(t *testing.T) {
	t.Parallel()
	h := mcphttp.New(errorServer(t), nil)
	defer h.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- stdio.Serve(context.Background(), h, inR, outW, nil)
		_ = outW.Close()
	}()
	lines := make(chan msg, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m msg
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	defer func() {
		_ = inW.Close()
		require.NoError(t, <-served)
		for range lines {
		}
	}()
	send := func(line string) {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	await := func(id string) msg {
		timeout := time.After(10 * time.Second)
		for {
			select {
			case m, ok := <-lines:
				require.True(t, ok, "stdout closed")
				if m.IsResponse() && string(m.ID) == id {
					return m
				}
			case <-timeout:
				t.Fatalf("no response %s", id)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	await(`"init"`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// Rows run one after the other on the one stdio session.
	for i, row := range errorRows {
		t.Run(row.name, func(t *testing.T) {
			line := row.line
			id := "null"
			if line == "" {
				id = fmt.Sprint(100 + i)
				line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, row.method, row.params)
			} else if row.wantCode != -32700 {
				id = "1" // the raw lines' id, echoed when it could be read
			}
			send(line)
			m := await(id)
			var got outcome
			if m.Error != nil {
				got = outcome{code: m.Error.Code, data: m.Error.Data}
			} else {
				got.result = wiretest.ToolResult(t, m)
			}
			checkOutcome(t, row, got)
		})
	}
}

func TestErrorRowsEmbedded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := mcptest.NewSession(t, errorServer(t), nil).Client()
	for _, row := range errorRows {
		if row.noEmbed != "" {
			continue // a row the embedded transport cannot send: see noEmbed
		}
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			method := row.method
			if row.line != "" {
				method = row.embedMethod
			}
			var params any
			if row.params != "" {
				params = json.RawMessage(row.params)
			}
			var result mcp.ContentResult
			err := e.Call(ctx, method, params, &result)
			var got outcome
			var je *mcp.Error
			switch {
			case errors.As(err, &je):
				got.code = je.Code
				if je.Data != nil {
					got.data, _ = json.Marshal(je.Data)
				}
			case err != nil:
				t.Fatalf("transport error: %v", err)
			default:
				got.result = &result
			}
			checkOutcome(t, row, got)
		})
	}
}
