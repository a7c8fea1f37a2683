package mcphttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
)

// urlForm is the form the "form" tool asks.
type urlForm struct {
	Color string `json:"color" enum:"r,g" enumTitles:"Red,Green"`
}

// newURLServer has the tools of the URL-elicitation tests: "connect" asks
// with ElicitURL during the call, "needs" returns URLElicitationRequired
// until *done is set, "form" asks a typed form.
func newURLServer() (*mcp.Server, *atomic.Bool) {
	srv := quietServer(mcp.Options{})
	done := new(atomic.Bool)
	mcp.AddTool(srv, mcp.Tool{Name: "connect"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := c.ElicitURL(ctx, mcp.URLElicitation{ID: "el-1", URL: "https://example.com/connect?id=el-1", Message: "Connect your account"})
		if errors.Is(err, mcp.ErrURLElicitation) {
			return "refused: " + err.Error(), nil
		} else if err != nil {
			return "", err
		}
		return res.Action, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "needs"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		if done.Load() {
			return "connected", nil
		}
		return "", mcp.URLElicitationRequired(mcp.URLElicitation{ID: "el-2", URL: "https://example.com/connect?id=el-2", Message: "Authorize"})
	})
	mcp.AddTool(srv, mcp.Tool{Name: "form"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		v, action, err := mcp.ElicitAs[urlForm](ctx, c, "Pick a color")
		if errors.Is(err, mcp.ErrCapability) {
			return "refused: " + err.Error(), nil
		} else if err != nil {
			return "", err
		}
		return action + " " + v.Color, nil
	})
	return srv, done
}

const (
	urlConnect = `{"mode":"url","message":"Connect your account","elicitationId":"el-1","url":"https://example.com/connect?id=el-1"}`
	urlNeeds   = `{"mode":"url","message":"Authorize","elicitationId":"el-2","url":"https://example.com/connect?id=el-2"}`
)

// nextData returns the next event of s that carries a message.
func nextData(t *testing.T, s *sseStream) msg {
	t.Helper()
	for {
		if ev := s.mustNext(); ev.HasData && ev.Data != "" {
			return ev.msg(t)
		}
	}
}

// TestURLElicitationHTTP: at 2025-11-25 over Streamable HTTP, ElicitURL is
// an elicitation/create request in URL mode with the elicitationId;
// URLElicitationRequired is the -32042 error with data.elicitations;
// CompleteElicitation reaches the asking session's GET stream (and no
// other session); a client without elicitation.url is never sent either
// and gets results that say why; a URL-only client gets no form.
func TestURLElicitationHTTP(t *testing.T) {
	t.Parallel()
	srv, _ := newURLServer()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	c, _ := newHTTP(t, srv, nil)
	c.initWith(`{"elicitation":{"form":{},"url":{}}}`, "url-client")
	other, _ := newHTTP(t, srv, nil)
	other.url = c.url
	other.initWith(`{"elicitation":{"url":{}}}`, "other")
	get := c.getStream(ctx)
	otherGet := other.getStream(ctx)

	s := c.open(ctx, http.MethodPost, toolCall(1, "connect", `{}`))
	req := nextData(t, s)
	require.Equal(t, "elicitation/create", req.Method)
	assert.JSONEq(t, urlConnect, string(req.Params), "URL mode with its elicitationId, no requestedSchema")
	status, _ := c.post(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"accept"}}`)
	require.Equal(t, http.StatusAccepted, status)
	res := nextData(t, s)
	require.True(t, res.IsResponse())
	assert.Equal(t, "accept", wiretest.ToolResult(t, res).Text())

	resp, before := c.call(2, "tools/call", `{"name":"needs","arguments":{}}`)
	assert.Empty(t, before)
	require.NotNil(t, resp.Error, "a -32042 error, not a result")
	assert.Equal(t, int64(mcp.CodeURLElicitationRequired), resp.Error.Code)
	assert.Contains(t, resp.Error.Message, "Authorize")
	assert.JSONEq(t, `{"elicitations":[`+urlNeeds+`]}`, string(resp.Error.Data))

	srv.CompleteElicitation("no-such-session", "el-9")
	srv.CompleteElicitation(c.sid, "el-2")
	srv.CompleteElicitation(other.sid, "el-3")
	n := nextData(t, get)
	assert.Equal(t, "notifications/elicitation/complete", n.Method)
	assert.JSONEq(t, `{"elicitationId":"el-2"}`, string(n.Params), "the asking session gets its own, first")
	n = nextData(t, otherGet)
	assert.JSONEq(t, `{"elicitationId":"el-3"}`, string(n.Params))

	// URL mode only: a form is refused before anything is sent.
	resp, before = other.call(3, "tools/call", `{"name":"form","arguments":{}}`)
	assert.Empty(t, before)
	assert.Contains(t, wiretest.ToolResult(t, resp).Text(), "refused: mcp: the client did not declare that capability: form-mode elicitation needs the client to declare elicitation.form")

	// Form mode only ({} is form only): nothing in URL mode is sent.
	formOnly, _ := newHTTP(t, srv, nil)
	formOnly.initWith(`{"elicitation":{}}`, "form-only")
	resp, before = formOnly.call(4, "tools/call", `{"name":"connect","arguments":{}}`)
	assert.Empty(t, before, "no elicitation/create")
	assert.Contains(t, wiretest.ToolResult(t, resp).Text(), "refused: mcp: the client did not declare that capability: URL-mode elicitation needs the client to declare the capability elicitation.url")
	resp, before = formOnly.call(5, "tools/call", `{"name":"needs","arguments":{}}`)
	assert.Empty(t, before)
	require.Nil(t, resp.Error, "no -32042 to a client that cannot show it")
	r := wiretest.ToolResult(t, resp)
	assert.True(t, r.IsError)
	assert.Equal(t, `Tool "needs" needs the user to open a page outside the client (Authorize), but the client did not declare URL-mode elicitation (capability elicitation.url).`, r.Text())
}

// TestURLElicitationFormWire: a typed form goes out as a flat
// requestedSchema with a titled enum and no mode (older clients), and the
// answer comes back decoded.
func TestURLElicitationFormWire(t *testing.T) {
	t.Parallel()
	srv, _ := newURLServer()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _ := newHTTP(t, srv, nil)
	c.initWith(`{"elicitation":{}}`, "form-client")
	s := c.open(ctx, http.MethodPost, toolCall(1, "form", `{}`))
	req := nextData(t, s)
	require.Equal(t, "elicitation/create", req.Method)
	assert.JSONEq(t, `{"message":"Pick a color","requestedSchema":{"type":"object","properties":{
		"color":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}]}},"required":["color"]}}`, string(req.Params))
	status, _ := c.post(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"accept","content":{"color":"g"}}}`)
	require.Equal(t, http.StatusAccepted, status)
	assert.Equal(t, "accept g", wiretest.ToolResult(t, nextData(t, s)).Text())
}

