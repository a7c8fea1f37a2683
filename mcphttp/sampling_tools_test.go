package mcphttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

// loopServer's tool "plan" runs a tool loop offering its tool "weather".
func loopServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "loop", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "weather"}, func(_ context.Context, _ *mcp.Context, in struct {
		City string `json:"city"`
	}) (string, error) {
		return "18°C in " + in.City, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "plan"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		out, err := c.SampleWithTools(ctx, &mcp.CreateMessageParams{MaxTokens: 50,
			Messages: []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.Text("Weather in Paris?")}}},
			mcp.ToolLoop{Tools: srv, Names: []string{"weather"}})
		if err != nil {
			return "", err
		}
		return out.Result.Content.(mcp.TextContent).Text, nil
	})
	return srv
}

// scriptedModel answers a sampling request as a model with tools does:
// a tool use of "weather" first, then, once the request carries its
// result, text that quotes it. It checks the request's tools as it goes.
func scriptedModel(t *testing.T) answerer {
	return func(method string, params json.RawMessage) string {
		require.Equal(t, "sampling/createMessage", method)
		var p struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(params, &p))
		require.Len(t, p.Tools, 1)
		assert.Equal(t, "weather", p.Tools[0].Name)
		assert.Equal(t, "object", p.Tools[0].InputSchema["type"])
		last := p.Messages[len(p.Messages)-1]
		if !strings.Contains(string(last.Content), `"tool_result"`) {
			return `{"role":"assistant","model":"m","stopReason":"toolUse","content":[{"type":"tool_use","id":"c1","name":"weather","input":{"city":"Paris"}}]}`
		}
		var results []struct {
			ToolUseID string `json:"toolUseId"`
			Content   []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		require.NoError(t, json.Unmarshal(last.Content, &results), "%s", last.Content)
		require.Len(t, results, 1)
		assert.Equal(t, "c1", results[0].ToolUseID)
		return `{"role":"assistant","model":"m","stopReason":"endTurn","content":{"type":"text","text":"model saw: ` + results[0].Content[0].Text + `"}}`
	}
}

const toolsCaps = `{"sampling":{"tools":{}}}`

// TestSampleWithToolsOverTheWire runs the tool loop with a scripted client
// over Streamable HTTP (2025-11-25: server requests on the call's stream;
// 2026-07-28: input-required rounds) and stdio, and checks the refusal of
// a client whose sampling capability lacks tools.
func TestSampleWithToolsOverTheWire(t *testing.T) {
	t.Parallel()
	text := func(t *testing.T, res json.RawMessage) string {
		var r mcp.ContentResult
		require.NoError(t, json.Unmarshal(res, &r))
		return r.Text()
	}
	const want = "model saw: 18°C in Paris"
	for _, tr := range []struct {
		name string
		call func(*testing.T, *mcp.Server, string, string, answerer) (sent, json.RawMessage)
	}{{"http 2025-11-25", httpCallWith}, {"stdio", stdioCallWith}} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			_, res := tr.call(t, loopServer(), toolsCaps, `{"name":"plan","arguments":{}}`, scriptedModel(t))
			assert.Equal(t, want, text(t, res))
		})
		t.Run(tr.name+" without sampling.tools", func(t *testing.T) {
			t.Parallel()
			got, res := tr.call(t, loopServer(), `{"sampling":{}}`, `{"name":"plan","arguments":{}}`, fixedAnswer)
			assert.NotContains(t, got, "sampling/createMessage", "nothing is asked")
			assert.Contains(t, text(t, res), "sampling.tools")
		})
	}
	t.Run("http 2026-07-28", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(loopServer(), nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		model := scriptedModel(t)
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + toolsCaps + `}`
		extra := ""
		for round := 1; ; round++ {
			require.LessOrEqual(t, round, 3, "two sampling rounds, then the result")
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan","arguments":{},` + meta + extra + `}}`
			resp, msgs := modernPost(t, ts, body, "Mcp-Name", "plan")
			require.Equal(t, http.StatusOK, resp.StatusCode, "%v", msgs)
			var ir struct {
				ResultType    string `json:"resultType"`
				InputRequests map[string]struct {
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
				} `json:"inputRequests"`
				RequestState string `json:"requestState"`
			}
			res := msgs[len(msgs)-1].Result
			require.NoError(t, json.Unmarshal(res, &ir))
			if ir.ResultType != "input_required" {
				assert.Equal(t, want, text(t, res))
				assert.Equal(t, 3, round)
				return
			}
			require.Len(t, ir.InputRequests, 1)
			q, ok := ir.InputRequests["sampling-"+string(rune('0'+round))]
			require.True(t, ok, "round %d asks sampling-%d: %s", round, round, res)
			answers := map[string]json.RawMessage{"sampling-" + string(rune('0'+round)): json.RawMessage(model(q.Method, q.Params))}
			b, err := json.Marshal(answers)
			require.NoError(t, err)
			extra = `,"inputResponses":` + string(b) + `,"requestState":"` + ir.RequestState + `"`
		}
	})
	t.Run("http 2026-07-28 without sampling.tools", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(loopServer(), nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"plan","arguments":{},` +
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}`
		resp, msgs := modernPost(t, ts, body, "Mcp-Name", "plan")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		r := wiretest.ToolResult(t, msgs[len(msgs)-1])
		assert.True(t, r.IsError)
		assert.Contains(t, r.Text(), "sampling.tools")
	})
}
