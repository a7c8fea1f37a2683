package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/sampling"
)

// irrUser is auth data with a subject, for the principal binding.
type irrUser string

func (u irrUser) Subject() string { return string(u) }

// newMRTRServer is a server whose tools, prompt and resource ask the
// client things, served with opts; a request with X-User is authenticated
// as that user.
func newMRTRServer(t *testing.T, opts *mcphttp.Options) *httptest.Server {
	t.Helper()
	h := mcphttp.New(newMRTRTools(), opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return ts
}

func newMRTRTools() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "mrtr-test", Version: "1.0.0", Logger: discardLogger(),
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return irrUser(u), nil
			}
			return nil, nil
		}})
	ask := func(msg, prop string) mcp.InputRequest {
		return mcp.InputRequest{Method: "elicitation/create", Params: map[string]any{"message": msg,
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{prop: map[string]any{"type": "string"}}}}}
	}
	text := func(raw json.RawMessage, prop string) string {
		var r elicit.Result
		_ = json.Unmarshal(raw, &r)
		return fmt.Sprint(r.Content[prop])
	}
	mcp.AddTool(srv, mcp.Tool{Name: "ask_name"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		out, err := c.Ask(ctx, map[string]mcp.InputRequest{"user_name": ask("Name?", "name")})
		if err != nil {
			return "", err
		}
		return "Hello, " + text(out["user_name"], "name") + "!", nil
	})
	type echoArgs struct {
		Say string `json:"say"`
		N   int    `json:"n,omitempty"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "ask_echo"}, func(ctx context.Context, c *mcp.Context, in echoArgs) (string, error) {
		out, err := c.Ask(ctx, map[string]mcp.InputRequest{"ok": ask("OK?", "ok")})
		if err != nil {
			return "", err
		}
		return in.Say + ":" + text(out["ok"], "ok"), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "two_steps"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		a, err := c.Ask(ctx, map[string]mcp.InputRequest{"step1": ask("Name?", "name")})
		if err != nil {
			return "", err
		}
		b, err := c.Ask(ctx, map[string]mcp.InputRequest{"step2": ask("Colour?", "color")})
		if err != nil {
			return "", err
		}
		return text(a["step1"], "name") + " likes " + text(b["step2"], "color"), nil
	})
	// One tool, both revisions: Elicit, Sample and Roots, nothing else.
	mcp.AddTool(srv, mcp.Tool{Name: "all_three"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		e, err := elicit.Create(ctx, c, &elicit.Params{Message: "Proceed?", RequestedSchema: map[string]any{"type": "object"}})
		if err != nil {
			return "", err
		}
		s, err := sampling.Create(ctx, c, &sampling.Request{Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text("Hi")}}, MaxTokens: 10})
		if err != nil {
			return "", err
		}
		parts := []string{e.Action, s.Model}
		if c.ClientCapabilities.Roots != nil {
			roots, err := c.Roots(ctx)
			if err != nil {
				return "", err
			}
			parts = append(parts, fmt.Sprint(len(roots)))
		}
		return strings.Join(parts, ","), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "elicit_or_say"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		_, err := elicit.Create(ctx, c, &elicit.Params{Message: "Proceed?", RequestedSchema: map[string]any{"type": "object"}})
		if errors.Is(err, mcp.ErrCapability) {
			return "no elicitation declared", nil
		}
		if err != nil {
			return "", err
		}
		return "elicited", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "swallow"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		// A tool that ignores the round's end: the round still ends.
		_, _ = c.Ask(ctx, map[string]mcp.InputRequest{"user_name": ask("Name?", "name")})
		return "went on without the answer", nil
	})
	srv.AddPrompt(mcp.Prompt{Name: "ask_prompt", Load: func(ctx context.Context, c *mcp.Context, _ map[string]string) (*mcp.PromptResult, error) {
		out, err := c.Ask(ctx, map[string]mcp.InputRequest{"user_context": ask("Context?", "context")})
		if err != nil {
			return nil, err
		}
		return mcp.UserText("ctx=" + text(out["user_context"], "context")), nil
	}})
	srv.AddResource(mcp.Resource{URI: "mem://asks", Name: "asks", Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
		out, err := c.Ask(ctx, map[string]mcp.InputRequest{"client_roots": {Method: "roots/list"}})
		if err != nil {
			return nil, err
		}
		return []mcp.ResourceContents{{Text: string(out["client_roots"])}}, nil
	}})
	srv.AddPrompt(mcp.Prompt{Name: "plain",
		Arguments: []mcp.PromptArgument{{Name: "x", Complete: func(ctx context.Context, _ string, _ map[string]string) ([]string, error) {
			_, err := elicit.Create(ctx, mcp.FromContext(ctx), &elicit.Params{Message: "?", RequestedSchema: map[string]any{"type": "object"}})
			return nil, err
		}}},
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("plain"), nil
		}})
	return srv
}

// allCaps declares every kind of question.
const allCaps = `{"elicitation":{},"sampling":{},"roots":{}}`

// mrtrRequest is a 2026-07-28 request of method on name (the Mcp-Name),
// with params (without _meta) and the client capabilities caps.
type mrtrRequest struct {
	method, name, params, caps string
	header                     []string
}

// request is the body of the request with extra params members
// (inputResponses, requestState), and its headers.
func (q mrtrRequest) request(extra string) (body string, header []string) {
	params := q.params
	if extra != "" {
		params += "," + extra
	}
	caps := q.caps
	if caps == "" {
		caps = allCaps
	}
	body = `{"jsonrpc":"2.0","id":7,"method":"` + q.method + `","params":{` + params +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	return body, append([]string{"Mcp-Name", q.name}, q.header...)
}

// send posts the request with extra params members (inputResponses,
// requestState) and returns the one response.
func (q mrtrRequest) send(t *testing.T, ts *httptest.Server, extra string) msg {
	t.Helper()
	body, header := q.request(extra)
	resp, msgs := rev20260728Post(t, ts, body, header...)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, msgs, 1)
	return msgs[0]
}

// serve is send with h serving the request on this goroutine, without a
// network: for a test in a synctest bubble, whose clock h then reads.
func (q mrtrRequest) serve(t *testing.T, h http.Handler, extra string) msg {
	t.Helper()
	body, header := q.request(extra)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, wiretest.NewRequest(t.Context(), http.MethodPost, "http://127.0.0.1/", body,
		append([]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", q.method}, header...)...))
	require.Equal(t, http.StatusOK, rec.Code, "%s", rec.Body)
	msgs := wiretest.ParseMessages(t, rec.Header().Get("Content-Type"), rec.Body.Bytes())
	require.Len(t, msgs, 1)
	return msgs[0]
}

// irr is an input-required result.
type irr struct {
	ResultType    string                      `json:"resultType"`
	InputRequests map[string]mcp.InputRequest `json:"inputRequests"`
	RequestState  string                      `json:"requestState"`
	Meta          map[string]json.RawMessage  `json:"_meta"`
	Extra         map[string]json.RawMessage  `json:"-"`
	raw           map[string]json.RawMessage
}

func decodeIRR(t *testing.T, m msg) irr {
	t.Helper()
	require.Nil(t, m.Error, "an input-required result, not an error")
	var r irr
	require.NoError(t, json.Unmarshal(m.Result, &r))
	require.NoError(t, json.Unmarshal(m.Result, &r.raw))
	require.Equal(t, "input_required", r.ResultType, "%s", m.Result)
	require.NotEmpty(t, r.RequestState)
	return r
}

func tool(name, args string) mrtrRequest {
	return mrtrRequest{method: "tools/call", name: name, params: `"name":"` + name + `","arguments":` + args}
}

func stateParam(s string) string { return `"requestState":` + mustJSON(s) }

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

const (
	acceptName = `{"action":"accept","content":{"name":"Alice"}}`
	sampled    = `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m1","stopReason":"endTurn"}`
	rootsList  = `{"roots":[{"uri":"file:///a","name":"a"},{"uri":"file:///b"}]}`
)

// TestInputRequiredRounds: each request kind that may ask ends round 1
// with an input-required result naming its questions, and completes in
// round 2 with the answers and the echoed state.
func TestInputRequiredRounds(t *testing.T) {
	t.Parallel()
	ts := newMRTRServer(t, nil)
	tests := []struct {
		name    string
		req     mrtrRequest
		methods map[string]string // key → method of round 1's questions
		answers string
		want    string // in round 2's result
	}{
		{"tools/call with Ask", tool("ask_name", `{}`), map[string]string{"user_name": "elicitation/create"},
			`{"user_name":` + acceptName + `}`, "Hello, Alice!"},
		{"Elicit, Sample and Roots under stable keys", tool("all_three", `{}`),
			map[string]string{"elicitation-1": "elicitation/create"},
			`{"elicitation-1":{"action":"accept"},"sampling-1":` + sampled + `,"roots-1":` + rootsList + `}`, "accept,m1,2"},
		{"prompts/get", mrtrRequest{method: "prompts/get", name: "ask_prompt", params: `"name":"ask_prompt"`},
			map[string]string{"user_context": "elicitation/create"},
			`{"user_context":{"action":"accept","content":{"context":"tests"}}}`, "ctx=tests"},
		{"resources/read", mrtrRequest{method: "resources/read", name: "mem://asks", params: `"uri":"mem://asks"`},
			map[string]string{"client_roots": "roots/list"}, `{"client_roots":` + rootsList + `}`, "file:///b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r1 := decodeIRR(t, tt.req.send(t, ts, ""))
			require.Len(t, r1.InputRequests, len(tt.methods))
			for k, m := range tt.methods {
				require.Contains(t, r1.InputRequests, k)
				assert.Equal(t, m, r1.InputRequests[k].Method)
			}
			assert.Contains(t, r1.Meta, "io.modelcontextprotocol/serverInfo")
			assert.NotContains(t, r1.raw, "ttlMs", "an input-required result is not cached")
			res := tt.req.send(t, ts, `"inputResponses":`+tt.answers+`,`+stateParam(r1.RequestState))
			require.Nil(t, res.Error)
			assert.Contains(t, string(res.Result), `"resultType":"complete"`)
			assert.Contains(t, string(res.Result), tt.want)
		})
	}
}

// TestInputRequiredStableKeys: Elicit, Sample and Roots ask one after the
// other; every round asks the next question under the same keys as
// before, and the state carries the answers already given.
func TestInputRequiredStableKeys(t *testing.T) {
	t.Parallel()
	ts := newMRTRServer(t, nil)
	q := tool("all_three", `{}`)
	r1 := decodeIRR(t, q.send(t, ts, ""))
	require.Equal(t, []string{"elicitation-1"}, keys(r1.InputRequests))
	r2 := decodeIRR(t, q.send(t, ts, `"inputResponses":{"elicitation-1":{"action":"decline"}},`+stateParam(r1.RequestState)))
	require.Equal(t, []string{"sampling-1"}, keys(r2.InputRequests))
	assert.Equal(t, "sampling/createMessage", r2.InputRequests["sampling-1"].Method)
	r3 := decodeIRR(t, q.send(t, ts, `"inputResponses":{"sampling-1":`+sampled+`},`+stateParam(r2.RequestState)))
	require.Equal(t, []string{"roots-1"}, keys(r3.InputRequests))
	assert.Equal(t, "roots/list", r3.InputRequests["roots-1"].Method)
	res := q.send(t, ts, `"inputResponses":{"roots-1":`+rootsList+`},`+stateParam(r3.RequestState))
	require.Nil(t, res.Error)
	assert.Equal(t, "decline,m1,2", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)
	assert.NotEqual(t, r1.RequestState, r2.RequestState)
	assert.NotEqual(t, r2.RequestState, r3.RequestState)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestInputRequiredMultiRound: round 2 asks the next question with a new
// state that carries round 1's answer; round 3 needs only the new answer.
func TestInputRequiredMultiRound(t *testing.T) {
	t.Parallel()
	ts := newMRTRServer(t, nil)
	q := tool("two_steps", `{}`)
	r1 := decodeIRR(t, q.send(t, ts, ""))
	require.Equal(t, []string{"step1"}, keys(r1.InputRequests))
	r2 := decodeIRR(t, q.send(t, ts, `"inputResponses":{"step1":`+acceptName+`},`+stateParam(r1.RequestState)))
	require.Equal(t, []string{"step2"}, keys(r2.InputRequests))
	assert.NotEqual(t, r1.RequestState, r2.RequestState, "each round's state differs")
	res := q.send(t, ts, `"inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}},`+stateParam(r2.RequestState))
	require.Nil(t, res.Error)
	assert.Equal(t, "Alice likes blue", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)

	// An answer an earlier round took stands: answering step1 again changes nothing.
	res = q.send(t, ts, `"inputResponses":{"step1":{"action":"accept","content":{"name":"Mallory"}},"step2":{"action":"accept","content":{"color":"red"}}},`+stateParam(r2.RequestState))
	require.Nil(t, res.Error)
	assert.Equal(t, "Alice likes red", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)

	// Round 1's state does not carry step1's answer: step2 alone is not enough.
	again := decodeIRR(t, q.send(t, ts, `"inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}},`+stateParam(r1.RequestState)))
	assert.Equal(t, []string{"step1"}, keys(again.InputRequests))
}

// TestInputRequiredStateRefused: a requestState that was altered, has
// expired, or was issued for another method, params, caller or key is a
// -32602 error that says which.
func TestInputRequiredStateRefused(t *testing.T) {
	t.Parallel()
	key := []byte("0123456789abcdef0123456789abcdef")
	ts := newMRTRServer(t, &mcphttp.Options{StateKey: key})
	other := newMRTRServer(t, &mcphttp.Options{StateKey: []byte("another key, also long enough")})
	stateOf := func(t *testing.T, ts *httptest.Server, q mrtrRequest) string {
		return decodeIRR(t, q.send(t, ts, "")).RequestState
	}
	echo := tool("ask_echo", `{"say":"hi"}`)
	alice := echo
	alice.header = []string{"X-User", "alice"}
	bob := echo
	bob.header = []string{"X-User", "bob"}
	prompt := mrtrRequest{method: "prompts/get", name: "ask_prompt", params: `"name":"ask_prompt"`}
	tests := []struct {
		name  string
		req   mrtrRequest
		state string
		want  string
	}{
		{"tampered", echo, stateOf(t, ts, echo) + "-TAMPERED", "fails its integrity check"},
		{"a byte changed", echo, flip(stateOf(t, ts, echo)), "fails its integrity check"},
		{"truncated", echo, stateOf(t, ts, echo)[:20], "fails its integrity check"},
		{"not base64", echo, "!!!", "fails its integrity check"},
		{"another key", echo, stateOf(t, other, echo), "sealed under another key"},
		{"another method", echo, stateOf(t, ts, prompt), `issued for "prompts/get", not "tools/call"`},
		{"other arguments", echo, stateOf(t, ts, tool("ask_echo", `{"say":"bye"}`)), "issued for other params"},
		{"another tool", echo, stateOf(t, ts, tool("ask_name", `{}`)), "issued for other params"},
		{"another caller", bob, stateOf(t, ts, alice), "issued to another caller"},
		{"anonymous state, signed-in caller", alice, stateOf(t, ts, echo), "issued to another caller"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := tt.req.send(t, ts, `"inputResponses":{"ok":{"action":"accept","content":{"ok":"yes"}}},`+stateParam(tt.state))
			require.NotNil(t, res.Error, "%s", res.Result)
			assert.Equal(t, int64(mcp.CodeInvalidParams), res.Error.Code)
			assert.Contains(t, res.Error.Message, tt.want)
		})
	}
	// A state outlives its StateTTL on the bubble's clock, which the
	// handler reads: no wait on the wall clock.
	t.Run("expired", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			h := mcphttp.New(newMRTRTools(), &mcphttp.Options{StateKey: key, StateTTL: time.Millisecond})
			defer h.Close()
			expired := decodeIRR(t, echo.serve(t, h, "")).RequestState
			time.Sleep(2 * time.Millisecond)
			res := echo.serve(t, h, `"inputResponses":{"ok":{"action":"accept","content":{"ok":"yes"}}},`+stateParam(expired))
			require.NotNil(t, res.Error, "%s", res.Result)
			assert.Equal(t, int64(mcp.CodeInvalidParams), res.Error.Code)
			assert.Contains(t, res.Error.Message, "has expired")
		})
	})
	t.Run("same caller, same params, member order changed", func(t *testing.T) {
		st := stateOf(t, ts, tool("ask_echo", `{"say":"hi","n":1}`))
		res := tool("ask_echo", `{"n":1,"say":"hi"}`).send(t, ts, `"inputResponses":{"ok":{"action":"accept","content":{"ok":"yes"}}},`+stateParam(st))
		require.Nil(t, res.Error)
		assert.Equal(t, "hi:yes", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)
	})
	t.Run("replicas sharing the key", func(t *testing.T) {
		replica := newMRTRServer(t, &mcphttp.Options{StateKey: key})
		st := stateOf(t, ts, alice)
		res := alice.send(t, replica, `"inputResponses":{"ok":{"action":"accept","content":{"ok":"yes"}}},`+stateParam(st))
		require.Nil(t, res.Error)
		assert.Equal(t, "hi:yes", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)
	})
}

