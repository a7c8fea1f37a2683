package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/proxy"
	"github.com/mcpchain/mcp/sampling"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var quiet = slog.New(slog.DiscardHandler)

// fixture is an upstream server served in-process, whose HTTP requests
// the test sees, and which can be taken down.
type fixture struct {
	srv     *mcp.Server
	h       *mcphttp.Handler
	down    atomic.Bool
	mu      sync.Mutex
	headers []http.Header
	started chan string // the session IDs the "wait" tool ran in
	stopped chan error  // why "wait" ended
}

func newFixture(t *testing.T) *fixture {
	f := &fixture{started: make(chan string, 8), stopped: make(chan error, 8)}
	f.srv = mcp.NewServer(mcp.Options{Name: "upstream-fixture", Version: "1.2.3", Instructions: "Use echo.", Logger: quiet})
	ro := true
	_ = ro
	f.srv.AddRawTool(mcp.Tool{Name: "echo", Title: "Echo", Description: "Echo the text",
		InputSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{
			"text": {Type: "string", MaxLength: jsonschema.Ptr(100)}}, Required: []string{"text"},
			Extra: map[string]any{"x-custom": "kept"}},
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true},
		Meta:        map[string]any{"com.example/owner": "team-a"}},
		func(_ context.Context, c *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(args, &in)
			return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: in.Text}},
				Meta: map[string]any{"session": c.SessionID}}, nil
		})
	mcp.AddTool(f.srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return c.SessionID, nil
	})
	mcp.AddTool(f.srv, mcp.Tool{Name: "count"}, func(ctx context.Context, c *mcp.Context, in struct {
		N int `json:"n"`
	}) (string, error) {
		for i := 1; i <= in.N; i++ {
			if err := c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(in.N), Message: "step"}); err != nil {
				return "", err
			}
		}
		c.Log.Info("counted", "n", in.N)
		return "counted", nil
	})
	mcp.AddTool(f.srv, mcp.Tool{Name: "wait"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		f.started <- c.SessionID
		<-ctx.Done()
		f.stopped <- ctx.Err()
		return "", ctx.Err()
	})
	mcp.AddTool(f.srv, mcp.Tool{Name: "broken"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "", errors.New("it broke")
	})
	mcp.AddTool(f.srv, mcp.Tool{Name: "refuse"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "", &mcp.Error{Code: -32050, Message: "quota exceeded", Data: map[string]any{"retryAfter": 3}}
	})
	mcp.AddTool(f.srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		roots, err := c.Roots(ctx)
		if err != nil {
			return "", err
		}
		el, err := elicit.Create(ctx, c, &elicit.Params{Message: "name?", RequestedSchema: map[string]any{"type": "object",
			"properties": map[string]any{"name": map[string]any{"type": "string"}}}})

		if err != nil {
			return "", err
		}
		u, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: "e1", Message: "open it", URL: "https://example.com/pay"})
		if err != nil {
			return "", err
		}
		sm, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 10,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return "", err
		}
		return roots[0].URI + " " + el.Content["name"].(string) + " " + u.Action + " " + sm.Content.(mcp.TextContent).Text, nil
	})
	f.srv.AddResource(mcp.Resource{URI: "file:///readme", Name: "readme", MIMEType: "text/plain",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "read me"}}, nil
		}})
	f.srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "greeting://{name}", Name: "greeting",
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "hello " + args["name"]}}, nil
		}})
	f.srv.AddPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "who", Required: true}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("greet " + args["who"]), nil
		}})
	f.h = mcphttp.New(f.srv, &mcphttp.Options{PageSize: 2})
	t.Cleanup(func() { _ = f.h.Close() })
	return f
}

// ServeHTTP records the request's headers and answers 503 while down.
func (f *fixture) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.headers = append(f.headers, r.Header.Clone())
	f.mu.Unlock()
	if f.down.Load() {
		http.Error(w, "upstream down", http.StatusServiceUnavailable)
		return
	}
	f.h.ServeHTTP(w, r)
}

