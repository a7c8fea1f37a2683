package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
)

// metaServer's tool, resource and prompt each answer with what the
// request's _meta said: the tenant (a string) and the trace (an object).
func metaServer(t *testing.T) *mcp.Server {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "meta", Version: "1.0.0", Logger: discardLogger()})
	describe := func(c *mcp.Context) string {
		tenant, _ := mcp.MetaValue[string](c, "example.com/tenant")
		trace, ok := mcp.MetaValue[struct {
			ID string `json:"id"`
		}](c, "example.com/trace")
		_, wrongType := mcp.MetaValue[int](c, "example.com/tenant")
		raw, _ := c.Meta("example.com/trace")
		return fmt.Sprintf("tenant=%s trace=%s/%v int=%v raw=%s", tenant, trace.ID, ok, wrongType, raw)
	}
	mcp.AddTool(srv, mcp.Tool{Name: "who"}, func(ctx context.Context, c *mcp.Context, in struct{}) (string, error) {
		return describe(c), nil
	})
	srv.AddPrompt(mcp.Prompt{Name: "who", Load: func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
		return mcp.UserText(describe(c)), nil
	}})
	srv.AddResource(mcp.Resource{URI: "mem://who", Name: "who", Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: describe(c)}}, nil
	}})
	return srv
}

const (
	metaMembers = `"example.com/tenant":"acme","example.com/trace":{"id":"t-1"}`
	metaWant    = `tenant=acme trace=t-1/true int=false raw={"id":"t-1"}`
	metaNone    = `tenant= trace=/false int=false raw=`
)

// TestRequestMetaReachesHandlers: the request's params._meta reaches the
// tool, prompt and resource handlers (mcp.Context.Meta, mcp.MetaValue) over
// Streamable HTTP at 2025-11-25 and 2026-07-28, over stdio, and in an
// embedded session; without _meta they see nothing.
func TestRequestMetaReachesHandlers(t *testing.T) {
	t.Parallel()
	requests := func(meta string) map[string]string {
		m := ""
		if meta != "" {
			m = `,"_meta":{` + meta + `}`
		}
		return map[string]string{
			"tools/call":     `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"who","arguments":{}` + m + `}}`,
			"prompts/get":    `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"who"` + m + `}}`,
			"resources/read": `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"mem://who"` + m + `}}`,
		}
	}
	textOf := func(t *testing.T, method string, answer json.RawMessage) string {
		t.Helper()
		var m struct {
			Result struct {
				Content  []struct{ Text string } `json:"content"`
				Messages []struct {
					Content struct{ Text string } `json:"content"`
				} `json:"messages"`
				Contents []struct{ Text string } `json:"contents"`
			} `json:"result"`
			Error json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal(answer, &m), "%s", answer)
		require.Nil(t, m.Error, "%s: %s", method, answer)
		switch method {
		case "tools/call":
			return m.Result.Content[0].Text
		case "prompts/get":
			return m.Result.Messages[0].Content.Text
		}
		return m.Result.Contents[0].Text
	}

	for _, tr := range []struct {
		name  string
		start func(testing.TB, *mcp.Server, ...func(http.Handler) http.Handler) wiretest.RPCClient
	}{{"http 2025-11-25", wiretest.StartHTTP}, {"stdio", wiretest.StartStdio}} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			c := tr.start(t, metaServer(t))
			wiretest.Initialize(t, c)
			for meta, want := range map[string]string{metaMembers: metaWant, "": metaNone} {
				for method, body := range requests(meta) {
					assert.Equal(t, want, textOf(t, method, c.Send(t, body)), "%s with _meta {%s}", method, meta)
				}
			}
		})
	}

	t.Run("http 2026-07-28", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(metaServer(t), nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		for method, body := range map[string]string{
			"tools/call":     modernBody("tools/call", `"name":"who","arguments":{}`),
			"prompts/get":    modernBody("prompts/get", `"name":"who"`),
			"resources/read": modernBody("resources/read", `"uri":"mem://who"`),
		} {
			body = body[:len(body)-3] + "," + metaMembers + "}}}" // the members go into _meta
			name := map[string]string{"tools/call": "who", "prompts/get": "who", "resources/read": "mem://who"}[method]
			resp, msgs := modernPost(t, ts, body, "Mcp-Name", name)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %v", method, msgs)
			require.Len(t, msgs, 1)
			raw, err := json.Marshal(map[string]any{"result": json.RawMessage(msgs[0].Result)})
			require.NoError(t, err)
			assert.Equal(t, metaWant, textOf(t, method, raw), method)
		}
	})

	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run("embedded "+string(version), func(t *testing.T) {
			t.Parallel()
			e := mcptest.NewSession(t, metaServer(t), &mcptest.Options{Client: client.Options{ProtocolVersion: version}}).Client()
			var res mcp.ContentResult
			require.NoError(t, e.Call(t.Context(), "tools/call", map[string]any{"name": "who", "arguments": map[string]any{},
				"_meta": map[string]any{"example.com/tenant": "acme", "example.com/trace": map[string]string{"id": "t-1"}}}, &res))
			assert.Equal(t, metaWant, res.Text())
		})
	}
}