// flip changes one character in the middle of a state.
func flip(s string) string {
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// TestInputResponsesChecked: malformed inputResponses are -32602 and the
// tool does not complete; a missing or wrong key asks again; unknown
// extra keys are ignored.
func TestInputResponsesChecked(t *testing.T) {
	t.Parallel()
	ts := newMRTRServer(t, nil)
	q := tool("ask_name", `{}`)
	tests := []struct {
		name  string
		extra string
		code  int64  // 0: a result
		want  string // in the error message, or the result
		irr   bool
	}{
		{"number instead of a result", `"inputResponses":{"user_name":12345}`, mcp.CodeInvalidParams, `inputResponses["user_name"] must be an object (the client's result), not a number`, false},
		{"null", `"inputResponses":null`, mcp.CodeInvalidParams, "inputResponses must be an object of the client's results by key, not null", false},
		{"an array", `"inputResponses":[]`, mcp.CodeInvalidParams, "not an array", false},
		{"an unknown key holding a string", `"inputResponses":{"user_name":` + acceptName + `,"x":"y"}`, mcp.CodeInvalidParams, `inputResponses["x"] must be an object`, false},
		{"elicitation result without action", `"inputResponses":{"user_name":{"content":{"name":"A"}}}`, mcp.CodeInvalidParams, `inputResponses["user_name"] is not a elicitation/create result`, false},
		{"requestState not a string", `"inputResponses":{},"requestState":5`, mcp.CodeInvalidParams, "requestState must be the non-empty string", false},
		{"requestState empty", `"requestState":""`, mcp.CodeInvalidParams, "requestState must be the non-empty string", false},
		{"wrong key asks again", `"inputResponses":{"wrong_key":` + acceptName + `}`, 0, "", true},
		{"empty answers ask again", `"inputResponses":{}`, 0, "", true},
		{"extra keys ignored", `"inputResponses":{"user_name":` + acceptName + `,"unknown_extra_key":{"action":"accept"},"more":{}}`, 0, "Hello, Alice!", false},
		{"no state needed", `"inputResponses":{"user_name":` + acceptName + `}`, 0, "Hello, Alice!", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := q.send(t, ts, tt.extra)
			switch {
			case tt.code != 0:
				require.NotNil(t, res.Error, "%s", res.Result)
				assert.Equal(t, tt.code, res.Error.Code)
				assert.Contains(t, res.Error.Message, tt.want)
			case tt.irr:
				r := decodeIRR(t, res)
				assert.Equal(t, []string{"user_name"}, keys(r.InputRequests))
			default:
				require.Nil(t, res.Error)
				assert.Equal(t, tt.want, wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)
			}
		})
	}
	t.Run("sampling and roots answers are checked too", func(t *testing.T) {
		q := tool("all_three", `{}`)
		res := q.send(t, ts, `"inputResponses":{"elicitation-1":{"action":"accept"},"sampling-1":{"model":"m"}}`)
		require.NotNil(t, res.Error)
		assert.Contains(t, res.Error.Message, `is not a sampling/createMessage result: it needs "role" and "content"`)
		res = q.send(t, ts, `"inputResponses":{"elicitation-1":{"action":"accept"},"sampling-1":`+sampled+`,"roots-1":{"roots":{}}}`)
		require.NotNil(t, res.Error)
		assert.Contains(t, res.Error.Message, `"roots" must be an array`)
	})
	t.Run("a tool that swallows the round's end still ends it", func(t *testing.T) {
		r := decodeIRR(t, tool("swallow", `{}`).send(t, ts, ""))
		assert.Equal(t, []string{"user_name"}, keys(r.InputRequests))
	})
}

