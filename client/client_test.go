package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/sampling"
	"github.com/mcpchain/mcp/stdio"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sum struct {
	Sum int `json:"sum"`
}

// newServer is a server with a tool of each kind the client tests use.
func newServer(t *testing.T) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "fixture", Version: "1.0.0", Instructions: "Use add.",
		Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two integers"},
		func(_ context.Context, _ *mcp.Context, in addArgs) (sum, error) { return sum{in.A + in.B}, nil })
	mcp.AddTool(srv, mcp.Tool{Name: "count"},
		func(ctx context.Context, c *mcp.Context, in struct {
			N int `json:"n"`
		}) (string, error) {
			for i := 1; i <= in.N; i++ {
				if err := c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(in.N)}); err != nil {
					return "", err
				}
			}
			c.Log.Info("counted", "n", in.N)
			return "done", nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "fail"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "", errors.New("it broke") })
	mcp.AddTool(srv, mcp.Tool{Name: "wait"},
		func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
			<-ctx.Done()
			return "", ctx.Err()
		})
	mcp.AddTool(srv, mcp.Tool{Name: "ask"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			roots, err := c.Roots(ctx)
			if err != nil {
				return "", err
			}
			el, err := elicit.Create(ctx, c, &elicit.Params{Message: "name?", RequestedSchema: map[string]any{"type": "object",
				"properties": map[string]any{"name": map[string]any{"type": "string"}}}})

			if err != nil {
				return "", err
			}
			sm, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 10,
				Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: "hi"}}}})
			if err != nil {
				return "", err
			}
			return roots[0].URI + " " + el.Content["name"].(string) + " " + sm.Content.(mcp.TextContent).Text, nil
		})
	srv.AddResource(mcp.Resource{URI: "file:///readme", Name: "readme", MIMEType: "text/plain",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "read me"}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "who", Required: true}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Hello, " + args["who"]), nil
		}})
	return srv
}

// versions are the revisions the client tests run at.
var versions = []mcp.Version{mcp.Version20251125, mcp.Version20260728}

// eachVersion runs fn at each revision of versions, over each transport.
func eachVersion(t *testing.T, fn func(t *testing.T, version mcp.Version, srv *mcp.Server, tr client.Transport)) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			transportsAt(t, v, func(t *testing.T, srv *mcp.Server, tr client.Transport) { fn(t, v, srv, tr) })
		})
	}
}

// transports runs fn over each transport the client speaks, to a server
// made by newServer.
func transports(t *testing.T, fn func(t *testing.T, srv *mcp.Server, tr client.Transport)) {
	transportsAt(t, mcp.Version20251125, fn)
}

// transportsAt is transports for a client of revision version: the
// deprecated HTTP+SSE transport only before 2026-07-28, which it does
// not carry.
func transportsAt(t *testing.T, version mcp.Version, fn func(t *testing.T, srv *mcp.Server, tr client.Transport)) {
	if version != mcp.Version20260728 {
		t.Run("legacy-sse", func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			h := mcphttp.New(srv, &mcphttp.Options{LegacySSE: true})
			ts := httptest.NewServer(mcphttp.NewMux(h, nil))
			t.Cleanup(func() { ts.Close(); _ = h.Close() })
			fn(t, srv, client.LegacySSE(ts.URL+mcphttp.LegacySSEPath, nil))
		})
	}
	t.Run("HTTP", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t)
		h := mcphttp.New(srv, nil)
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); _ = h.Close() })
		fn(t, srv, client.HTTP(ts.URL+"/mcp", nil))
	})
	t.Run("in-process", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t)
		h := mcphttp.New(srv, nil)
		t.Cleanup(func() { _ = h.Close() })
		fn(t, srv, client.InProcess(h, nil))
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		srv := newServer(t)
		h := mcphttp.New(srv, nil)
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- stdio.Serve(context.Background(), h, inR, outW, nil); _ = outW.Close() }()
		t.Cleanup(func() {
			_ = inW.Close()
			<-done
			_ = h.Close()
		})
		fn(t, srv, client.Stdio(pipe{outR, inW}))
	})
}

// pipe is the client's end of two pipes.
type pipe struct {
	io.Reader
	io.WriteCloser
}