// gateway starts a gateway to f and returns it with the handler that
// serves it.
func gateway(t *testing.T, f *fixture, opts proxy.Options) (*proxy.Gateway, *mcphttp.Handler) {
	t.Helper()
	if opts.Upstream == nil {
		opts.Upstream = func(*mcp.Context) client.Transport { return client.InProcess(f, nil) }
	}
	opts.Server.Logger = quiet
	g, err := proxy.New(context.Background(), opts)
	require.NoError(t, err)
	h := mcphttp.New(g.Server(), nil)
	t.Cleanup(func() {
		_ = h.Close()
		_ = g.Close()
	})
	return g, h
}

// connect opens a downstream client session to the gateway's handler.
func connect(t *testing.T, h http.Handler, opts *client.Options) *client.Client {
	t.Helper()
	if opts == nil {
		opts = &client.Options{}
	}
	opts.Logger = quiet
	c, err := client.Connect(context.Background(), client.InProcess(h, nil), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// rawList lists method through c, every page, as raw items by key.
func rawList(t *testing.T, c *client.Client, method, member, key string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	cursor := ""
	for {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		var page map[string]json.RawMessage
		require.NoError(t, c.Call(context.Background(), method, params, &page))
		var items []map[string]any
		require.NoError(t, json.Unmarshal(page[member], &items))
		for _, it := range items {
			out[it[key].(string)] = it
		}
		cursor = ""
		if raw, ok := page["nextCursor"]; ok {
			_ = json.Unmarshal(raw, &cursor)
		}
		if cursor == "" {
			return out
		}
	}
}

func TestGatewayMirrorsTheUpstream(t *testing.T) {
	f := newFixture(t)
	g, h := gateway(t, f, proxy.Options{})
	assert.Equal(t, "upstream-fixture", g.UpstreamName())
	direct := connect(t, f, nil)
	down := connect(t, h, nil)
	assert.Equal(t, "Use echo.", down.Initialize().Instructions)
	assert.Equal(t, "upstream-fixture", down.Initialize().ServerInfo.Name)

	for _, k := range []struct{ method, member, key string }{
		{"tools/list", "tools", "name"},
		{"resources/list", "resources", "uri"},
		{"resources/templates/list", "resourceTemplates", "uriTemplate"},
		{"prompts/list", "prompts", "name"},
	} {
		t.Run(k.method, func(t *testing.T) {
			want := rawList(t, direct, k.method, k.member, k.key)
			got := rawList(t, down, k.method, k.member, k.key)
			require.NotEmpty(t, want)
			assert.Equal(t, want, got, "the gateway lists what the upstream lists (over pages of 2)")
		})
	}
	echo := rawList(t, down, "tools/list", "tools", "name")["echo"]
	assert.Equal(t, "kept", echo["inputSchema"].(map[string]any)["x-custom"])
	assert.Equal(t, "team-a", echo["_meta"].(map[string]any)["com.example/owner"])
	assert.Equal(t, true, echo["annotations"].(map[string]any)["readOnlyHint"])

	ctx := context.Background()
	res, err := down.CallTool(ctx, "echo", map[string]string{"text": "hi"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "hi", res.Text())
	rr, err := down.ReadResource(ctx, "file:///readme")
	require.NoError(t, err)
	assert.Equal(t, "read me", rr.Contents[0].Text)
	rr, err = down.ReadResource(ctx, "greeting://ada")
	require.NoError(t, err)
	assert.Equal(t, "hello ada", rr.Contents[0].Text)
	pr, err := down.GetPrompt(ctx, "greet", map[string]string{"who": "bob"})
	require.NoError(t, err)
	assert.Equal(t, "greet bob", pr.Messages[0].Content.(mcp.TextContent).Text)
	// The gateway checks arguments against the upstream's schema.
	res, err = down.CallTool(ctx, "echo", map[string]any{"text": strings.Repeat("x", 101)}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError, res.Text())
}

func TestGatewayFollowsListChanged(t *testing.T) {
	f := newFixture(t)
	_, h := gateway(t, f, proxy.Options{})
	changed := make(chan struct{}, 16)
	down := connect(t, h, &client.Options{OnToolsChanged: func() { changed <- struct{}{} }})
	ctx := context.Background()
	// The client's stream for the server's own messages opens in the
	// background: wait until a change of the gateway's own reaches it.
	g := hServer(h)
	require.Eventually(t, func() bool {
		g.Registry().Remove(access.KindTool, "no-such-tool")
		mcp.AddTool(g, mcp.Tool{Name: "probe"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
		g.Registry().Remove(access.KindTool, "probe")
		select {
		case <-changed:
			return true
		case <-time.After(50 * time.Millisecond):
			return false
		}
	}, 5*time.Second, time.Millisecond)
	for settled := false; !settled; { // the probe's last notifications
		select {
		case <-changed:
		case <-time.After(200 * time.Millisecond):
			settled = true
		}
	}

	mcp.AddTool(f.srv, mcp.Tool{Name: "late", Description: "added later"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "late!", nil
	})
	require.Eventually(t, func() bool {
		tools, err := down.ListTools(ctx)
		require.NoError(t, err)
		for _, tl := range tools {
			if tl.Name == "late" {
				return true
			}
		}
		return false
	}, 5*time.Second, 20*time.Millisecond)
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the downstream client was not told the tools changed")
	}
	res, err := down.CallTool(ctx, "late", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, "late!", res.Text())

	f.srv.Registry().Remove(access.KindTool, "late")
	require.Eventually(t, func() bool {
		tools, err := down.ListTools(ctx)
		require.NoError(t, err)
		for _, tl := range tools {
			if tl.Name == "late" {
				return false
			}
		}
		return true
	}, 5*time.Second, 20*time.Millisecond)
	res, err = down.CallTool(ctx, "late", nil, nil)
	var re *mcp.Error
	require.ErrorAs(t, err, &re, "%v", res)
	assert.Equal(t, int64(mcp.CodeInvalidParams), re.Code)
}

// hServer is the server h serves.
func hServer(h *mcphttp.Handler) *mcp.Server { return h.Server() }

func TestGatewaySessionPerDownstreamSession(t *testing.T) {
	f := newFixture(t)
	g, h := gateway(t, f, proxy.Options{})
	a := connect(t, h, nil)
	b := connect(t, h, nil)
	ida, ida2, idb := whoami(t, a), whoami(t, a), whoami(t, b)
	assert.Equal(t, ida, ida2, "one downstream session keeps its upstream session")
	assert.NotEqual(t, ida, idb, "two downstream sessions have two upstream sessions")
	assert.Equal(t, 2, g.Sessions())

	require.NoError(t, a.Close())
	require.Eventually(t, func() bool { return g.Sessions() == 1 }, 5*time.Second, 10*time.Millisecond,
		"the upstream session closes with its downstream session")
	require.Eventually(t, func() bool { return f.h.SessionCount() == 2 }, 5*time.Second, 10*time.Millisecond,
		"the upstream saw the session end (the shared connection and b's remain)")
	require.NoError(t, b.Close())
	require.Eventually(t, func() bool { return g.Sessions() == 0 && f.h.SessionCount() == 1 }, 5*time.Second, 10*time.Millisecond)
}

// whoami returns the upstream session ID the call through c ran in.
func whoami(t *testing.T, c *client.Client) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), "whoami", nil, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	require.NotEmpty(t, res.Text())
	return res.Text()
}

func TestGatewayStatelessDownstreamSharesOneConnection(t *testing.T) {
	f := newFixture(t)
	g, _ := gateway(t, f, proxy.Options{})
	h := mcphttp.New(g.Server(), &mcphttp.Options{Stateless: true})
	t.Cleanup(func() { _ = h.Close() })
	a := connect(t, h, nil)
	b := connect(t, h, nil)
	ida, idb := whoami(t, a), whoami(t, b)
	assert.Equal(t, ida, idb)
	assert.Zero(t, g.Sessions())
	assert.Equal(t, 1, f.h.SessionCount())
}

func TestGatewayForwardsServerRequests(t *testing.T) {
	f := newFixture(t)
	_, h := gateway(t, f, proxy.Options{})
	var urls []string
	down := connect(t, h, &client.Options{
		Roots: func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///work"}}, nil },
		Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: "accept", Content: map[string]any{"name": "ada"}}, nil
		},
		ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			urls = append(urls, p.URL)
			return &elicit.Result{Action: "accept"}, nil
		},
		Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
			return &sampling.Result{Role: mcp.RoleAssistant, Model: "m",
				Content: mcp.TextContent{Text: "sampled:" + p.Messages[0].Content.(mcp.TextContent).Text}}, nil
		},
	})
	res, err := down.CallTool(context.Background(), "ask", nil, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, "file:///work ada accept sampled:hi", res.Text())
	assert.Equal(t, []string{"https://example.com/pay"}, urls)

	// A downstream client without those capabilities: the upstream is
	// told so (the gateway declares only what its client declared).
	bare := connect(t, h, nil)
	res, err = bare.CallTool(context.Background(), "ask", nil, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "did not declare that capability")
}

