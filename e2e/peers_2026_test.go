package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
)

// What each peer server implements of revision 2026-07-28's client-facing
// behaviours, read in its source:
//
//	                       listen  ttlMs/cacheScope  tasks 2025-11-25  tasks extension
//	ts-sdk-v2 2.4.0        yes     yes (cacheHints)  no                no
//	go-sdk 1.8.0           yes     yes (SetCacheable) no               no
//	mcp-go 1.2.1           yes     yes (WithMethodCacheHints) yes      no
//
// The TypeScript SDK v2 server dropped tasks from its core (the task
// methods are excluded from its request map; @modelcontextprotocol/ext-tasks
// 0.2.2 holds a requester and a receiver of sampling and elicitation tasks,
// no tool-task server), the go-sdk has no tasks at all, and mcp-go
// implements the 2025-11-25 tasks (capabilities.tasks, tasks/get,
// tasks/result, tasks/cancel, tasks/list) but not the
// io.modelcontextprotocol/tasks extension: TestGoClientPeerTasks checks
// that package client says so (ErrTasksUnsupported) where there is none.
// The TypeScript SDK v1 and fastmcp-ts servers do not speak 2026-07-28.

// wireCount counts the requests a client sent, by method, as they leave
// it on the wire (a stdio line, or an HTTP POST body): a result served
// from the client's cache sends nothing.
type wireCount struct {
	mu sync.Mutex
	n  map[string]int
}

func (w *wireCount) note(msg []byte) {
	var m struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method == "" || len(m.ID) == 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == nil {
		w.n = map[string]int{}
	}
	w.n[m.Method]++
}

func (w *wireCount) get(method string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n[method]
}

// writer wraps the client's end of a stdio pipe, noting each line.
func (w *wireCount) writer(wc io.WriteCloser) io.WriteCloser {
	return &countingWriter{WriteCloser: wc, count: w}
}

type countingWriter struct {
	io.WriteCloser
	count *wireCount
	buf   []byte
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.buf = append(c.buf, p...)
	for {
		i := bytes.IndexByte(c.buf, '\n')
		if i < 0 {
			break
		}
		c.count.note(c.buf[:i])
		c.buf = c.buf[i+1:]
	}
	return c.WriteCloser.Write(p)
}

// httpClient is an HTTP client that notes every POST body it sends.
func (w *wireCount) httpClient() *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Method == http.MethodPost && r.Body != nil {
			b, err := io.ReadAll(r.Body)
			_ = r.Body.Close()
			if err != nil {
				return nil, err
			}
			w.note(b)
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// peer2026 is a peer server started for one subtest, with tools/list
// cacheable for a minute, the client's requests counted by wc; grow adds a
// tool of that name on the server after the client connected (by
// calling the peer's grow tool, or on the server object in this
// process).
type peer2026 func(t *testing.T, wc *wireCount) (tr client.Transport, grow func(ctx context.Context, c *client.Client, name string) error)

// peers2026 are the peer servers that speak 2026-07-28, by name and
// transport.
var peers2026 = []struct {
	name  string
	start map[string]peer2026
}{
	{"ts-sdk-v2-2.4.0", map[string]peer2026{
		"stdio": func(t *testing.T, wc *wireCount) (client.Transport, func(context.Context, *client.Client, string) error) {
			return stdioCounted(t, spawnNodePeer(t, "peer-v2.mjs", "--grow"), wc), growByTool
		},
		"http": func(t *testing.T, wc *wireCount) (client.Transport, func(context.Context, *client.Client, string) error) {
			url := startNodePeerHTTP(t, "peer-v2.mjs", false, "--grow")
			return client.HTTP(url, &client.HTTPOptions{Client: wc.httpClient()}), growByTool
		},
	}},
	// The go-sdk serves 2026-07-28 over stdio and, over HTTP, only from
	// its stateless handler (StreamableHTTPOptions.Stateless): the
	// stateful one answers -32022.
	{"go-sdk-1.8.0", map[string]peer2026{
		"stdio": func(t *testing.T, wc *wireCount) (client.Transport, func(context.Context, *client.Client, string) error) {
			srv := newGoSDKPeerServer(goSDKCacheable())
			return goSDKStdio(t, srv, wc.writer), growGoSDK(srv)
		},
		"http": func(t *testing.T, wc *wireCount) (client.Transport, func(context.Context, *client.Client, string) error) {
			srv := newGoSDKPeerServer(goSDKCacheable())
			ts := httptest.NewServer(gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return srv },
				&gosdk.StreamableHTTPOptions{Stateless: true}))
			t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
			return client.HTTP(ts.URL, &client.HTTPOptions{Client: wc.httpClient()}), growGoSDK(srv)
		},
	}},
	{"mcp-go-1.2.1", map[string]peer2026{
		"stdio": func(t *testing.T, wc *wireCount) (client.Transport, func(context.Context, *client.Client, string) error) {
			return stdioCounted(t, mcpGoStdioCmd(t, "MCPGO_PEER_GROW=1"), wc), growByTool
		},
		"http": func(t *testing.T, wc *wireCount) (client.Transport, func(context.Context, *client.Client, string) error) {
			progress := newProgressLog()
			srv := newMCPGoServer(progress, mcpGoCacheable)
			return client.HTTP(mcpGoHTTP(t, srv, progress), &client.HTTPOptions{Client: wc.httpClient()}), growMCPGo(srv)
		},
	}},
}

