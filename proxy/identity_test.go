package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// person is auth data with a subject: the identity rule compares callers
// by it.
type person struct{ ID string }

func (p person) Subject() string { return p.ID }

// badge is opaque auth data: no subject, so it shares nothing.
type badge struct{ token string }

// whoUpstream is a real mcpchain server that knows its caller by the
// X-User header (the credential the gateway's Options.Upstream puts in
// the transport) and answers "who" with that caller ("anonymous" without
// one). It is served over loopback HTTP, or in process with the callers'
// connections tapped (inProcess). dials records whose credential each
// upstream connection the gateway opened carried.
type whoUpstream struct {
	srv *mcp.Server
	h   *mcphttp.Handler
	url string // "" in process
	tap *taps  // the callers' connections, in process

	// started gets the gate of each "hold" call once it runs, cancelled
	// that of one cancelled; openGate lets the calls at a gate go on.
	started   chan string
	cancelled chan string
	mu        sync.Mutex
	gates     map[string]chan struct{}
	dials     []string
}

func newWhoUpstream(t *testing.T) *whoUpstream {
	t.Helper()
	w := newWhoServer(t)
	hs := httptest.NewServer(w.h)
	t.Cleanup(hs.Close)
	w.url = hs.URL
	return w
}

// inProcess returns a whoUpstream served in process, whose connections
// for callers are tapped.
func inProcess(t *testing.T) *whoUpstream {
	t.Helper()
	w := newWhoServer(t)
	w.tap = newTaps()
	return w
}

func newWhoServer(t *testing.T) *whoUpstream {
	t.Helper()
	w := &whoUpstream{started: make(chan string, 16), cancelled: make(chan string, 16), gates: map[string]chan struct{}{}}
	w.srv = mcp.NewServer(mcp.Options{Name: "who", Version: "1.0.0", Logger: quiet,
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return person{ID: u}, nil
			}
			return nil, nil
		}})
	caller := func(c *mcp.Context) string {
		if p, ok := c.Session.(person); ok {
			return p.ID
		}
		return "anonymous"
	}
	mcp.AddTool(w.srv, mcp.Tool{Name: "who"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return caller(c), nil
	})
	// hold waits at its gate, then answers with its caller, or asks the
	// client for its roots (then: "roots") and answers with the first.
	mcp.AddTool(w.srv, mcp.Tool{Name: "hold"}, func(ctx context.Context, c *mcp.Context, in struct {
		Gate string `json:"gate"`
		Then string `json:"then,omitempty"`
	}) (string, error) {
		w.started <- in.Gate
		select {
		case <-w.gate(in.Gate):
		case <-ctx.Done():
			w.cancelled <- in.Gate
			return "", ctx.Err()
		}
		if in.Then != "roots" {
			return caller(c), nil
		}
		return firstRoot(ctx, c)
	})
	mcp.AddTool(w.srv, mcp.Tool{Name: "roots"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return firstRoot(ctx, c)
	})
	// tick waits at its gate, then reports progress n times, each step
	// with the tag its caller gave.
	mcp.AddTool(w.srv, mcp.Tool{Name: "tick"}, func(ctx context.Context, c *mcp.Context, in struct {
		Gate string `json:"gate"`
		Tag  string `json:"tag"`
		N    int    `json:"n"`
	}) (string, error) {
		w.started <- in.Gate
		<-w.gate(in.Gate)
		for i := 1; i <= in.N; i++ {
			if err := c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: float64(in.N), Message: in.Tag}); err != nil {
				return "", err
			}
		}
		return in.Tag, nil
	})
	for _, uri := range []string{"note://x", "note://y"} {
		w.srv.AddResource(mcp.Resource{URI: uri, Name: uri[len("note://"):],
			Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{{Text: "note"}}, nil
			}})
	}
	w.h = mcphttp.New(w.srv, nil)
	t.Cleanup(func() { _ = w.h.Close() })
	return w
}

// firstRoot asks the client for its roots and returns the first.
func firstRoot(ctx context.Context, c *mcp.Context) (string, error) {
	roots, err := c.Roots(ctx)
	if err != nil {
		return "", err
	}
	if len(roots) == 0 {
		return "", errors.New("no roots")
	}
	return roots[0].URI, nil
}

