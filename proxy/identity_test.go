package proxy_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
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
// the transport), served over loopback HTTP, and answers "who" with that caller ("anonymous" without
// one). dials records, in order, whose credential each upstream
// connection the gateway opened carried.
type whoUpstream struct {
	srv *mcp.Server
	h   *mcphttp.Handler
	url string
	// started gets the caller of each "hold" call once it runs; release
	// lets one go on.
	started chan string
	release chan struct{}
	mu      sync.Mutex
	dials   []string
}

func newWhoUpstream(t *testing.T) *whoUpstream {
	t.Helper()
	w := &whoUpstream{started: make(chan string, 16), release: make(chan struct{}, 16)}
	w.srv = mcp.NewServer(mcp.Options{Name: "who", Version: "1.0.0", Logger: quiet,
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get("X-User"); u != "" {
				return person{ID: u}, nil
			}
			return nil, nil
		}})
	mcp.AddTool(w.srv, mcp.Tool{Name: "who"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		if p, ok := c.Session.(person); ok {
			return p.ID, nil
		}
		return "anonymous", nil
	})
	// hold waits for release, then answers with its caller, or asks the
	// client for its roots (then: "roots") and answers with the first.
	mcp.AddTool(w.srv, mcp.Tool{Name: "hold"}, func(ctx context.Context, c *mcp.Context, in struct {
		Then string `json:"then,omitempty"`
	}) (string, error) {
		name := "anonymous"
		if p, ok := c.Session.(person); ok {
			name = p.ID
		}
		w.started <- name
		select {
		case <-w.release:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if in.Then != "roots" {
			return name, nil
		}
		roots, err := c.Roots(ctx)
		if err != nil {
			return "", err
		}
		return roots[0].URI, nil
	})
	w.h = mcphttp.New(w.srv, nil)
	t.Cleanup(func() { _ = w.h.Close() })
	hs := httptest.NewServer(w.h)
	t.Cleanup(hs.Close)
	w.url = hs.URL
	return w
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
// own (nil), else the credential ("-" for a caller without one).
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
	return client.HTTP(w.url, &client.HTTPOptions{Header: h})
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

// downstreamAs returns a sessionless (stateless HTTP) downstream client of
// h whose requests carry the caller user ("" for none).
func downstreamAs(t *testing.T, h http.Handler, user string) *client.Client {
	t.Helper()
	hd := http.Header{}
	if user != "" {
		hd.Set("Authorization", "Bearer "+user)
	}
	c, err := client.Connect(context.Background(), client.InProcess(h, hd), &client.Options{Logger: quiet})
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

// who calls the mirrored "who" tool through c and returns whom the
// upstream saw.
func who(t *testing.T, c *client.Client) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), "who", nil, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	return res.Text()
}

// TestGatewayUpstreamKeepsEachCallersIdentity (issue 31, hole 1): two
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
