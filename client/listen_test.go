package client

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// listenRecorder sits in front of an MCP handler: it keeps the filter of
// every subscriptions/listen request, and can end the streams open so
// far (as a server that restarts does).
type listenRecorder struct {
	next http.Handler

	mu      sync.Mutex
	filters []json.RawMessage
	cuts    []context.CancelFunc
}

func (lr *listenRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		lr.next.ServeHTTP(w, r)
		return
	}
	// The body, not the Mcp-Method header, which InProcess does not send.
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var m struct {
		Method string `json:"method"`
		Params struct {
			Notifications json.RawMessage `json:"notifications"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != "subscriptions/listen" {
		lr.next.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithCancel(r.Context())
	lr.mu.Lock()
	lr.filters = append(lr.filters, m.Params.Notifications)
	lr.cuts = append(lr.cuts, cancel)
	lr.mu.Unlock()
	lr.next.ServeHTTP(w, r.WithContext(ctx))
}

// listens returns the filters of the subscriptions/listen requests so far.
func (lr *listenRecorder) listens() []string {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	var out []string
	for _, f := range lr.filters {
		out = append(out, string(f))
	}
	return out
}

// endStreams ends, on the server, every listen stream open so far.
func (lr *listenRecorder) endStreams() {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	for _, cancel := range lr.cuts {
		cancel()
	}
}

// listenServer serves srv statelessly over HTTP behind a listenRecorder.
func listenServer(t *testing.T, srv *mcp.Server) (*httptest.Server, *listenRecorder) {
	t.Helper()
	h := mcphttp.New(srv, &mcphttp.Options{Stateless: true})
	lr := &listenRecorder{next: h}
	ts := httptest.NewServer(lr)
	t.Cleanup(func() {
		lr.endStreams()
		ts.CloseClientConnections()
		ts.Close()
		_ = h.Close()
	})
	return ts, lr
}

// listenTransports are the transports the listen tests run over: HTTP,
// and InProcess through the same handler.
var listenTransports = []struct {
	name string
	of   func(*httptest.Server, *listenRecorder) Transport
}{
	{"HTTP", func(ts *httptest.Server, _ *listenRecorder) Transport { return HTTP(ts.URL, nil) }},
	{"InProcess", func(_ *httptest.Server, lr *listenRecorder) Transport { return InProcess(lr, nil) }},
}

// notesServer is a server whose tool list may be reused for a minute,
// with a resource one may subscribe to.
func notesServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0",
		Cache: &mcp.CacheOptions{Tools: mcp.CacheHint{TTL: time.Minute, Scope: mcp.CachePublic}}})
	mcp.AddTool(srv, mcp.Tool{Name: "a"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "a", nil })
	srv.AddResource(mcp.Resource{URI: "note://1", Name: "one",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: "note://1", Text: "one"}}, nil
		}})
	return srv
}

func rev20260728Options(o Options) *Options {
	o.ProtocolVersion = mcp.Version20260728
	return &o
}

// signal returns a callback that sends on a channel it returns.
func signal() (func(), chan struct{}) {
	ch := make(chan struct{}, 16)
	return func() { ch <- struct{}{} }, ch
}

func await(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestListenFilter: at 2026-07-28 Connect opens one subscriptions/listen
// stream for the list changes the server announces and something of
// Options wants (a callback, OnNotification, the cache), and none when
// nothing does or HTTPOptions.NoListen says so.
func TestListenFilter(t *testing.T) {
	t.Parallel()
	noop := func() {}
	for _, tt := range []struct {
		name     string
		opts     Options
		noListen bool
		want     []string
	}{
		{"nothing wants it", Options{DisableCache: true}, false, nil},
		{"a tools callback", Options{DisableCache: true, OnToolsChanged: noop}, false, []string{`{"toolsListChanged":true}`}},
		{"the cache", Options{}, false, []string{`{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}`}},
		{"OnNotification", Options{DisableCache: true, OnNotification: func(string, json.RawMessage) {}}, false,
			[]string{`{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}`}},
		{"NoListen", Options{OnToolsChanged: noop}, true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts, lr := listenServer(t, notesServer())
			c, err := Connect(context.Background(), HTTP(ts.URL, &HTTPOptions{NoListen: tt.noListen}), rev20260728Options(tt.opts))
			require.NoError(t, err)
			defer c.Close()
			require.Equal(t, mcp.Version20260728, c.ProtocolVersion())
			// Connect returns once the stream it opens is acknowledged.
			assert.Equal(t, tt.want, lr.listens())
		})
	}
}

// TestListenNotifies: a tool added on the server reaches OnToolsChanged
// through the listen stream, and the tool list the cache kept is dropped;
// a resource subscribed to reaches OnResourceUpdated, and after
// Unsubscribe the stream is opened again without it.
func TestListenNotifies(t *testing.T) {
	t.Parallel()
	for _, tr := range listenTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			testListenNotifies(t, tr.of)
		})
	}
}

func testListenNotifies(t *testing.T, transport func(*httptest.Server, *listenRecorder) Transport) {
	srv := notesServer()
	ts, lr := listenServer(t, srv)
	onTools, tools := signal()
	updated := make(chan string, 16)
	ctx := context.Background()
	c, err := Connect(ctx, transport(ts, lr), rev20260728Options(Options{OnToolsChanged: onTools,
		OnResourceUpdated: func(uri string) { updated <- uri }}))
	require.NoError(t, err)
	defer c.Close()

	list, err := c.ListTools(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	list, err = c.ListTools(ctx) // from the cache
	require.NoError(t, err)
	require.Len(t, list, 1)

	mcp.AddTool(srv, mcp.Tool{Name: "b"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "b", nil })
	await(t, tools, "OnToolsChanged")
	list, err = c.ListTools(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 2, "the cached list was dropped")

	require.NoError(t, c.Subscribe(ctx, "note://1"))
	srv.ResourceUpdated("note://1")
	select {
	case uri := <-updated:
		assert.Equal(t, "note://1", uri)
	case <-time.After(10 * time.Second):
		t.Fatal("no OnResourceUpdated")
	}
	require.NoError(t, c.Unsubscribe(ctx, "note://1"))
	assert.Equal(t, []string{
		`{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}`,
		`{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true,"resourceSubscriptions":["note://1"]}`,
		`{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}`,
	}, lr.listens())
	// The stream is still there: another change is heard.
	mcp.AddTool(srv, mcp.Tool{Name: "c"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "c", nil })
	await(t, tools, "OnToolsChanged after Unsubscribe")
}

// TestSubscribeWithoutCapability: at 2026-07-28 Subscribe to a server
// that does not announce resources.subscribe fails without a request.
func TestSubscribeWithoutCapability(t *testing.T) {
	t.Parallel()
	ts := fakeListenServer(t, "")
	c, err := Connect(context.Background(), HTTP(ts.URL, nil), rev20260728Options(Options{DisableCache: true}))
	require.NoError(t, err)
	defer c.Close()
	err = c.Subscribe(context.Background(), "note://1")
	require.ErrorContains(t, err, "capabilities.resources.subscribe")
	c.lis.mu.Lock()
	assert.Empty(t, c.lis.byID, "no stream was opened")
	c.lis.mu.Unlock()
}

// TestListenReconnects: when the listen stream ends (the server ends it,
// or the connection is cut), the client opens it again with the same
// filter and subscriptions, drops its cache, and calls the callbacks of
// what it listens to once; changes are heard on the new stream.
func TestListenReconnects(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		transport func(*httptest.Server, *listenRecorder) Transport
		cut       func(*httptest.Server, *listenRecorder)
	}{
		{"the server ends the stream", listenTransports[0].of, func(_ *httptest.Server, lr *listenRecorder) { lr.endStreams() }},
		{"the connection is cut", listenTransports[0].of, func(ts *httptest.Server, _ *listenRecorder) { ts.CloseClientConnections() }},
		{"the server ends the stream, in process", listenTransports[1].of, func(_ *httptest.Server, lr *listenRecorder) { lr.endStreams() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := notesServer()
			ts, lr := listenServer(t, srv)
			onTools, tools := signal()
			updated := make(chan string, 16)
			ctx := context.Background()
			c, err := Connect(ctx, tt.transport(ts, lr), rev20260728Options(Options{OnToolsChanged: onTools,
				OnResourceUpdated: func(uri string) { updated <- uri }}))
			require.NoError(t, err)
			defer c.Close()
			require.NoError(t, c.Subscribe(ctx, "note://1"))
			_, err = c.ListTools(ctx)
			require.NoError(t, err)
			require.Len(t, lr.listens(), 2)

			start := time.Now()
			tt.cut(ts, lr)
			// The callbacks run once the new stream is acknowledged.
			await(t, tools, "OnToolsChanged after the reconnection")
			select {
			case uri := <-updated:
				assert.Equal(t, "note://1", uri)
			case <-time.After(10 * time.Second):
				t.Fatal("no OnResourceUpdated after the reconnection")
			}
			t.Logf("reconnected in %v", time.Since(start))
			got := lr.listens()
			require.Len(t, got, 3)
			assert.Equal(t, got[1], got[2], "the same filter, the subscription with it")
			c.cache.mu.Lock()
			kept := len(c.cache.entries)
			c.cache.mu.Unlock()
			assert.Zero(t, kept, "the cache was dropped")

			mcp.AddTool(srv, mcp.Tool{Name: "b"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "b", nil })
			await(t, tools, "OnToolsChanged on the new stream")
			srv.ResourceUpdated("note://1")
			select {
			case uri := <-updated:
				assert.Equal(t, "note://1", uri)
			case <-time.After(10 * time.Second):
				t.Fatal("no OnResourceUpdated on the new stream")
			}
		})
	}
}

// TestListenCloseDuringBackoff: a client whose server is gone keeps
// trying to listen; Close stops it at once (goleak, in TestMain, checks
// that nothing is left running).
func TestListenCloseDuringBackoff(t *testing.T) {
	t.Parallel()
	srv := notesServer()
	h := mcphttp.New(srv, &mcphttp.Options{Stateless: true})
	defer h.Close()
	ts := httptest.NewServer(h)
	var logs syncBuffer
	c, err := Connect(context.Background(), HTTP(ts.URL, nil), rev20260728Options(Options{
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}))
	require.NoError(t, err)
	require.NoError(t, h.Close()) // ends the listen stream
	ts.CloseClientConnections()
	ts.Close()
	done := make(chan error, 1)
	go func() { done <- c.Close() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fakeListenServer answers server/discover announcing tools.listChanged
// and subscriptions/listen with stream, an SSE body written as is (%ID%
// replaced by the request's id), then keeps the stream open until the
// client closes it.
func fakeListenServer(t *testing.T, stream string) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.NewDecoder(r.Body).Decode(&m)
		switch m.Method {
		case "server/discover":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],`+
				`"capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fake","version":"1"}}}`)
		case "subscriptions/listen":
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = io.WriteString(w, strings.ReplaceAll(stream, "%ID%", string(m.ID)))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "tools/list":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"resultType":"complete","tools":[]}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts
}