// gate returns the channel the calls at gate name wait on.
func (w *whoUpstream) gate(name string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := w.gates[name]
	if ch == nil {
		ch = make(chan struct{})
		w.gates[name] = ch
	}
	return ch
}

// open lets the calls at gate name go on.
func (w *whoUpstream) openGate(name string) { close(w.gate(name)) }

// waitStarted waits until a call at gate name runs upstream.
func (w *whoUpstream) waitStarted(t *testing.T, name string) {
	t.Helper()
	select {
	case g := <-w.started:
		require.Equal(t, name, g)
	case <-time.After(10 * time.Second):
		t.Fatalf("no call reached gate %s upstream", name)
	}
}

// credential is what the gateway's Options.Upstream derives from the
// downstream caller: its subject, or nothing.
func credential(c *mcp.Context) string {
	if c == nil {
		return ""
	}
	if p, ok := c.Session.(person); ok {
		return p.ID
	}
	if b, ok := c.Session.(badge); ok {
		return "badge-" + b.token
	}
	return ""
}

// transport is the gateway's Options.Upstream: the caller's credential in
// the X-User header. It records each dial: "gateway" for the gateway's
// own (nil), else the credential ("-" for a caller without one), which
// names the connection's tap in process.
func (w *whoUpstream) transport(c *mcp.Context) client.Transport {
	cred := credential(c)
	rec := cred
	switch {
	case c == nil:
		rec = "gateway"
	case cred == "":
		rec = "-"
	}
	w.mu.Lock()
	w.dials = append(w.dials, rec)
	w.mu.Unlock()
	h := http.Header{}
	if cred != "" {
		h.Set("X-User", cred)
	}
	if w.url != "" {
		return client.HTTP(w.url, &client.HTTPOptions{Header: h})
	}
	if c == nil {
		return client.InProcess(w.h, h)
	}
	return w.tap.transport(rec, client.InProcess(w.h, h))
}

// dialed returns the dials recorded so far.
func (w *whoUpstream) dialed() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.dials)
}

// open returns whose upstream sessions are open, sorted ("anonymous" for
// the gateway's own).
func (w *whoUpstream) open() []string {
	var out []string
	for _, s := range w.h.Sessions() {
		if p, ok := s.Auth.(person); ok {
			out = append(out, p.ID)
		} else {
			out = append(out, "anonymous")
		}
	}
	slices.Sort(out)
	return out
}

// breakAll ends every upstream session: the gateway's next request on
// each gets 404, as after an upstream restart.
func (w *whoUpstream) breakAll() {
	for _, s := range w.h.Sessions() {
		w.h.EndSession(s.ID)
	}
}

// downstreamAs returns a downstream client of h whose requests carry the
// caller user ("" for none).
func downstreamAs(t *testing.T, h http.Handler, user string) *client.Client {
	t.Helper()
	return downstreamWith(t, h, user, nil)
}

// downstreamWith is downstreamAs with client options.
func downstreamWith(t *testing.T, h http.Handler, user string, opts *client.Options) *client.Client {
	t.Helper()
	hd := http.Header{}
	if user != "" {
		hd.Set("Authorization", "Bearer "+user)
	}
	if opts == nil {
		opts = &client.Options{}
	}
	opts.Logger = quiet
	c, err := client.Connect(context.Background(), client.InProcess(h, hd), opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// bearerAuth is the gateway's Authenticate: "Bearer badge:X" is opaque
// auth data, any other bearer token names a subject, none is anonymous.
func bearerAuth(r *http.Request) (any, error) {
	tok, ok := bearerToken(r)
	if !ok {
		return nil, nil
	}
	if b, ok := cutPrefix(tok, "badge:"); ok {
		return badge{token: b}, nil
	}
	return person{ID: tok}, nil
}

func bearerToken(r *http.Request) (string, bool) {
	return cutPrefix(r.Header.Get("Authorization"), "Bearer ")
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) < len(p) || s[:len(p)] != p {
		return "", false
	}
	return s[len(p):], true
}

// statelessGateway starts a gateway to w, with Authenticate, served by a
// stateless HTTP handler: every downstream request is sessionless.
func statelessGateway(t *testing.T, w *whoUpstream, opts proxy.Options) (*proxy.Gateway, *mcphttp.Handler) {
	t.Helper()
	opts.Upstream = w.transport
	opts.Server.Logger = quiet
	opts.Server.Authenticate = bearerAuth
	g, err := proxy.New(context.Background(), opts)
	require.NoError(t, err)
	h := mcphttp.New(g.Server(), &mcphttp.Options{Stateless: true})
	t.Cleanup(func() {
		_ = h.Close()
		_ = g.Close()
	})
	return g, h
}

// sessionful serves g's server with sessions (revision 2025-11-25
// clients get one each).
func sessionful(t *testing.T, g *proxy.Gateway) *mcphttp.Handler {
	t.Helper()
	h := mcphttp.New(g.Server(), nil)
	t.Cleanup(func() { _ = h.Close() })
	return h
}

// who calls the mirrored "who" tool through c and returns whom the
// upstream saw.
func who(t *testing.T, c *client.Client) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), "who", nil, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	return res.Text()
}

