package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/providers"
	"github.com/mcpchain/mcp/proxy"
)

// refUpstream is ref-server.mjs (the TypeScript SDK reference server)
// over Streamable HTTP on a fixed address, which the test stops (by its
// PID) and starts again.
type refUpstream struct {
	t      *testing.T
	addr   string
	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

func startRefUpstream(t *testing.T) *refUpstream {
	u := &refUpstream{t: t, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(freePort(t)))}
	u.start()
	t.Cleanup(u.stop)
	return u
}

func (u *refUpstream) url() string { return "http://" + u.addr + "/mcp" }

func (u *refUpstream) start() {
	dir, bin := nodePaths(u.t)
	cmd := exec.Command(filepath.Join(bin, "node"), filepath.Join(dir, "ref-server.mjs"), "--http", u.addr)
	cmd.Stdout, cmd.Stderr = &syncBuffer{}, &syncBuffer{}
	require.NoError(u.t, cmd.Start())
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	u.mu.Lock()
	u.cmd, u.exited = cmd, exited
	u.mu.Unlock()
	require.Eventually(u.t, func() bool {
		c, err := net.Dial("tcp", u.addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 20*time.Second, 50*time.Millisecond, "ref-server.mjs listens")
}

// stop kills the process this test started, by its PID, and waits for it.
func (u *refUpstream) stop() {
	u.mu.Lock()
	cmd, exited := u.cmd, u.exited
	u.cmd = nil
	u.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// gatewayWorld is the gateway to a TypeScript SDK server, served over
// Streamable HTTP behind mcpchain's OAuth proxy (a generic OpenID Connect
// upstream: mockoidc), with a token for it.
type gatewayWorld struct {
	base, token string
	upstream    *refUpstream
	gateway     *proxy.Gateway
}

func newGatewayWorld(t *testing.T) *gatewayWorld {
	w := &gatewayWorld{upstream: startRefUpstream(t)}
	idp := newUpstream(t, "generic")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	w.base = "http://" + ln.Addr().String()
	log := slog.New(slog.DiscardHandler)
	p, err := providers.NewOAuthProvider(providers.OAuthProviderConfig{
		Config: providers.Config{BaseURL: w.base, ClientID: idp.m.ClientID, ClientSecret: idp.m.ClientSecret,
			JWTSigningKey: strings.Repeat("j", 32), EncryptionKey: strings.Repeat("e", 32), AllowInsecureHTTP: true, Logger: log},
		AuthorizationEndpoint: idp.m.AuthorizationEndpoint(), TokenEndpoint: idp.m.TokenEndpoint(), Issuer: idp.m.Issuer(),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })

	g, err := proxy.New(testContext(t, 30*time.Second), proxy.Options{
		Upstream:       func(*mcp.Context) client.Transport { return client.HTTP(w.upstream.url(), nil) },
		Server:         mcp.Options{Name: "gateway", Version: "1.0.0", Auth: p, Logger: log},
		ConnectTimeout: 5 * time.Second, // a loaded machine starts node slowly
	})
	require.NoError(t, err)
	w.gateway = g
	h := mcphttp.New(g.Server(), nil)
	srv := &http.Server{Handler: mcphttp.NewMux(h, nil), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		_ = h.Close()
		_ = srv.Close()
		_ = g.Close()
	})

	redirect := "http://127.0.0.1:9/cb"
	clientID := registerPublicClient(t, w.base, redirect)
	authURL, verifier := authorizeURL(w.base, clientID, redirect, "st")
	back := newFormBrowser(t).login(authURL, redirect)
	require.NotEmpty(t, back.Query().Get("code"), "the login gave a code: %s", back)
	tok := exchangeCode(t, w.base, w.base+"/mcp", clientID, redirect, back.Query().Get("code"), verifier)
	require.NotEmpty(t, tok.AccessToken)
	w.token = tok.AccessToken
	return w
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func gosdkText(t *testing.T, res *gosdk.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := res.Content[0].(*gosdk.TextContent)
	require.True(t, ok, "%T", res.Content[0])
	return tc.Text
}

// TestGatewayGoSDKClient: the go-sdk v1.8.0 client calls a TypeScript
// SDK server through the gateway, behind the OAuth proxy: without a
// token it is refused; with one, calls, sampling, progress and
// cancellation cross the gateway; with the upstream killed calls fail
// within the bound naming the upstream, and succeed again once it is
// back.
func TestGatewayGoSDKClient(t *testing.T) {
	t.Parallel()
	// go-sdk v1.8.0 speaks 2026-07-28 by default (no session: the
	// gateway's shared upstream connection), and 2025-11-25 when pinned
	// (a session, mapped to an upstream session of its own).
	for _, version := range []string{legacyProtocol, ""} {
		name := version
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			gatewayGoSDKClient(t, version)
		})
	}
}

func gatewayGoSDKClient(t *testing.T, version string) {
	w := newGatewayWorld(t)
	ctx := testContext(t, 90*time.Second)

	resp, err := http.Post(w.base+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the gateway is behind the OAuth proxy")

	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	var mu sync.Mutex
	var progress []float64
	var logs []string
	c := gosdk.NewClient(&gosdk.Implementation{Name: "go-sdk-gateway-client", Version: "1.0.0"}, &gosdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *gosdk.CreateMessageRequest) (*gosdk.CreateMessageResult, error) {
			text := req.Params.Messages[0].Content.(*gosdk.TextContent).Text
			return &gosdk.CreateMessageResult{Role: "assistant", Model: "go-test", Content: &gosdk.TextContent{Text: "go model says: " + text}}, nil
		},
		ProgressNotificationHandler: func(_ context.Context, req *gosdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Progress)
			mu.Unlock()
		},
		LoggingMessageHandler: func(_ context.Context, req *gosdk.LoggingMessageRequest) {
			b, _ := json.Marshal(req.Params.Data)
			mu.Lock()
			logs = append(logs, string(req.Params.Level)+" "+string(b))
			mu.Unlock()
		},
	})
	var so *gosdk.ClientSessionOptions
	if version != "" {
		so = &gosdk.ClientSessionOptions{ProtocolVersion: version}
	}
	sess, err := c.Connect(ctx, &gosdk.StreamableClientTransport{Endpoint: w.base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{w.token, tr}}}, so)
	require.NoError(t, err)
	defer sess.Close()
	t.Logf("go-sdk negotiated %s", sess.InitializeResult().ProtocolVersion)
	if version != "" {
		// 2026-07-28 has no logging/setLevel.
		require.NoError(t, sess.SetLoggingLevel(ctx, &gosdk.SetLoggingLevelParams{Level: "debug"}))
	}
	tools, err := sess.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	assert.Subset(t, names, []string{"add", "echo", "slow", "progress", "sample"})

	call := func(ctx context.Context, name string, args any) (*gosdk.CallToolResult, error) {
		return sess.CallTool(ctx, &gosdk.CallToolParams{Name: name, Arguments: args})
	}
	res, err := call(ctx, "add", map[string]any{"a": 2, "b": 3})
	require.NoError(t, err)
	assert.Equal(t, "5", gosdkText(t, res))

	res, err = call(ctx, "sample", map[string]any{"text": "hi"})
	require.NoError(t, err)
	assert.Equal(t, "go model says: hi", gosdkText(t, res), "the upstream's sampling request reached this client and its answer went back")

	res, err = sess.CallTool(ctx, &gosdk.CallToolParams{Name: "progress", Arguments: map[string]any{}, Meta: gosdk.Meta{"progressToken": "p1"}})
	require.NoError(t, err)
	assert.Equal(t, "done", gosdkText(t, res))
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		// go-sdk runs its notification handlers on their own goroutines.
		return len(progress) == 3 && (version == "" || len(logs) == 2)
	}, 5*time.Second, 10*time.Millisecond)
	mu.Lock()
	assert.Equal(t, []float64{1, 2, 3}, progress, "the upstream's progress crossed the gateway")
	if version != "" {
		assert.Contains(t, logs, `info {"message":"ref-everything/progress: progress started"}`, "the upstream's log messages crossed the gateway")
		assert.Contains(t, logs, `debug {"message":"ref-everything/progress: progress finished"}`)
		assert.Equal(t, 1, w.gateway.Sessions(), "the downstream session has an upstream session")
	} else {
		assert.Zero(t, w.gateway.Sessions(), "requests without a session use the shared connection")
	}
	mu.Unlock()

	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	start := time.Now()
	_, err = call(cctx, "slow", map[string]any{"ms": 900})
	cancel()
	require.Error(t, err)
	assert.Less(t, time.Since(start), 800*time.Millisecond, "the cancelled call returned at once")
	res, err = call(ctx, "echo", map[string]any{"text": "after cancel"})
	require.NoError(t, err)
	assert.Equal(t, "after cancel", gosdkText(t, res))

	// The upstream dies: calls fail within the bound, naming it.
	w.upstream.stop()
	for range 2 {
		start = time.Now()
		res, err = call(ctx, "echo", map[string]any{"text": "x"})
		require.NoError(t, err)
		assert.True(t, res.IsError)
		assert.Contains(t, gosdkText(t, res), `upstream "ref-everything" unavailable`)
		assert.Less(t, time.Since(start), 6*time.Second, "the failure comes within the connect bound")
	}
	// It is back (a new process, which knows no session): calls succeed.
	w.upstream.start()
	res, err = call(ctx, "echo", map[string]any{"text": "back"})
	require.NoError(t, err)
	require.False(t, res.IsError, gosdkText(t, res))
	assert.Equal(t, "back", gosdkText(t, res))
	res, err = call(ctx, "sample", map[string]any{"text": "again"})
	require.NoError(t, err)
	assert.Equal(t, "go model says: again", gosdkText(t, res))
}