func connect(t *testing.T, tr client.Transport, opts *client.Options) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, tr, opts)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	return c
}

func TestClientCalls(t *testing.T) {
	t.Parallel()
	eachVersion(t, func(t *testing.T, version mcp.Version, _ *mcp.Server, tr client.Transport) {
		ctx := context.Background()
		c := connect(t, tr, &client.Options{ProtocolVersion: version})
		init := c.Initialize()
		assert.Equal(t, "fixture", init.ServerInfo.Name)
		assert.Equal(t, "Use add.", init.Instructions)
		assert.Equal(t, version, c.ProtocolVersion())
		require.NotNil(t, init.Capabilities.Tools)

		tools, err := c.ListTools(ctx)
		require.NoError(t, err)
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		assert.ElementsMatch(t, []string{"add", "count", "fail", "wait", "ask"}, names)

		res, err := c.CallTool(ctx, "add", addArgs{2, 3}, nil)
		require.NoError(t, err)
		assert.False(t, res.IsError)
		s, err := client.CallToolAs[sum](ctx, c, "add", map[string]int{"a": 20, "b": 22})
		require.NoError(t, err)
		assert.Equal(t, 42, s.Sum)

		_, err = client.CallToolAs[string](ctx, c, "fail", nil)
		assert.ErrorIs(t, err, client.ErrToolFailed)
		assert.ErrorContains(t, err, "it broke")

		_, err = c.CallTool(ctx, "nope", nil, nil)
		var rpcErr *mcp.Error
		require.ErrorAs(t, err, &rpcErr, "the server's error is an *mcp.Error")
		assert.Equal(t, int64(-32602), rpcErr.Code)
		assert.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeInvalidParams}, "matched by code, as on the server side")
		assert.ErrorContains(t, err, `"fixture" answered tools/call`)

		rs, err := c.ListResources(ctx)
		require.NoError(t, err)
		require.Len(t, rs, 1)
		rr, err := c.ReadResource(ctx, "file:///readme")
		require.NoError(t, err)
		assert.Equal(t, "read me", rr.Contents[0].Text)

		ps, err := c.ListPrompts(ctx)
		require.NoError(t, err)
		require.Len(t, ps, 1)
		pr, err := c.GetPrompt(ctx, "greet", map[string]string{"who": "Ada"})
		require.NoError(t, err)
		assert.Equal(t, "Hello, Ada", pr.Messages[0].Content.(mcp.TextContent).Text)

		require.NoError(t, c.Ping(ctx))
		require.NoError(t, c.SetLogLevel(ctx, mcp.LevelDebug))
	})
}

// TestReadResourceNotFoundMatchesTheSentinel: a template loader that
// wraps mcp.ErrResourceNotFound reaches the client as the spec's
// "Resource not found" (-32602 with the URI in data), which the client's
// error matches as mcp.ErrResourceNotFound, at every revision and over
// every transport; a loader's other error does not match it.
func TestReadResourceNotFoundMatchesTheSentinel(t *testing.T) {
	t.Parallel()
	eachVersion(t, func(t *testing.T, version mcp.Version, srv *mcp.Server, tr client.Transport) {
		srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "user://{id}", Name: "user",
			Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
				if args["id"] == "broken" {
					return nil, errors.New("database down")
				}
				return nil, fmt.Errorf("no user %q: %w", args["id"], mcp.ErrResourceNotFound)
			}})
		ctx := context.Background()
		c := connect(t, tr, &client.Options{ProtocolVersion: version})
		for _, uri := range []string{"user://bob", "nothing://matches"} {
			_, err := c.ReadResource(ctx, uri)
			require.ErrorIs(t, err, mcp.ErrResourceNotFound, uri)
			var re *mcp.Error
			require.ErrorAs(t, err, &re)
			assert.Equal(t, int64(mcp.CodeInvalidParams), re.Code)
			assert.JSONEq(t, `{"uri":"`+uri+`"}`, string(re.Data.(json.RawMessage)))
		}
		_, err := c.ReadResource(ctx, "user://broken")
		require.ErrorIs(t, err, &mcp.Error{Code: mcp.CodeInternalError})
		assert.NotErrorIs(t, err, mcp.ErrResourceNotFound)
	})
}