func TestGatewayProgressAndLogs(t *testing.T) {
	f := newFixture(t)
	_, h := gateway(t, f, proxy.Options{})
	logs := make(chan mcp.LogMessage, 4)
	down := connect(t, h, &client.Options{OnLog: func(m mcp.LogMessage) { logs <- m }})
	require.NoError(t, down.SetLogLevel(context.Background(), mcp.LevelInfo))
	var got []mcp.Progress
	res, err := down.CallTool(context.Background(), "count", map[string]int{"n": 3}, &client.CallOptions{
		Progress: func(p mcp.Progress) { got = append(got, p) }})
	require.NoError(t, err)
	assert.Equal(t, "counted", res.Text())
	require.Len(t, got, 3)
	assert.Equal(t, mcp.Progress{Progress: 3, Total: 3, Message: "step"}, got[2])
	select {
	case m := <-logs:
		assert.Equal(t, mcp.LevelInfo, m.Level)
		b, _ := json.Marshal(m.Data)
		assert.Contains(t, string(b), "counted")
		assert.Contains(t, string(b), "upstream-fixture")
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream's log message did not reach the downstream client")
	}
}

func TestGatewayCancellation(t *testing.T) {
	f := newFixture(t)
	_, h := gateway(t, f, proxy.Options{})
	down := connect(t, h, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := down.CallTool(ctx, "wait", nil, nil)
		errc <- err
	}()
	select {
	case <-f.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream tool did not start")
	}
	cancel()
	assert.ErrorIs(t, <-errc, context.Canceled)
	select {
	case err := <-f.stopped:
		assert.ErrorIs(t, err, context.Canceled, "the upstream call was cancelled")
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the downstream call did not cancel the upstream call")
	}
}

