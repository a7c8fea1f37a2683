package sizelimit_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/sizelimit"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var quiet = slog.New(slog.DiscardHandler)

type report struct {
	Rows []string `json:"rows"`
}

// testServer has tools whose results are as large as asked: text, a
// structured report (with its output schema), an image and text, and a
// small one.
func testServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "big", Version: "1.0.0", Logger: quiet})
	type sizeArgs struct {
		N int `json:"n"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "text"}, func(_ context.Context, _ *mcp.Context, in sizeArgs) (string, error) {
		return strings.Repeat("0123456789", in.N/10), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "other"}, func(_ context.Context, _ *mcp.Context, in sizeArgs) (string, error) {
		return strings.Repeat("x", in.N), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "report"}, func(_ context.Context, _ *mcp.Context, in sizeArgs) (report, error) {
		rows := make([]string, in.N)
		for i := range rows {
			rows[i] = "row"
		}
		return report{Rows: rows}, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "mixed"}, func(_ context.Context, _ *mcp.Context, in sizeArgs) ([]mcp.Content, error) {
		return []mcp.Content{mcp.TextContent{Text: "caption"}, mcp.ImageContent{Data: make([]byte, in.N), MIMEType: "image/png"}, mcp.TextContent{Text: "after"}}, nil
	})
	return srv
}

func connect(t testing.TB, h http.Handler) *client.Client {
	t.Helper()
	c, err := client.Connect(context.Background(), client.InProcess(h, nil), &client.Options{Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func encodedLen(t *testing.T, r *mcp.ContentResult) int {
	t.Helper()
	b, err := json.Marshal(r)
	require.NoError(t, err)
	return len(b)
}

// Through an in-process client: each tool's result is bounded by its
// limit, cut down with a notice or refused, and what fits passes as is.
func TestSizeLimit(t *testing.T) {
	t.Parallel()
	opts := sizelimit.Options{
		Default: sizelimit.Limit{Bytes: 1000, Hint: "Ask for fewer rows."},
		Tools: map[string]sizelimit.Limit{
			"other":  {},            // exempt
			"report": {Tokens: 200}, // 800 bytes
			"mixed":  {Bytes: 300},
		},
	}
	h := mcphttp.New(testServer(), nil)
	t.Cleanup(func() { _ = h.Close() })
	c := connect(t, sizelimit.New(opts)(h))
	tests := []struct {
		name   string
		tool   string
		n      int
		limit  int
		check  func(t *testing.T, r *mcp.ContentResult)
		within bool // passes untouched
	}{
		{name: "under the limit", tool: "text", n: 500, within: true},
		{name: "text cut with a notice", tool: "text", n: 5000, limit: 1000, check: func(t *testing.T, r *mcp.ContentResult) {
			require.Len(t, r.Content, 2)
			cut := r.Content[0].(mcp.TextContent).Text
			assert.True(t, strings.HasPrefix(strings.Repeat("0123456789", 500), cut))
			assert.Greater(t, len(cut), 700, "the room is used")
			notice := r.Content[1].(mcp.TextContent).Text
			assert.Contains(t, notice, `tool "text" returned 5039 bytes (about 1260 tokens), over the limit of 1000 bytes (about 250 tokens)`)
			assert.Contains(t, notice, "the text above is cut short")
			assert.True(t, strings.HasSuffix(notice, "Ask for fewer rows.]"), notice)
			assert.False(t, r.IsError)
		}},
		{name: "an exempt tool", tool: "other", n: 5000, within: true},
		{name: "structured content stays whole", tool: "report", n: 60, limit: 800, check: func(t *testing.T, r *mcp.ContentResult) {
			var rep report
			b, _ := json.Marshal(r.StructuredContent)
			require.NoError(t, json.Unmarshal(b, &rep))
			assert.Len(t, rep.Rows, 60)
			require.Len(t, r.Content, 2)
			assert.True(t, strings.HasPrefix(`{"rows":["row"`, r.Content[0].(mcp.TextContent).Text[:13]))
			assert.Contains(t, r.Content[1].(mcp.TextContent).Text, "about 200 tokens")
		}},
		{name: "structured content that cannot fit is refused", tool: "report", n: 400, limit: 800, check: func(t *testing.T, r *mcp.ContentResult) {
			assert.True(t, r.IsError)
			assert.Nil(t, r.StructuredContent)
			assert.Contains(t, r.Text(), `The result of tool "report" was not sent`)
		}},
		{name: "an image that does not fit is left out", tool: "mixed", n: 400, limit: 300, check: func(t *testing.T, r *mcp.ContentResult) {
			require.Len(t, r.Content, 3)
			assert.Equal(t, mcp.TextContent{Text: "caption"}, r.Content[0])
			assert.Equal(t, mcp.TextContent{Text: "after"}, r.Content[1])
			assert.Contains(t, r.Content[2].(mcp.TextContent).Text, "1 items are left out")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := c.CallTool(t.Context(), tt.tool, map[string]int{"n": tt.n}, nil)
			require.NoError(t, err)
			if tt.within {
				plain, err := connect(t, h).CallTool(t.Context(), tt.tool, map[string]int{"n": tt.n}, nil)
				require.NoError(t, err)
				assert.Equal(t, plain, r)
				return
			}
			assert.LessOrEqual(t, encodedLen(t, r), tt.limit)
			tt.check(t, r)
		})
	}
}

// Refuse answers an isError result within the limit; over stdio and HTTP
// the same as in process.
func TestSizeLimitRefuseTransports(t *testing.T) {
	t.Parallel()
	opts := sizelimit.Options{Default: sizelimit.Limit{Bytes: 200, Refuse: true, Hint: "Pass a smaller n."}}
	check := func(t *testing.T, r *mcp.ContentResult) {
		t.Helper()
		assert.True(t, r.IsError)
		assert.LessOrEqual(t, encodedLen(t, r), 200)
		assert.Equal(t, `The result of tool "text" was not sent: it is 10039 bytes (about 2510 tokens), over the limit of 200 bytes (about 50 tokens). Pass a smaller n.`, r.Text())
	}
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		h := mcphttp.New(testServer(), nil)
		ts := httptest.NewServer(sizelimit.New(opts)(h))
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		c, err := client.Connect(t.Context(), client.HTTP(ts.URL, nil), &client.Options{Logger: quiet})
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		r, err := c.CallTool(t.Context(), "text", map[string]int{"n": 10000}, nil)
		require.NoError(t, err)
		check(t, r)
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		c := wiretest.StartStdio(t, testServer(), sizelimit.New(opts))
		wiretest.Initialize(t, c)
		var m struct {
			Result *mcp.ContentResult `json:"result"`
		}
		require.NoError(t, json.Unmarshal(c.Send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{"n":10000}}}`), &m))
		require.NotNil(t, m.Result)
		check(t, m.Result)
	})
}

// A limit New cannot meet is a programming error, refused at once.
func TestSizeLimitTooSmall(t *testing.T) {
	t.Parallel()
	for _, opts := range []sizelimit.Options{
		{Default: sizelimit.Limit{Bytes: 10}},
		{Default: sizelimit.Limit{Tokens: 15}},
		{Tools: map[string]sizelimit.Limit{"x": {Bytes: -1}}},
	} {
		assert.Panics(t, func() { sizelimit.New(opts) })
	}
	assert.NotPanics(t, func() { sizelimit.New(sizelimit.Options{Default: sizelimit.Limit{Tokens: 16}}) })
}