// TestGatewayTypeScriptClient: the TypeScript SDK client does the same
// through the gateway (OAuth, sampling, progress, cancellation).
func TestGatewayTypeScriptClient(t *testing.T) {
	t.Parallel()
	w := newGatewayWorld(t)
	run := runNode(t, 60*time.Second, "gateway-client.mjs", w.base+"/mcp", w.token)
	require.Equal(t, 0, run.exitCode, "stderr: %s", run.stderr)
	var out struct {
		Connect  map[string]any `json:"connect"`
		Tools    []string       `json:"tools"`
		Add      any            `json:"add"`
		Sample   any            `json:"sample"`
		Progress struct {
			Text     string           `json:"text"`
			Progress []map[string]any `json:"progress"`
		} `json:"progress"`
		Cancel struct {
			Cancelled bool    `json:"cancelled"`
			MS        float64 `json:"ms"`
		} `json:"cancel"`
		After any `json:"after"`
	}
	require.NoError(t, json.Unmarshal(run.stdout, &out), "%s", run.stdout)
	t.Logf("ts client: %s", run.stdout)
	assert.Equal(t, "gateway", out.Connect["name"])
	assert.Subset(t, out.Tools, []string{"add", "echo", "slow", "progress", "sample"})
	assert.Equal(t, "5", out.Add)
	assert.Equal(t, "ts model says: hi", out.Sample)
	assert.Equal(t, "done", out.Progress.Text)
	require.NotEmpty(t, out.Progress.Progress, "progress crossed the gateway")
	assert.EqualValues(t, 3, out.Progress.Progress[len(out.Progress.Progress)-1]["total"])
	assert.True(t, out.Cancel.Cancelled)
	assert.Less(t, out.Cancel.MS, 800.0)
	assert.Equal(t, "still here", out.After)
}