func TestGatewayErrors(t *testing.T) {
	f := newFixture(t)
	_, h := gateway(t, f, proxy.Options{ConnectTimeout: 2 * time.Second})
	down := connect(t, h, nil)
	ctx := context.Background()

	res, err := down.CallTool(ctx, "broken", nil, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "it broke", "the upstream's tool error passes as it is")

	_, err = down.CallTool(ctx, "refuse", nil, nil)
	var re *mcp.Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, int64(-32050), re.Code, "the upstream's JSON-RPC error keeps its code")
	assert.Contains(t, re.Message, `upstream "upstream-fixture": quota exceeded`)
	assert.JSONEq(t, `{"retryAfter":3}`, string(re.Data.(json.RawMessage)))

	f.down.Store(true)
	start := time.Now()
	res, err = down.CallTool(ctx, "echo", map[string]string{"text": "x"}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), `upstream "upstream-fixture" unavailable`)
	res, err = down.CallTool(ctx, "echo", map[string]string{"text": "x"}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError, "still down: the reconnection fails too")
	assert.Less(t, time.Since(start), 3*time.Second)
	_, err = down.ReadResource(ctx, "file:///readme")
	require.ErrorAs(t, err, &re)
	assert.Equal(t, int64(mcp.CodeInternalError), re.Code)
	assert.Contains(t, re.Message, `upstream "upstream-fixture" unavailable`)

	f.down.Store(false)
	res, err = down.CallTool(ctx, "echo", map[string]string{"text": "back"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "back", res.Text(), "the gateway reconnects once the upstream is back")
}