// TestGatewayUpstreamKeepsEachCallersIdentity: two
// users call through the gateway without a session; the upstream
// connection breaks (404: the upstream forgot its sessions) while user A
// calls, so the gateway connects again. User B's next call must still
// reach the upstream as B, never with A's credential, and an anonymous
// caller as nobody.
func TestGatewayUpstreamKeepsEachCallersIdentity(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	_, h := statelessGateway(t, w, proxy.Options{})
	alice, bob, anon := downstreamAs(t, h, "alice"), downstreamAs(t, h, "bob"), downstreamAs(t, h, "")

	assert.Equal(t, "alice", who(t, alice))
	assert.Equal(t, "bob", who(t, bob))
	assert.Equal(t, "anonymous", who(t, anon))

	w.breakAll()
	assert.Equal(t, "alice", who(t, alice), "A's call meets the break and connects again")
	assert.Equal(t, "bob", who(t, bob), "B never reaches the upstream with A's credential")
	assert.Equal(t, "anonymous", who(t, anon), "an anonymous caller never reaches it with A's credential")

	// The other way round: the anonymous caller meets the break first.
	w.breakAll()
	assert.Equal(t, "anonymous", who(t, anon))
	assert.Equal(t, "bob", who(t, bob))
	assert.Equal(t, "alice", who(t, alice))

	// The gateway's own connection (the anonymous caller's) was opened
	// with Options.Upstream(nil) each time, never with a caller's
	// Context; each caller's with that caller's.
	count := map[string]int{}
	for _, d := range w.dialed() {
		count[d]++
	}
	assert.Equal(t, map[string]int{"gateway": 3, "alice": 3, "bob": 3}, count,
		"three openings of each connection: at first and after each break")
}

// TestGatewaySessionReconnectsAsItsCaller: each downstream session has
// an upstream session of its own, opened with its caller; when the
// upstream forgets them all, each is opened again with its own caller,
// whichever session meets the break first.
func TestGatewaySessionReconnectsAsItsCaller(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	g, _ := statelessGateway(t, w, proxy.Options{})
	h := sessionful(t, g)
	alice, bob := downstreamAs(t, h, "alice"), downstreamAs(t, h, "bob")
	assert.Equal(t, "alice", who(t, alice))
	assert.Equal(t, "bob", who(t, bob))
	require.Equal(t, 2, g.Sessions())
	w.breakAll()
	assert.Equal(t, "bob", who(t, bob))
	assert.Equal(t, "alice", who(t, alice))
	c := count(w.dialed())
	assert.Equal(t, 2, c["alice"])
	assert.Equal(t, 2, c["bob"])
	assert.Zero(t, c["-"], "no connection is opened with a caller without a credential")
}

// holdAsync calls hold at gate through c on a goroutine of its own; the
// channel gets its result's text or error.
func holdAsync(c *client.Client, args map[string]string) <-chan string {
	out := make(chan string, 1)
	go func() {
		res, err := c.CallTool(context.Background(), "hold", args, nil)
		if err != nil {
			out <- err.Error()
			return
		}
		out <- res.Text()
	}()
	return out
}

// callOrError calls tool through c and returns its text, or its error's.
func callOrError(c *client.Client, tool string) string {
	res, err := c.CallTool(context.Background(), tool, nil, nil)
	if err != nil {
		return err.Error()
	}
	return res.Text()
}

// withRoots are the options of a 2026-07-28 client (sessionless, which
// answers the server's questions in input-required rounds) whose root
// is uri.
func withRoots(uri string) *client.Options {
	return &client.Options{ProtocolVersion: mcp.Version20260728,
		Roots: func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: uri}}, nil }}
}

