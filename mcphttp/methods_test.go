package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubscriptionsAreBounded: a session's resource subscriptions are
// kept for its life (in memory and in the session store), so one client
// could make the server hold any number of URIs of 4 MiB each. A session
// subscribes to at most 1024 URIs of at most 8 KiB; beyond either,
// resources/subscribe is -32602 naming the bound, and the session keeps
// what it had. Subscribing again to a URI, or after an unsubscribe, works.
func TestSubscriptionsAreBounded(t *testing.T) {
	t.Parallel()
	srv := quietServer(mcp.Options{})
	srv.AddResource(mcp.Resource{URI: "mem://a", Name: "a", Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{{Text: "a"}}, nil
	}})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(h, nil), &client.Options{Logger: discardLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	var re *mcp.Error
	err = c.Subscribe(ctx, "mem://"+strings.Repeat("x", 8<<10))
	require.ErrorAs(t, err, &re, "a URI over 8 KiB")
	assert.Equal(t, int64(mcp.CodeInvalidParams), re.Code)
	assert.Contains(t, re.Message, "8192")

	for i := range 1024 {
		require.NoError(t, c.Subscribe(ctx, fmt.Sprintf("mem://r/%d", i)), "subscription %d", i)
	}
	require.NoError(t, c.Subscribe(ctx, "mem://r/7"), "again to a URI it has")
	err = c.Subscribe(ctx, "mem://r/1024")
	require.ErrorAs(t, err, &re, "one more")
	assert.Equal(t, int64(mcp.CodeInvalidParams), re.Code)
	assert.Contains(t, re.Message, "1024")
	require.NoError(t, c.Unsubscribe(ctx, "mem://r/0"))
	require.NoError(t, c.Subscribe(ctx, "mem://r/1024"), "room again after an unsubscribe")
}

// TestListenSubscriptionsAreBounded: the same bounds hold for the
// resourceSubscriptions of a subscriptions/listen stream (2026-07-28).
func TestListenSubscriptionsAreBounded(t *testing.T) {
	t.Parallel()
	ts, _ := newRev20260728Server(t, nil, nil)
	many := make([]string, 1025)
	for i := range many {
		many[i] = fmt.Sprintf(`"mem://r/%d"`, i)
	}
	for name, list := range map[string]string{
		"1025 URIs":        strings.Join(many, ","),
		"a URI over 8 KiB": `"mem://` + strings.Repeat("x", 8<<10) + `"`,
	} {
		resp, msgs := rev20260728Post(t, ts, rev20260728Body("subscriptions/listen", `"notifications":{"resourceSubscriptions":[`+list+`]}`),
			"Mcp-Method", "subscriptions/listen")
		assert.Equal(t, http.StatusOK, resp.StatusCode, name)
		require.Len(t, msgs, 1, name)
		require.NotNil(t, msgs[0].Error, name)
		assert.Equal(t, int64(mcp.CodeInvalidParams), msgs[0].Error.Code, name)
	}
}

// transformedServer has a typed tool "book" and its transform "book_room":
// room renamed, floor hidden and fixed, nights defaulted, a wrapper that
// adds a line; the source is removed, so only the transform is listed.
func transformedServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "transform", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "book"}, func(_ context.Context, _ *mcp.Context, in struct {
		Room   string `json:"room"`
		Floor  int    `json:"floor"`
		Nights int    `json:"nights,omitempty"`
	}) (string, error) {
		return fmt.Sprintf("room %s on floor %d for %d nights", in.Room, in.Floor, in.Nights), nil
	})
	srv.AddTransformedTool("book", mcp.Transform{Name: "book_room", Description: "Book a room on the third floor",
		Args: map[string]mcp.ArgTransform{
			"room":   {Name: "number", Description: "the room number"},
			"floor":  {Hide: true, Value: 3},
			"nights": {Default: 1},
		},
		Wrap: func(ctx context.Context, c *mcp.Context, args map[string]any, next mcp.ToolCall) (*mcp.ContentResult, error) {
			res, err := next(ctx, args)
			if err == nil && !res.IsError {
				res.Content = append(res.Content, mcp.Text("booked"))
			}
			return res, err
		}})
	srv.Registry().Remove(mcp.KindTool, "book")
	return srv
}