// hanging is a transport whose connections never open.
type hanging struct{}

func (hanging) Connect(ctx context.Context) (client.Conn, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func TestGatewayConnectTimeout(t *testing.T) {
	f := newFixture(t)
	var hang atomic.Bool
	g, h := gateway(t, f, proxy.Options{ConnectTimeout: 200 * time.Millisecond, CallTimeout: time.Second,
		Upstream: func(*mcp.Context) client.Transport {
			if hang.Load() {
				return hanging{}
			}
			return client.InProcess(f, nil)
		}})
	_ = g
	down := connect(t, h, nil)
	hang.Store(true)
	start := time.Now()
	res, err := down.CallTool(context.Background(), "echo", map[string]string{"text": "x"}, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "no connection within 200ms")
	assert.Less(t, time.Since(start), 2*time.Second)

	hang.Store(false)
	start = time.Now()
	res, err = down.CallTool(context.Background(), "wait", nil, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "no answer within 1s")
	assert.Less(t, time.Since(start), 3*time.Second)
	<-f.started
	<-f.stopped
}

func TestGatewayForwardsNoIdentity(t *testing.T) {
	f := newFixture(t)
	type user struct{ Name string }
	auth := func(r *http.Request) (any, error) {
		if r.Header.Get("Authorization") != "Bearer downstream-secret" {
			return nil, mcp.ErrUnauthorized
		}
		return user{Name: "ada"}, nil
	}
	for _, tc := range []struct {
		name     string
		upstream func(*mcp.Context) client.Transport
		want     string
	}{
		{"default", nil, ""},
		{"configured header", func(c *mcp.Context) client.Transport {
			h := http.Header{}
			if c == nil { // the gateway's own connection
				return client.InProcess(f, h)
			}
			if u, ok := c.Session.(user); ok {
				h.Set("X-Downstream-User", u.Name)
			}
			return client.InProcess(f, h)
		}, "ada"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f.mu.Lock()
			f.headers = nil
			f.mu.Unlock()
			_, h := gateway(t, f, proxy.Options{Server: mcp.Options{Authenticate: auth}, Upstream: tc.upstream})
			c, err := client.Connect(context.Background(), client.InProcess(h, http.Header{"Authorization": {"Bearer downstream-secret"}}), &client.Options{Logger: quiet})
			require.NoError(t, err)
			defer c.Close()
			res, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "x"}, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			f.mu.Lock()
			defer f.mu.Unlock()
			require.NotEmpty(t, f.headers)
			var users []string
			for _, hd := range f.headers {
				assert.Empty(t, hd.Get("Authorization"), "the downstream token never goes upstream")
				if u := hd.Get("X-Downstream-User"); u != "" {
					users = append(users, u)
				}
			}
			if tc.want == "" {
				assert.Empty(t, users)
			} else {
				assert.Contains(t, users, tc.want)
			}
		})
	}
}