// TestGatewayPooledConnectionRoutesOnlyAlone: the upstream's requests to
// its client (here roots/list) on a caller's pooled connection reach a
// downstream call only while it is alone in flight there; another
// caller's call in flight elsewhere does not stop it, since that caller
// has a connection of its own.
func TestGatewayPooledConnectionRoutesOnlyAlone(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	_, h := statelessGateway(t, w, proxy.Options{})
	alice1 := downstreamWith(t, h, "alice", withRoots("file:///alice-1"))
	alice2 := downstreamWith(t, h, "alice", withRoots("file:///alice-2"))
	bob := downstreamWith(t, h, "bob", withRoots("file:///bob"))

	held := holdAsync(alice1, map[string]string{"gate": "a"})
	w.waitStarted(t, "a")
	assert.Equal(t, "file:///bob", callOrError(bob, "roots"), "bob's question goes to bob, on his own connection")
	assert.Contains(t, callOrError(alice2, "roots"), "several downstream requests",
		"two of alice's calls share her connection: the question could be either's")
	w.openGate("a")
	assert.Equal(t, "alice", <-held)
	assert.Equal(t, "file:///alice-2", callOrError(alice2, "roots"), "alone, alice's call gets its question")
}

// TestGatewayProgressReachesOnlyItsCall: two downstream calls on one
// upstream connection (a caller's pooled one, the anonymous callers'
// shared one) whose progress tokens are the same each get only their
// own progress: the gateway sends its own token upstream and reports to
// the downstream call that made the upstream call.
func TestGatewayProgressReachesOnlyItsCall(t *testing.T) {
	t.Parallel()
	for _, user := range []string{"alice", ""} {
		t.Run("caller="+user, func(t *testing.T) {
			t.Parallel()
			w := newWhoUpstream(t)
			_, h := statelessGateway(t, w, proxy.Options{})
			var mu sync.Mutex
			var tokens []string
			rec := func(next mcp.CallHandler) mcp.CallHandler {
				return func(ctx context.Context, c *mcp.Call) (any, error) {
					var p struct {
						Meta map[string]json.RawMessage `json:"_meta"`
					}
					if c.Method == "tools/call" && json.Unmarshal(c.Params, &p) == nil {
						mu.Lock()
						tokens = append(tokens, string(p.Meta["progressToken"]))
						mu.Unlock()
					}
					return next(ctx, c)
				}
			}
			recorded := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				h.ServeHTTP(rw, r.WithContext(mcp.WithInterceptor(r.Context(), rec)))
			})
			one, two := downstreamAs(t, recorded, user), downstreamAs(t, recorded, user)
			type got struct {
				tags []string
				err  error
			}
			run := func(c *client.Client, tag string) <-chan got {
				out := make(chan got, 1)
				go func() {
					var g got
					_, g.err = c.CallTool(context.Background(), "tick", map[string]any{"gate": "t", "tag": tag, "n": 3},
						&client.CallOptions{Progress: func(p mcp.Progress) { g.tags = append(g.tags, p.Message) }})
					out <- g
				}()
				return out
			}
			a := run(one, "one")
			w.waitStarted(t, "t")
			b := run(two, "two")
			w.waitStarted(t, "t")
			w.openGate("t")
			ga, gb := <-a, <-b
			require.NoError(t, ga.err)
			require.NoError(t, gb.err)
			assert.Equal(t, []string{"one", "one", "one"}, ga.tags)
			assert.Equal(t, []string{"two", "two", "two"}, gb.tags)
			mu.Lock()
			defer mu.Unlock()
			require.Len(t, tokens, 2)
			assert.Equal(t, tokens[0], tokens[1], "the two downstream calls used the same progress token")
			assert.NotEmpty(t, tokens[0])
		})
	}
}