// TestClientProgressAndLogs: progress reports reach the call's callback,
// all before the call returns, and log messages reach OnLog.
func TestClientProgressAndLogs(t *testing.T) {
	t.Parallel()
	eachVersion(t, func(t *testing.T, version mcp.Version, _ *mcp.Server, tr client.Transport) {
		ctx := context.Background()
		logs := make(chan mcp.LogMessage, 8)
		c := connect(t, tr, &client.Options{ProtocolVersion: version, OnLog: func(m mcp.LogMessage) { logs <- m }})
		require.NoError(t, c.SetLogLevel(ctx, mcp.LevelInfo))
		var got []float64
		res, err := c.CallTool(ctx, "count", map[string]int{"n": 5}, &client.CallOptions{
			Progress: func(p mcp.Progress) { got = append(got, p.Progress) }})
		require.NoError(t, err)
		assert.Equal(t, "done", res.Text())
		assert.Equal(t, []float64{1, 2, 3, 4, 5}, got)
		select {
		case m := <-logs:
			assert.Equal(t, mcp.LevelInfo, m.Level)
		case <-time.After(5 * time.Second):
			t.Fatal("no log message")
		}
	})
}

// TestClientAnswersServerRequests: roots, elicitation and sampling
// requests of a tool reach the client's handlers, and their answers the
// tool.
func TestClientAnswersServerRequests(t *testing.T) {
	t.Parallel()
	eachVersion(t, func(t *testing.T, version mcp.Version, _ *mcp.Server, tr client.Transport) {
		c := connect(t, tr, &client.Options{
			ProtocolVersion: version,
			Roots:           func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///work"}}, nil },
			Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
				return &elicit.Result{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
			},
			Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
				return &sampling.Result{Role: mcp.RoleAssistant, Content: mcp.TextContent{Text: "hello"}, Model: "m"}, nil
			},
		})
		res, err := c.CallTool(context.Background(), "ask", nil, nil)
		require.NoError(t, err)
		require.False(t, res.IsError, res.Text())
		assert.Equal(t, "file:///work Ada hello", res.Text())
	})
	eachVersion(t, func(t *testing.T, version mcp.Version, _ *mcp.Server, tr client.Transport) {
		c := connect(t, tr, &client.Options{ProtocolVersion: version})
		res, err := c.CallTool(context.Background(), "ask", nil, nil)
		require.NoError(t, err)
		assert.True(t, res.IsError, "a client without handlers declares no capabilities: the tool's request fails")
	})
}

// TestClientCancels: a call whose context ends returns its error, and the
// server's tool sees its own context end (notifications/cancelled).
func TestClientCancels(t *testing.T) {
	t.Parallel()
	eachVersion(t, func(t *testing.T, version mcp.Version, _ *mcp.Server, tr client.Transport) {
		c := connect(t, tr, &client.Options{ProtocolVersion: version})
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := c.CallTool(ctx, "wait", nil, nil)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 5*time.Second)
		require.NoError(t, c.Ping(context.Background()), "the client goes on")
	})
}

// TestClientListChanges: a tool added on the server reaches
// OnToolsChanged, whose callback may call the client.
func TestClientListChanges(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, srv *mcp.Server, tr client.Transport) {
		var (
			mu    sync.Mutex
			seen  []string
			c     *client.Client
			ready = make(chan struct{})
			got   = make(chan struct{}, 1)
		)
		c = connect(t, tr, &client.Options{OnToolsChanged: func() {
			<-ready
			tools, err := c.ListTools(context.Background())
			assert.NoError(t, err)
			mu.Lock()
			seen = nil
			for _, tool := range tools {
				seen = append(seen, tool.Name)
			}
			mu.Unlock()
			select {
			case got <- struct{}{}:
			default:
			}
		}})
		close(ready)
		require.NoError(t, c.Ping(context.Background()))
		// The GET stream may open after initialize returns; a change
		// before it is lost, so wait until one arrives.
		deadline := time.Now().Add(10 * time.Second)
		for {
			mcp.AddTool(srv, mcp.Tool{Name: "added" + time.Now().Format("150405.000000")},
				func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
			select {
			case <-got:
				mu.Lock()
				defer mu.Unlock()
				assert.Greater(t, len(seen), 5)
				return
			case <-time.After(100 * time.Millisecond):
			}
			require.True(t, time.Now().Before(deadline), "no tools/list_changed reached the client")
		}
	})
}