// TestGatewayStdioBridge: a go-sdk v1.8.0 client speaking stdio reaches
// the TypeScript SDK server over Streamable HTTP through
// proxy.ServeStdio.
func TestGatewayStdioBridge(t *testing.T) {
	t.Parallel()
	up := startRefUpstream(t)
	ctx := testContext(t, 60*time.Second)
	cin, sout := io.Pipe()
	sin, cout := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- proxy.ServeStdio(ctx, client.HTTP(up.url(), nil), cin, cout,
			&proxy.StdioOptions{Gateway: proxy.Options{Server: mcp.Options{Logger: slog.New(slog.DiscardHandler)}}})
		_ = cout.Close()
	}()
	c := gosdk.NewClient(&gosdk.Implementation{Name: "go-sdk-stdio", Version: "1.0.0"}, &gosdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *gosdk.CreateMessageRequest) (*gosdk.CreateMessageResult, error) {
			return &gosdk.CreateMessageResult{Role: "assistant", Model: "m", Content: &gosdk.TextContent{Text: "stdio model"}}, nil
		},
	})
	sess, err := c.Connect(ctx, &gosdk.IOTransport{Reader: sin, Writer: sout}, nil)
	require.NoError(t, err)
	assert.Equal(t, "ref-everything", sess.InitializeResult().ServerInfo.Name)
	res, err := sess.CallTool(ctx, &gosdk.CallToolParams{Name: "add", Arguments: map[string]any{"a": 20, "b": 22}})
	require.NoError(t, err)
	assert.Equal(t, "42", gosdkText(t, res))
	res, err = sess.CallTool(ctx, &gosdk.CallToolParams{Name: "sample", Arguments: map[string]any{"text": "x"}})
	require.NoError(t, err)
	assert.Equal(t, "stdio model", gosdkText(t, res))
	rr, err := sess.ReadResource(ctx, &gosdk.ReadResourceParams{URI: "file:///hello.txt"})
	require.NoError(t, err)
	assert.Equal(t, "hello", rr.Contents[0].Text)
	require.NoError(t, sess.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("ServeStdio did not return once its input ended")
	}
}
