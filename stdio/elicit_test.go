package stdio_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/wiretest"
)

type stdioForm struct {
	Size string   `json:"size" enum:"s,l" enumTitles:"Small,Large"`
	Tops []string `json:"tops,omitempty" enum:"ham,basil"`
}

// TestServeElicitation: over stdio, at 2025-11-25, URL-mode elicitation
// (its request, the -32042 error, the completion notification on the one
// session's output) and a typed form; at 2026-07-28 both are
// input-required rounds.
func TestServeElicitation(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "elicit", Version: "1.0.0", Logger: discard()})
	sessions := make(chan string, 1)
	mcp.AddTool(srv, mcp.Tool{Name: "connect"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: "e1", URL: "https://example.com/c?id=e1", Message: "Connect"})
		if err != nil {
			return "", err
		}
		return res.Action, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "needs"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		sessions <- c.SessionID
		return "", elicit.URLRequired(elicit.URLRequest{ID: "e2", URL: "https://example.com/c?id=e2", Message: "Authorize"})
	})
	mcp.AddTool(srv, mcp.Tool{Name: "form"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		v, action, err := elicit.As[stdioForm](ctx, c, "Pizza?")
		if err != nil {
			return "", err
		}
		return action + " " + v.Size + " " + v.Tops[0], nil
	})
	p := startServe(t, context.Background(), newHandler(t, srv), nil)
	p.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"form":{},"url":{}}},"clientInfo":{"name":"t","version":"1"}}}`)
	p.response(`"init"`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"connect","arguments":{}}}`)
	req := p.next()
	require.Equal(t, "elicitation/create", req.Method)
	assert.JSONEq(t, `{"mode":"url","message":"Connect","elicitationId":"e1","url":"https://example.com/c?id=e1"}`, string(req.Params))
	p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"accept"}}`)
	m, _ := p.response("1")
	assert.Equal(t, "accept", wiretest.ToolResult(t, m).Text())

	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"needs","arguments":{}}}`)
	m, _ = p.response("2")
	require.NotNil(t, m.Error)
	assert.EqualValues(t, mcp.CodeURLElicitationRequired, m.Error.Code)
	assert.JSONEq(t, `{"elicitations":[{"mode":"url","message":"Authorize","elicitationId":"e2","url":"https://example.com/c?id=e2"}]}`, string(m.Error.Data))
	sid := <-sessions
	require.NotEmpty(t, sid, "stdio names its session")
	elicit.Complete(srv, sid, "e2")
	n := p.next()
	assert.Equal(t, "notifications/elicitation/complete", n.Method)
	assert.JSONEq(t, `{"elicitationId":"e2"}`, string(n.Params))

	p.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"form","arguments":{}}}`)
	req = p.next()
	require.Equal(t, "elicitation/create", req.Method)
	assert.JSONEq(t, `{"message":"Pizza?","requestedSchema":{"type":"object","properties":{
		"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
		"tops":{"type":"array","items":{"type":"string","enum":["ham","basil"]}}},"required":["size"]}}`, string(req.Params))
	p.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"accept","content":{"size":"l","tops":["basil"]}}}`)
	m, _ = p.response("3")
	assert.Equal(t, "accept l basil", wiretest.ToolResult(t, m).Text())

	// 2026-07-28 over the same pipe: input-required rounds.
	caps := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"url":{}}}}`
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"connect","arguments":{},` + caps + `}}`)
	m, _ = p.response("4")
	require.Nil(t, m.Error)
	assert.Contains(t, string(m.Result), `"resultType":"input_required"`)
	assert.Contains(t, string(m.Result), `"elicitation-1":{"method":"elicitation/create","params":{"mode":"url","message":"Connect","url":"https://example.com/c?id=e1"}}`)
	p.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"needs","arguments":{},` + caps + `}}`)
	m, _ = p.response("5")
	<-sessions
	require.Nil(t, m.Error, "no -32042 at 2026-07-28")
	assert.Contains(t, string(m.Result), `"elicitation-url-e2":{"method":"elicitation/create","params":{"mode":"url","message":"Authorize","url":"https://example.com/c?id=e2"}}`)
	p.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"form","arguments":{},` + caps + `}}`)
	m, _ = p.response("6")
	require.Nil(t, m.Error)
	assert.Contains(t, wiretest.ToolResult(t, m).Text(), "form-mode elicitation needs the client to declare elicitation.form", "a URL-only client gets no form")
}