// TestListenBadInput: what does not decode on the listen stream (an event
// that is not JSON, an acknowledgement without a subscription ID or with
// one the client never sent, a notification whose params are not an
// object) is logged and dropped; the stream and the client go on.
func TestListenBadInput(t *testing.T) {
	t.Parallel()
	const ack = `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%ID%},"notifications":{"toolsListChanged":true}}}` + "\n\n"
	const changed = `data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":%ID%}}}` + "\n\n"
	for _, tt := range []struct {
		name, bad, log string
	}{
		{"not JSON", "data: {not json\n\n", "does not decode"},
		{"ack without an ID", `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{}}}` + "\n\n",
			"acknowledgement does not decode"},
		{"ack with a foreign ID", `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"abc"}}}` + "\n\n",
			"acknowledgement does not decode"},
		{"ack that is not an object", `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":[1]}` + "\n\n",
			"acknowledgement does not decode"},
		{"a filter of the wrong type", `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{"toolsListChanged":"yes"}}}` + "\n\n",
			"acknowledgement does not decode"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := fakeListenServer(t, tt.bad+ack+tt.bad+changed)
			var logs syncBuffer
			onTools, tools := signal()
			c, err := Connect(context.Background(), HTTP(ts.URL, nil), rev20260728Options(Options{DisableCache: true, OnToolsChanged: onTools,
				Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
			require.NoError(t, err)
			defer c.Close()
			await(t, tools, "OnToolsChanged after the bad input")
			assert.Contains(t, logs.String(), tt.log)
			_, err = c.ListTools(context.Background())
			require.NoError(t, err)
		})
	}
}

// TestListenRefused: a server that answers subscriptions/listen with
// -32601 is not asked again; Connect succeeds and logs why.
func TestListenRefused(t *testing.T) {
	t.Parallel()
	ts := fakeListenServer(t, "")
	var calls int
	var mu sync.Mutex
	inner := ts.Config.Handler
	ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "subscriptions/listen" {
			mu.Lock()
			calls++
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`)
			return
		}
		inner.ServeHTTP(w, r)
	})
	var logs syncBuffer
	c, err := Connect(context.Background(), HTTP(ts.URL, nil), rev20260728Options(Options{OnToolsChanged: func() {},
		Logger: slog.New(slog.NewTextHandler(&logs, nil))}))
	require.NoError(t, err)
	defer c.Close()
	assert.Contains(t, logs.String(), "refused subscriptions/listen")
	c.lis.mu.Lock()
	halted := c.lis.halted
	c.lis.mu.Unlock()
	assert.Error(t, halted)
	mu.Lock()
	assert.Equal(t, 1, calls)
	mu.Unlock()
}

func TestListenBackoff(t *testing.T) {
	t.Parallel()
	for n, want := range []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second} {
		for range 50 {
			d := listenBackoff(n)
			assert.GreaterOrEqual(t, d, want/2)
			assert.LessOrEqual(t, d, want)
		}
	}
	for _, n := range []int{7, 8, 20, 63, 1000} {
		d := listenBackoff(n)
		assert.GreaterOrEqual(t, d, listenBackoffCap/2, n)
		assert.LessOrEqual(t, d, listenBackoffCap, n)
	}
}

func TestDecodeAck(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in     string
		id     int64
		filter listenFilter
		ok     bool
	}{
		{`{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"notifications":{"toolsListChanged":true,"resourceSubscriptions":["a://1"]}}`,
			7, listenFilter{Tools: true, URIs: []string{"a://1"}}, true},
		{`{"_meta":{"io.modelcontextprotocol/subscriptionId":"7"}}`, 7, listenFilter{}, true},
		{`{"_meta":{"io.modelcontextprotocol/subscriptionId":-1}}`, 0, listenFilter{}, false},
		{`{"_meta":{}}`, 0, listenFilter{}, false},
		{`{}`, 0, listenFilter{}, false},
		{`null`, 0, listenFilter{}, false},
		{`"x"`, 0, listenFilter{}, false},
		{`{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":[]}`, 0, listenFilter{}, false},
	} {
		id, f, err := decodeAck(json.RawMessage(tt.in))
		if !tt.ok {
			assert.Error(t, err, tt.in)
			continue
		}
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.id, id, tt.in)
		assert.Equal(t, tt.filter, f, tt.in)
	}
}