// TestClientServerGone: when the server goes away, calls fail with
// ErrClosed rather than hang.
func TestClientServerGone(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	h := mcphttp.New(srv, nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), h, inR, outW, nil); _ = outW.Close() }()
	defer func() { _ = h.Close() }()
	c := connect(t, client.Stdio(pipe{outR, inW}), nil)
	_ = outW.CloseWithError(io.ErrClosedPipe) // the server's output ends
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the client did not see the end")
	}
	assert.ErrorIs(t, c.Err(), client.ErrClosed)
	_, err := c.CallTool(context.Background(), "add", addArgs{1, 2}, nil)
	assert.ErrorIs(t, err, client.ErrClosed)
	_ = inW.Close()
	<-done
}

// TestClientLenient: what a well-meaning server gets slightly wrong still
// answers the call: an id echoed as a string, an error code sent as a
// string, unknown members; a line that is not JSON is skipped.
func TestClientLenient(t *testing.T) {
	t.Parallel()
	srvR, cliW := io.Pipe()
	cliR, srvW := io.Pipe()
	go func() {
		dec := json.NewDecoder(srvR)
		for {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if dec.Decode(&m) != nil {
				_ = srvW.Close()
				return
			}
			var out string
			switch m.Method {
			case "initialize":
				out = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-06-18","serverInfo":{"name":"odd","version":"1"},"capabilities":{"tools":{}},"extra":true}}`
			case "tools/call":
				out = "not json\n" + `{"jsonrpc":"2.0","id":"` + string(m.ID) + `","error":{"code":"-32602","message":"bad arguments"}}`
			case "ping":
				out = `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":"x","message":{"why":"odd"}}}`
			case "prompts/list":
				// No "jsonrpc", a member in another case, a duplicate: the
				// strict decoder refuses it, encoding/json takes it.
				out = `{"id":` + string(m.ID) + `,"Result":{"prompts":[{"name":"p"}]},"result":{"prompts":[{"name":"q"}]}}`
			default:
				continue
			}
			if _, err := io.WriteString(srvW, out+"\n"); err != nil {
				return
			}
		}
	}()
	c := connect(t, client.Stdio(pipe{cliR, cliW}), &client.Options{Logger: slog.New(slog.DiscardHandler)})
	assert.Equal(t, mcp.Version20250618, c.ProtocolVersion())
	_, err := c.CallTool(context.Background(), "x", nil, nil)
	var re *mcp.Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, int64(-32602), re.Code)
	assert.Equal(t, "bad arguments", re.Message)
	err = c.Ping(context.Background())
	require.ErrorAs(t, err, &re)
	assert.Equal(t, int64(-32603), re.Code)
	assert.Equal(t, `{"why":"odd"}`, re.Message)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	prompts, err := c.ListPrompts(ctx)
	require.NoError(t, err, "the answer was read, not dropped")
	require.Len(t, prompts, 1)
	assert.Equal(t, "q", prompts[0].Name, "encoding/json's last duplicate wins")
}

// TestLegacySSEEndpoint: the deprecated transport's endpoint event must
// name a URL on the stream's origin, and arrive before the stream ends.
func TestLegacySSEEndpoint(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, stream, want string
	}{
		{"another origin", "event: endpoint\ndata: http://elsewhere.example/messages?s=1\n\n", "not on the stream's origin"},
		{"another scheme", "event: endpoint\ndata: https://HOST/messages\n\n", "not on the stream's origin"},
		{"no endpoint", "event: message\ndata: {}\n\n", "ended before its endpoint event"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, strings.ReplaceAll(tt.stream, "HOST", r.Host))
			}))
			defer ts.Close()
			_, err := client.Connect(context.Background(), client.LegacySSE(ts.URL+"/sse", nil), nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