// stdioCounted starts cmd (a peer over stdio), the client's lines to it
// counted by wc.
func stdioCounted(t *testing.T, cmd *exec.Cmd, wc *wireCount) client.Transport {
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return client.Stdio(pipeRW{out, wc.writer(in)})
}

// growByTool calls the grow tool of peer-v2.mjs --grow.
func growByTool(ctx context.Context, c *client.Client, name string) error {
	res, err := c.CallTool(ctx, "grow", map[string]string{"name": name}, nil)
	if err == nil && res.IsError {
		err = errors.New(res.Text())
	}
	return err
}

// goSDKCacheable marks the go-sdk's tools/list cacheable for a minute.
func goSDKCacheable() *gosdk.ServerOptions {
	return &gosdk.ServerOptions{SetCacheable: func(_ context.Context, req gosdk.Request, c *gosdk.Cacheable) {
		if _, ok := req.(*gosdk.ListToolsRequest); ok {
			c.TTLMs, c.CacheScope = 60000, "public"
		}
	}}
}

func growGoSDK(srv *gosdk.Server) func(context.Context, *client.Client, string) error {
	return func(_ context.Context, _ *client.Client, name string) error {
		gosdk.AddTool(srv, &gosdk.Tool{Name: name, Description: "Added after connect"},
			func(context.Context, *gosdk.CallToolRequest, struct{}) (*gosdk.CallToolResult, any, error) {
				return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: name}}}, nil, nil
			})
		return nil
	}
}

// mcpGoCacheable marks mcp-go's tools/list cacheable for a minute.
var mcpGoCacheable = mcpgoserver.WithMethodCacheHints(mcpgo.MethodToolsList, 60000, mcpgo.CacheScopePublic)

func growMCPGo(srv *mcpgoserver.MCPServer) func(context.Context, *client.Client, string) error {
	return func(_ context.Context, _ *client.Client, name string) error {
		srv.AddTool(mcpgo.NewTool(name, mcpgo.WithDescription("Added after connect")),
			func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText(name), nil
			})
		return nil
	}
}

// TestGoClientPeers2026Behaviours: package client at revision 2026-07-28
// against each peer server that speaks it (the TypeScript SDK v2, the
// go-sdk, mcp-go), over stdio and HTTP, subtests peer/transport/behaviour:
//
//   - listen: the client opens its subscriptions/listen stream at
//     connect; a tool the server adds afterwards reaches
//     Options.OnToolsChanged through that stream, and the next ListTools
//     has it.
//   - cache: tools/list carries ttlMs 60000; a second ListTools within it
//     sends no request (counted on the wire), a list_changed heard on the
//     listen stream drops the kept list (the next ListTools asks again
//     and has the new tool), which is kept again.
//
// Tasks are in TestGoClientPeerTasks.
func TestGoClientPeers2026Behaviours(t *testing.T) {
	t.Parallel()
	for _, p := range peers2026 {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			for _, transport := range []string{"stdio", "http"} {
				t.Run(transport, func(t *testing.T) {
					t.Parallel()
					t.Run("listen", func(t *testing.T) { testPeerListen(t, p.start[transport]) })
					t.Run("cache", func(t *testing.T) { testPeerCache(t, p.start[transport]) })
				})
			}
		})
	}
}

// connectPeer2026 connects at 2026-07-28 to a peer started with start,
// OnToolsChanged sending on the returned channel.
func connectPeer2026(t *testing.T, ctx context.Context, start peer2026) (*client.Client, *wireCount, func(context.Context, *client.Client, string) error, <-chan struct{}) {
	wc := &wireCount{}
	tr, grow := start(t, wc)
	changed := make(chan struct{}, 16)
	c, err := client.Connect(ctx, tr, &client.Options{
		Info:            mcp.Implementation{Name: "mcpchain-e2e", Version: "1.0.0"},
		ProtocolVersion: mcp.Version20260728,
		OnToolsChanged: func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, c.Close()) })
	require.Equal(t, mcp.Version20260728, c.ProtocolVersion(), "the revision spoken")
	return c, wc, grow, changed
}

func toolNames(t *testing.T, ctx context.Context, c *client.Client) []string {
	t.Helper()
	tools, err := c.ListTools(ctx)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	return names
}

func awaitChanged(t *testing.T, ctx context.Context, changed <-chan struct{}) {
	t.Helper()
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("OnToolsChanged was not called: the list change did not come through the listen stream")
	}
}

func testPeerListen(t *testing.T, start peer2026) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, wc, grow, changed := connectPeer2026(t, ctx, start)
	require.Equal(t, 1, wc.get("subscriptions/listen"), "the client opened its listen stream at connect")
	assert.NotContains(t, toolNames(t, ctx, c), "grown")
	require.NoError(t, grow(ctx, c, "grown"))
	awaitChanged(t, ctx, changed)
	assert.Contains(t, toolNames(t, ctx, c), "grown")
}