// TestURLElicitationModern: at 2026-07-28 ElicitURL is an input-required
// round in URL mode without an elicitationId; a tool's
// URLElicitationRequired becomes a round asking the elicitation, asked
// again while the tool still needs it after the user accepted, ended with
// an isError result when the user declines; without elicitation.url
// nothing is asked.
func TestURLElicitationModern(t *testing.T) {
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

// TestURLElicitationHandWrittenError: a -32042 error a tool builds by hand
// is read from its data as the wire has it; one without elicitations, or
// with an elicitation lacking its URL, is an internal error naming the
// tool.
func TestURLElicitationHandWrittenError(t *testing.T) {
	t.Parallel()
	srv := quietServer(mcp.Options{})
	for name, data := range map[string]any{
		"by-hand": map[string]any{"elicitations": []any{map[string]any{"mode": "url", "elicitationId": "x", "url": "https://a.example/x", "message": "Go"}}},
		"empty":   map[string]any{},
		"no-url":  map[string]any{"elicitations": []any{map[string]any{"mode": "url", "elicitationId": "x", "message": "Go"}}},
	} {
		mcp.AddTool(srv, mcp.Tool{Name: name}, func(context.Context, *mcp.Context, struct{}) (string, error) {
			return "", &mcp.Error{Code: mcp.CodeURLElicitationRequired, Message: "needed", Data: data}
		})
	}
	c, _ := newHTTP(t, srv, nil)
	c.initWith(`{"elicitation":{"url":{}}}`, "x")
	for i, tc := range []struct{ name, code, msg string }{
		{"by-hand", "-32042", "needed"},
		{"empty", "-32603", `tool "empty" returned a URL elicitation required error (-32042) without data.elicitations`},
		{"no-url", "-32603", `tool "no-url": mcp: URLElicitation.URL: elicitation URL "" is not an absolute URL with a host`},
	} {
		resp, _ := c.call(i+1, "tools/call", `{"name":"`+tc.name+`","arguments":{}}`)
		require.NotNil(t, resp.Error, tc.name)
		assert.Equal(t, tc.code, fmt.Sprint(resp.Error.Code), tc.name)
		assert.Equal(t, tc.msg, resp.Error.Message, tc.name)
	}
}