// TestGatewaySingleSessionRoutesWithinOneSession: with
// Options.SingleSession (one upstream session for every downstream
// request), the upstream's request goes to the latest call in flight
// only while every call in flight is of one downstream session: a gateway
// served to several clients despite the option does not hand one
// client's question to another.
func TestGatewaySingleSessionRoutesWithinOneSession(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	g, err := proxy.New(context.Background(), proxy.Options{Upstream: w.transport, SingleSession: true, Server: mcp.Options{Logger: quiet}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = g.Close() })
	h := sessionful(t, g)
	rootsOf := func(uri string) *client.Options {
		return &client.Options{Roots: func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: uri}}, nil }}
	}
	a, b := downstreamWith(t, h, "", rootsOf("file:///a")), downstreamWith(t, h, "", rootsOf("file:///b"))

	asked := holdAsync(a, map[string]string{"gate": "a", "then": "roots"})
	w.waitStarted(t, "a")
	held := holdAsync(b, map[string]string{"gate": "b"})
	w.waitStarted(t, "b")
	w.openGate("a")
	got := <-asked
	assert.NotContains(t, got, "file:///b", "b's roots never answer a's question")
	assert.Contains(t, got, "several downstream sessions")
	w.openGate("b")
	assert.Equal(t, "anonymous", <-held)

	// One session alone: its question is forwarded.
	assert.Equal(t, "file:///a", <-holdAsync(a, map[string]string{"gate": "a", "then": "roots"}))
}

// TestGatewayReconnectsWhenTheUpstreamForgetsTheSession: an upstream
// served in process (client.InProcess) that no longer knows the session
// answers -32001, the JSON-RPC form of its 404: the gateway connects
// again and sends the request again, as after a 404 over HTTP, instead
// of failing every later call.
func TestGatewayReconnectsWhenTheUpstreamForgetsTheSession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, h := gateway(t, f, proxy.Options{})
	down := connect(t, h, nil)
	before := whoami(t, down)
	for _, s := range f.h.Sessions() {
		f.h.EndSession(s.ID)
	}
	after := whoami(t, down)
	assert.NotEqual(t, before, after, "a new upstream session")
	assert.Equal(t, after, whoami(t, down))
}

// TestGatewayPassesAToolsSessionNotFoundError: a tool's own -32001 error
// (an upstream that is itself a gateway passes its upstream's on) is the
// tool's answer: the upstream session is still known, so the call is not
// sent again.
func TestGatewayPassesAToolsSessionNotFoundError(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var runs atomic.Int32
	mcp.AddTool(f.srv, mcp.Tool{Name: "lost"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		runs.Add(1)
		return "", &mcp.Error{Code: jsonrpc.CodeSessionNotFound, Message: "its own upstream forgot it"}
	})
	_, h := gateway(t, f, proxy.Options{})
	down := connect(t, h, nil)
	before := whoami(t, down)
	_, err := down.CallTool(context.Background(), "lost", nil, nil)
	var re *mcp.Error
	require.ErrorAs(t, err, &re)
	assert.Equal(t, int64(jsonrpc.CodeSessionNotFound), re.Code)
	assert.Contains(t, re.Message, "its own upstream forgot it")
	assert.Equal(t, int32(1), runs.Load(), "run once")
	assert.Equal(t, before, whoami(t, down), "the upstream session is kept")
}

// TestGatewayCancellationOnAPooledConnection: two calls of one caller
// share its pooled connection; cancelling one (a 2026-07-28 client
// closes its POST) cancels that call upstream and not the other, since
// the gateway cancels by its own request ID on that connection.
func TestGatewayCancellationOnAPooledConnection(t *testing.T) {
	t.Parallel()
	w := newWhoUpstream(t)
	_, h := statelessGateway(t, w, proxy.Options{})
	rev20260728 := func() *client.Options { return &client.Options{ProtocolVersion: mcp.Version20260728} }
	one, two := downstreamWith(t, h, "alice", rev20260728()), downstreamWith(t, h, "alice", rev20260728())
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() {
		_, err := one.CallTool(ctx, "hold", map[string]string{"gate": "c1"}, nil)
		cancelled <- err
	}()
	w.waitStarted(t, "c1")
	held := holdAsync(two, map[string]string{"gate": "c2"})
	w.waitStarted(t, "c2")
	assert.Equal(t, []string{"alice", "anonymous"}, w.open(), "both calls run on alice's one connection")
	cancel()
	assert.ErrorIs(t, <-cancelled, context.Canceled)
	select {
	case gate := <-w.cancelled:
		assert.Equal(t, "c1", gate, "the cancelled call, and only it, is cancelled upstream")
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream call was not cancelled")
	}
	w.openGate("c2")
	assert.Equal(t, "alice", within(t, held))
	assert.Empty(t, w.cancelled)
}