func testPeerCache(t *testing.T, start peer2026) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, wc, grow, changed := connectPeer2026(t, ctx, start)
	first := toolNames(t, ctx, c)
	require.Equal(t, 1, wc.get("tools/list"))
	assert.Equal(t, first, toolNames(t, ctx, c))
	assert.Equal(t, 1, wc.get("tools/list"), "a second ListTools within ttlMs makes no round trip")

	require.NoError(t, grow(ctx, c, "grown"))
	awaitChanged(t, ctx, changed)
	assert.Contains(t, toolNames(t, ctx, c), "grown", "the list_changed dropped the kept list")
	assert.Equal(t, 2, wc.get("tools/list"), "the ListTools after list_changed asked the server")
	assert.Contains(t, toolNames(t, ctx, c), "grown")
	assert.Equal(t, 2, wc.get("tools/list"), "the new list is kept again")
}

// TestGoClientPeerTasks: package client's tasks against the peer
// servers. mcp-go 1.2.1 runs its tool sleep as a task at 2025-11-25 (over
// stdio and HTTP): StartTool answers with a task ID, Status says
// working, Wait returns the tool's result, and Cancel ends a long task
// (Wait returns ErrTaskCancelled, Status says cancelled). mcp-go cancels
// a task's context once the tools/call that created it is answered (see
// addMCPGoTaskTool), so whether the tool itself hears the cancellation is
// not observable there. Where a server has no tasks the client refuses
// before anything runs, with ErrTasksUnsupported: at 2026-07-28 none of
// the three declares the io.modelcontextprotocol/tasks extension (n/a:
// no peer implements it), at 2025-11-25 the TypeScript SDK v2 and the
// go-sdk declare no capabilities.tasks (n/a: neither implements tasks).
func TestGoClientPeerTasks(t *testing.T) {
	t.Parallel()
	connect := func(t *testing.T, ctx context.Context, tr client.Transport, v mcp.Version) *client.Client {
		c, err := client.Connect(ctx, tr, &client.Options{Info: mcp.Implementation{Name: "mcpchain-e2e", Version: "1.0.0"}, ProtocolVersion: v})
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, c.Close()) })
		require.Equal(t, v, c.ProtocolVersion())
		return c
	}
	mcpGoTasks := map[string]func(t *testing.T) client.Transport{
		"stdio": func(t *testing.T) client.Transport { return client.Command(mcpGoStdioCmd(t, "MCPGO_PEER_TASKS=1")) },
		"http": func(t *testing.T) client.Transport {
			stop := make(chan struct{})
			t.Cleanup(func() { close(stop) })
			progress := newProgressLog()
			srv := newMCPGoServer(progress)
			addMCPGoTaskTool(srv, stop)
			return client.HTTP(mcpGoHTTP(t, srv, progress), nil)
		},
	}
	for _, transport := range []string{"stdio", "http"} {
		t.Run("mcp-go-1.2.1/"+transport+"/2025-11-25", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c := connect(t, ctx, mcpGoTasks[transport](t), mcp.Version20251125)

			task, err := c.StartTool(ctx, "sleep", map[string]int{"ms": 50}, nil)
			require.NoError(t, err)
			require.NotEmpty(t, task.ID(), "the server ran the call as a task")
			res, err := task.Wait(ctx)
			require.NoError(t, err)
			assert.Equal(t, "slept", res.Text())

			long, err := c.StartTool(ctx, "sleep", map[string]int{"ms": 60000}, nil)
			require.NoError(t, err)
			require.NotEmpty(t, long.ID())
			info, err := long.Status(ctx)
			require.NoError(t, err)
			assert.Equal(t, "working", info.Status)
			require.NoError(t, long.Cancel(ctx))
			_, err = long.Wait(ctx)
			assert.ErrorIs(t, err, client.ErrTaskCancelled)
			info, err = long.Status(ctx)
			require.NoError(t, err)
			assert.Equal(t, "cancelled", info.Status)
		})
	}
	for _, p := range peers2026 {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(p.name+"/"+transport+"/2026-07-28", func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				tr, _ := p.start[transport](t, &wireCount{})
				c := connect(t, ctx, tr, mcp.Version20260728)
				_, err := c.StartTool(ctx, "slow", map[string]int{"ms": 50}, nil)
				assert.ErrorIs(t, err, client.ErrTasksUnsupported, "no tasks extension declared")
			})
		}
	}
	for _, p := range peers {
		if !slices.Contains([]string{"ts-sdk-v2-2.4.0", "go-sdk-1.8.0"}, p.name) {
			continue
		}
		// The v2 HTTP entry serves the 2025 era statelessly; stdio is
		// enough to read its initialize capabilities.
		t.Run(p.name+"/stdio/2025-11-25", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			c := connect(t, ctx, p.start["stdio"](t), mcp.Version20251125)
			_, err := c.StartTool(ctx, "slow", map[string]int{"ms": 50}, nil)
			assert.ErrorIs(t, err, client.ErrTasksUnsupported, "no capabilities.tasks declared")
		})
	}
}