func TestServeStdioBridge(t *testing.T) {
	f := newFixture(t)
	cin, sout := io.Pipe() // client → bridge
	sin, cout := io.Pipe() // bridge → client
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- proxy.ServeStdio(ctx, client.InProcess(f, nil), cin, cout, &proxy.StdioOptions{Gateway: proxy.Options{Server: mcp.Options{Logger: quiet}}})
	}()
	c, err := client.Connect(ctx, client.Stdio(rwc{sin, sout}), &client.Options{Logger: quiet})
	require.NoError(t, err)
	res, err := c.CallTool(ctx, "echo", map[string]string{"text": "over stdio"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "over stdio", res.Text())
	res, err = c.CallTool(ctx, "whoami", nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 1, f.h.SessionCount(), "the bridge's one downstream session uses one upstream session")
	require.Equal(t, f.h.Sessions()[0].ID, res.Text(), "the calls run in the shared (listing) upstream session")
	require.NoError(t, c.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return once its input ended")
	}
	require.Eventually(t, func() bool { return f.h.SessionCount() == 0 }, 5*time.Second, 10*time.Millisecond,
		"the bridge closed its upstream sessions")
}

// rwc joins a pipe's read end and another's write end; Close closes
// both.
type rwc struct {
	r *io.PipeReader
	w *io.PipeWriter
}

func (p rwc) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p rwc) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p rwc) Close() error {
	_ = p.w.Close()
	return p.r.Close()
}

// sessionlessClient is a downstream client at revision 2026-07-28 that
// answers roots, both elicitation modes and sampling, so that an
// upstream's requests can be answered through input-required rounds.
func sessionlessClient() *client.Options {
	return &client.Options{ProtocolVersion: mcp.Version20260728,
		Roots: func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///sessionless"}}, nil },
		Elicit: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: "accept", Content: map[string]any{"name": "eve"}}, nil
		},
		ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: "accept"}, nil
		},
		Sample: func(context.Context, *sampling.Request) (*sampling.Result, error) {
			return &sampling.Result{Role: mcp.RoleAssistant, Model: "m", Content: mcp.TextContent{Text: "sessionless"}}, nil
		},
	}
}