const bookRoomSchema = `{"type":"object","additionalProperties":false,"required":["number"],"properties":{
	"number":{"type":"string","description":"the room number"},"nights":{"type":"integer","default":1}}}`

// TestTransformedToolOverHTTP: tools/list and tools/call of a derived tool
// at 2025-11-25 and 2026-07-28: the derived schema is listed, a call is
// mapped to the source, a hidden argument is refused.
func TestTransformedToolOverHTTP(t *testing.T) {
	t.Parallel()
	t.Run("2025-11-25", func(t *testing.T) {
		t.Parallel()
		c, _ := newHTTP(t, transformedServer(), nil)
		c.initialize("2025-11-25")
		res, _ := c.call(1, "tools/list", "")
		var list struct {
			Tools []json.RawMessage `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(res.Result, &list))
		require.Len(t, list.Tools, 1)
		assert.JSONEq(t, `{"name":"book_room","description":"Book a room on the third floor","inputSchema":`+bookRoomSchema+`}`, string(list.Tools[0]))

		res, _ = c.call(2, "tools/call", `{"name":"book_room","arguments":{"number":"12"}}`)
		r := wiretest.ToolResult(t, res)
		require.False(t, r.IsError, "%+v", r)
		assert.Equal(t, []mcp.Content{mcp.Text("room 12 on floor 3 for 1 nights"), mcp.Text("booked")}, r.Content)

		res, _ = c.call(3, "tools/call", `{"name":"book_room","arguments":{"number":"12","floor":1}}`)
		r = wiretest.ToolResult(t, res)
		assert.True(t, r.IsError)
		assert.Contains(t, r.Content[0].(mcp.TextContent).Text, `argument "floor" is not accepted`)

		res, _ = c.call(4, "tools/call", `{"name":"book","arguments":{"room":"12","floor":1}}`)
		require.NotNil(t, res.Error, "the removed source is unknown")
	})
	t.Run("2026-07-28", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(transformedServer(), nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		_, msgs := rev20260728Post(t, ts, rev20260728Body("tools/list", ""))
		require.Len(t, msgs, 1)
		var list struct {
			Tools []json.RawMessage `json:"tools"`
		}
		require.NoError(t, json.Unmarshal(msgs[0].Result, &list))
		require.Len(t, list.Tools, 1)
		var tool struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		require.NoError(t, json.Unmarshal(list.Tools[0], &tool))
		assert.JSONEq(t, bookRoomSchema, string(tool.InputSchema))

		_, msgs = rev20260728Post(t, ts, rev20260728Body("tools/call", `"name":"book_room","arguments":{"number":"7","nights":2}`), "Mcp-Name", "book_room")
		require.Len(t, msgs, 1)
		r := wiretest.ToolResult(t, msgs[0])
		assert.Equal(t, []mcp.Content{mcp.Text("room 7 on floor 3 for 2 nights"), mcp.Text("booked")}, r.Content)
	})
}

// TestTransformedToolStdioAndEmbedded: the same derived tool over stdio
// and in an embedded session (mcptest).
func TestTransformedToolStdioAndEmbedded(t *testing.T) {
	t.Parallel()
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		c := wiretest.StartStdio(t, transformedServer())
		wiretest.Initialize(t, c)
		var m wiretest.Msg
		require.NoError(t, json.Unmarshal(c.Send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book_room","arguments":{"number":"5"}}}`), &m))
		assert.Equal(t, []mcp.Content{mcp.Text("room 5 on floor 3 for 1 nights"), mcp.Text("booked")}, wiretest.ToolResult(t, m).Content)
		require.NoError(t, json.Unmarshal(c.Send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"book_room","arguments":{"room":"5"}}}`), &m))
		r := wiretest.ToolResult(t, m)
		assert.True(t, r.IsError)
		assert.Contains(t, r.Content[0].(mcp.TextContent).Text, `argument "room" is not accepted`)
	})
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		s := mcptest.NewSession(t, transformedServer(), nil)
		tools := s.ListTools()
		require.Len(t, tools, 1)
		b, err := json.Marshal(tools[0].InputSchema)
		require.NoError(t, err)
		assert.JSONEq(t, bookRoomSchema, string(b))
		assert.Equal(t, "room 9 on floor 3 for 4 nights", s.CallTool("book_room", map[string]any{"number": "9", "nights": 4}, nil).Content[0].(mcp.TextContent).Text)
	})
}