// TestInputRequiredCapabilities: questions go only through the kinds this
// request's clientCapabilities declared.
func TestInputRequiredCapabilities(t *testing.T) {
	t.Parallel()
	ts := newMRTRServer(t, nil)
	q := tool("elicit_or_say", `{}`)
	q.caps = `{"sampling":{}}`
	res := q.send(t, ts, "")
	require.Nil(t, res.Error)
	assert.Contains(t, string(res.Result), `"resultType":"complete"`)
	assert.Equal(t, "no elicitation declared", wiretest.ToolResult(t, res).Content[0].(mcp.TextContent).Text)

	q.caps = `{"elicitation":{}}`
	r := decodeIRR(t, q.send(t, ts, ""))
	assert.Equal(t, "elicitation/create", r.InputRequests["elicitation-1"].Method)

	q = tool("ask_name", `{}`)
	q.caps = `{}`
	res = q.send(t, ts, "")
	require.Nil(t, res.Error)
	tr := wiretest.ToolResult(t, res)
	assert.True(t, tr.IsError, "Ask without the capability fails in the tool")
	assert.NotContains(t, string(res.Result), "input_required")
}

// TestInputRequiredOnlyWhereAllowed: lists never answer with an
// input-required result, and a question asked while serving another
// method is a clear error.
func TestInputRequiredOnlyWhereAllowed(t *testing.T) {
	t.Parallel()
	ts := newMRTRServer(t, nil)
	for _, method := range []string{"tools/list", "prompts/list", "resources/list"} {
		body := `{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{"inputResponses":{"user_name":` + acceptName + `},` + rev20260728Meta("") + `}}`
		_, msgs := rev20260728Post(t, ts, body)
		require.Len(t, msgs, 1)
		require.Nil(t, msgs[0].Error, method)
		assert.NotContains(t, string(msgs[0].Result), "input_required", method)
	}
	body := `{"jsonrpc":"2.0","id":7,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"plain"},"argument":{"name":"x","value":""},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + allCaps + `}}}`
	_, msgs := rev20260728Post(t, ts, body)
	require.Len(t, msgs, 1)
	require.NotNil(t, msgs[0].Error, "%s", msgs[0].Result)
	assert.Contains(t, msgs[0].Error.Message, "only while serving tools/call, prompts/get and resources/read")
}

// TestInputRequiredLegacySession: the same tool, on a 2025-11-25 session,
// asks with server-to-client requests on the call's stream, as before.
func TestInputRequiredLegacySession(t *testing.T) {
	t.Parallel()
	c, _ := newHTTP(t, newMRTRTools(), nil)
	c.initWith(`{"elicitation":{},"sampling":{}}`, "legacy")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := c.open(ctx, http.MethodPost, toolCall(9, "all_three", `{}`))
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	answers := map[string]string{"elicitation/create": `{"action":"accept"}`, "sampling/createMessage": sampled}
	var final msg
	for final.Result == nil && final.Error == nil {
		m := nextData(t, s)
		if m.IsResponse() {
			final = m
			break
		}
		a, ok := answers[m.Method]
		require.True(t, ok, "unexpected request %s", m.Method)
		status, _ := c.post(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + a + `}`)
		require.Equal(t, http.StatusAccepted, status)
		delete(answers, m.Method)
	}
	require.Nil(t, final.Error)
	assert.Empty(t, answers, "both questions were server-to-client requests")
	assert.Equal(t, "accept,m1", wiretest.ToolResult(t, final).Content[0].(mcp.TextContent).Text)
	assert.NotContains(t, string(final.Result), "resultType")
}

// TestStateKeyTooShort: a short StateKey is a configuration error.
func TestStateKeyTooShort(t *testing.T) {
	t.Parallel()
	assert.PanicsWithError(t, "mcphttp: Options.StateKey has 5 bytes; it needs at least 16 (32 random bytes recommended)", func() {
		mcphttp.New(newMRTRTools(), &mcphttp.Options{StateKey: []byte("short")})
	})
}

// TestURLElicitationRev20260728: at 2026-07-28 ElicitURL is an input-required
// round in URL mode without an elicitationId; a tool's
// URLElicitationRequired becomes a round asking the elicitation, asked
// again while the tool still needs it after the user accepted, ended with
// an isError result when the user declines; without elicitation.url
// nothing is asked.
func TestURLElicitationRev20260728(t *testing.T) {
	t.Parallel()
	const urlCaps = `{"elicitation":{"url":{}}}`
	serve := func(t *testing.T) (*httptest.Server, *atomic.Bool) {
		srv, done := newURLServer()
		h := mcphttp.New(srv, nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		return ts, done
	}
	answer := func(key, action, state string) string {
		return `"inputResponses":{"` + key + `":{"action":"` + action + `"}},` + stateParam(state)
	}
	t.Run("ElicitURL", func(t *testing.T) {
		t.Parallel()
		ts, _ := serve(t)
		q := tool("connect", `{}`)
		q.caps = urlCaps
		r := decodeIRR(t, q.send(t, ts, ""))
		require.Equal(t, []string{"elicitation-1"}, keys(r.InputRequests))
		assert.Equal(t, "elicitation/create", r.InputRequests["elicitation-1"].Method)
		b, _ := json.Marshal(r.InputRequests["elicitation-1"].Params)
		assert.JSONEq(t, `{"mode":"url","message":"Connect your account","url":"https://example.com/connect?id=el-1"}`, string(b), "no elicitationId at 2026-07-28")
		m := q.send(t, ts, answer("elicitation-1", "accept", r.RequestState))
		require.Nil(t, m.Error)
		assert.Equal(t, "accept", wiretest.ToolResult(t, m).Text())
	})
	t.Run("URLElicitationRequired", func(t *testing.T) {
		t.Parallel()
		ts, done := serve(t)
		q := tool("needs", `{}`)
		q.caps = urlCaps
		r := decodeIRR(t, q.send(t, ts, ""))
		require.Equal(t, []string{"elicitation-url-el-2"}, keys(r.InputRequests), "not a -32042 error")
		b, _ := json.Marshal(r.InputRequests["elicitation-url-el-2"].Params)
		assert.JSONEq(t, `{"mode":"url","message":"Authorize","url":"https://example.com/connect?id=el-2"}`, string(b))
		// Accepted, but the page is not done yet: asked again.
		r = decodeIRR(t, q.send(t, ts, answer("elicitation-url-el-2", "accept", r.RequestState)))
		require.Equal(t, []string{"elicitation-url-el-2-2"}, keys(r.InputRequests))
		done.Store(true)
		m := q.send(t, ts, answer("elicitation-url-el-2-2", "accept", r.RequestState))
		require.Nil(t, m.Error)
		assert.Equal(t, "connected", wiretest.ToolResult(t, m).Text())
	})
	t.Run("declined", func(t *testing.T) {
		t.Parallel()
		ts, _ := serve(t)
		q := tool("needs", `{}`)
		q.caps = urlCaps
		r := decodeIRR(t, q.send(t, ts, ""))
		m := q.send(t, ts, answer("elicitation-url-el-2", "decline", r.RequestState))
		require.Nil(t, m.Error)
		res := wiretest.ToolResult(t, m)
		assert.True(t, res.IsError)
		assert.Equal(t, `Tool "needs" needs the user to open a page outside the client (Authorize); the user did not (decline).`, res.Text())
	})
	t.Run("form mode only", func(t *testing.T) {
		t.Parallel()
		ts, _ := serve(t)
		for name, want := range map[string]string{
			"connect": "refused: mcp: the client did not declare that capability: URL-mode elicitation needs the client to declare the capability elicitation.url",
			"needs":   "but the client did not declare URL-mode elicitation (capability elicitation.url)",
		} {
			q := tool(name, `{}`)
			q.caps = `{"elicitation":{}}`
			m := q.send(t, ts, "")
			require.Nil(t, m.Error)
			var rt struct {
				ResultType string `json:"resultType"`
			}
			require.NoError(t, json.Unmarshal(m.Result, &rt))
			assert.Equal(t, "complete", rt.ResultType, "%s: nothing asked", name)
			assert.Contains(t, wiretest.ToolResult(t, m).Text(), want, name)
		}
	})
}