func TestGatewayRev20260728Downstream(t *testing.T) {
	f := newFixture(t)
	g, h := gateway(t, f, proxy.Options{})
	down := connect(t, h, sessionlessClient())
	require.Equal(t, mcp.Version20260728, down.ProtocolVersion())
	ctx := context.Background()
	res, err := down.CallTool(ctx, "echo", map[string]string{"text": "stateless"}, nil)
	require.NoError(t, err)
	assert.Equal(t, "stateless", res.Text())
	// Each input-required round runs the mirrored tool again, so the
	// upstream call is made again, and its questions answered from the
	// round's answers.
	res, err = down.CallTool(ctx, "ask", nil, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	assert.Equal(t, "file:///sessionless eve accept sessionless", res.Text())
	assert.Zero(t, g.Sessions(), "requests without a session use the shared connection")
}

func TestGatewayResourceUpdated(t *testing.T) {
	f := newFixture(t)
	_, h := gateway(t, f, proxy.Options{})
	updated := make(chan string, 4)
	down := connect(t, h, &client.Options{OnResourceUpdated: func(uri string) { updated <- uri }})
	require.NoError(t, down.Subscribe(context.Background(), "file:///readme"))
	// The streams that carry server-initiated messages (the client's,
	// and the gateway's own to the upstream) open in the background: an
	// update sent before they are up has nowhere to go, so send it again
	// until one arrives.
	var got string
	require.Eventually(t, func() bool {
		f.srv.ResourceUpdated("file:///readme")
		select {
		case got = <-updated:
			return true
		case <-time.After(50 * time.Millisecond):
			return false
		}
	}, 5*time.Second, time.Millisecond, "the upstream's resources/updated did not reach the subscribed downstream client")
	assert.Equal(t, "file:///readme", got)
}

// TestGatewaySharedConnectionRoutesOnlyAlone: on the shared connection
// (downstream requests without a session, from any caller), an upstream
// request is forwarded only while one downstream call is in flight: with
// two, it could reach the wrong caller, so the upstream is refused.
func TestGatewaySharedConnectionRoutesOnlyAlone(t *testing.T) {
	f := newFixture(t)
	g, _ := gateway(t, f, proxy.Options{})
	h := mcphttp.New(g.Server(), &mcphttp.Options{Stateless: true})
	t.Cleanup(func() { _ = h.Close() })
	roots := func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///mine"}}, nil }
	a := connect(t, h, &client.Options{Roots: roots})
	b := connect(t, h, &client.Options{Roots: roots, Elicit: func(context.Context, *elicit.Params) (*elicit.Result, error) {
		return &elicit.Result{Action: "decline"}, nil
	}})

	ctx, cancel := context.WithCancel(context.Background())
	waited := make(chan error, 1)
	go func() {
		_, err := a.CallTool(ctx, "wait", nil, nil)
		waited <- err
	}()
	<-f.started
	// The upstream (an mcpchain server) answers its tool's failed
	// roots/list with a JSON-RPC error, which the gateway passes on.
	_, err := b.CallTool(context.Background(), "ask", nil, nil)
	var re *mcp.Error
	require.ErrorAs(t, err, &re)
	assert.Contains(t, re.Message, "several downstream requests without a session are in flight")
	// Without a session, notifications/cancelled names no request the
	// gateway can find; closing the client ends its request.
	cancel()
	<-waited
	_ = a.Close()
	<-f.stopped

	// Alone in flight, the same call's roots request is forwarded to its
	// caller (whose stateless 2025-11-25 requests declare no
	// capabilities, which is the refusal now).
	_, err = b.CallTool(context.Background(), "ask", nil, nil)
	require.ErrorAs(t, err, &re)
	assert.NotContains(t, re.Message, "several downstream requests")
	assert.Contains(t, re.Message, "the client did not declare that capability")
}

func TestNewFailsWhenTheUpstreamIsDown(t *testing.T) {
	start := time.Now()
	_, err := proxy.New(context.Background(), proxy.Options{ConnectTimeout: 100 * time.Millisecond,
		Upstream: func(*mcp.Context) client.Transport { return hanging{} }, Server: mcp.Options{Logger: quiet}})
	require.ErrorIs(t, err, proxy.ErrUnavailable)
	assert.Contains(t, err.Error(), "no connection within 100ms")
	assert.Less(t, time.Since(start), 2*time.Second)

	_, err = proxy.New(context.Background(), proxy.Options{})
	require.ErrorContains(t, err, "Options.Upstream is required")
	_, err = proxy.New(context.Background(), proxy.Options{Upstream: func(*mcp.Context) client.Transport { return nil }})
	require.ErrorContains(t, err, "Options.Upstream returned no transport")
}

// TestGatewayPoliciesApplyToTheMirror: the mirrored tools are the
// server's tools like any other: an access policy in front of the
// gateway hides one, and Registry.Disable another.
func TestGatewayPoliciesApplyToTheMirror(t *testing.T) {
	f := newFixture(t)
	g, h := gateway(t, f, proxy.Options{})
	require.NoError(t, g.Server().Registry().Disable(mcp.Match{Kind: access.KindTool, Names: []string{"broken"}}))
	policy := middleware.RestrictAccess(func(_ context.Context, q access.Query) bool {
		return q.Kind != access.KindTool || q.Name != "refuse"
	})
	down := connect(t, policy(h), nil)
	ctx := context.Background()
	tools, err := down.ListTools(ctx)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	assert.Contains(t, names, "echo")
	assert.NotContains(t, names, "broken", "disabled on the gateway")
	assert.NotContains(t, names, "refuse", "hidden by the access policy")
	for _, name := range []string{"broken", "refuse"} {
		_, err := down.CallTool(ctx, name, nil, nil)
		var re *mcp.Error
		require.ErrorAs(t, err, &re, name)
		assert.Contains(t, re.Message, "Unknown tool")
	}
}
