package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
	"github.com/mcpchain/mcp/sampling"
)

// mountedGateway mounts a gateway to f in a parent server (its own tool
// whoami answers the parent's session ID) under the prefix "up", and
// returns the gateway and the handler that serves the parent.
func mountedGateway(t *testing.T, f *fixture) (*proxy.Gateway, *mcphttp.Handler) {
	t.Helper()
	g, err := proxy.New(context.Background(), proxy.Options{
		Upstream: func(*mcp.Context) client.Transport { return client.InProcess(f, nil) },
		Server:   mcp.Options{Logger: quiet},
	})
	require.NoError(t, err)
	parent := mcp.NewServer(mcp.Options{Name: "hub", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(parent, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return c.SessionID, nil
	})
	parent.Mount("up", g.Server(), nil)
	h := mcphttp.New(parent, nil)
	t.Cleanup(func() {
		_ = h.Close()
		_ = g.Close()
	})
	return g, h
}

func callText(t *testing.T, c *client.Client, name string, args any) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), name, args, nil)
	require.NoError(t, err, name)
	require.False(t, res.IsError, "%s: %s", name, res.Text())
	return res.Text()
}

// TestMountedGatewaySessions: a gateway mounted in a parent opens one
// upstream session per session of the parent (the calls of one parent
// session share one, two parent sessions have two), and the end of a
// parent's session reaches the gateway through the mount (OnSessionEnd),
// which closes its upstream session.
func TestMountedGatewaySessions(t *testing.T) {
	f := newFixture(t)
	g, h := mountedGateway(t, f)
	a := connect(t, h, nil)
	b := connect(t, h, nil)
	upA, upA2, upB := callText(t, a, "up_whoami", nil), callText(t, a, "up_whoami", nil), callText(t, b, "up_whoami", nil)
	assert.Equal(t, upA, upA2, "one parent session keeps its upstream session")
	assert.NotEqual(t, upA, upB, "two parent sessions have two upstream sessions")
	assert.NotEqual(t, callText(t, a, "whoami", nil), upA, "the upstream session is the gateway's own, not the parent's")
	assert.Equal(t, 2, g.Sessions())
	assert.Equal(t, 3, f.h.SessionCount(), "the shared connection, a's and b's")

	require.NoError(t, a.Close())
	require.Eventually(t, func() bool { return g.Sessions() == 1 && f.h.SessionCount() == 2 }, 5*time.Second, 10*time.Millisecond,
		"the end of the parent's session reached the mounted gateway, which closed its upstream session")
	assert.Equal(t, upB, callText(t, b, "up_whoami", nil), "b keeps its upstream session")
	require.NoError(t, b.Close())
	require.Eventually(t, func() bool { return g.Sessions() == 0 && f.h.SessionCount() == 1 }, 5*time.Second, 10*time.Millisecond)
}

// TestMountedGatewayForwardsServerRequests: the upstream tool's sampling,
// elicitation and roots requests reach the parent's client, each its own
// caller's.
func TestMountedGatewayForwardsServerRequests(t *testing.T) {
	f := newFixture(t)
	_, h := mountedGateway(t, f)
	opts := func(who string) *client.Options {
		return &client.Options{
			Roots: func(context.Context) ([]mcp.Root, error) { return []mcp.Root{{URI: "file:///" + who}}, nil },
			Elicit: func(context.Context, *elicit.Params) (*elicit.Result, error) {
				return &elicit.Result{Action: "accept", Content: map[string]any{"name": who}}, nil
			},
			ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
				return &elicit.Result{Action: "accept"}, nil
			},
			Sample: func(_ context.Context, p *sampling.Request) (*sampling.Result, error) {
				return &sampling.Result{Role: mcp.RoleAssistant, Model: "m",
					Content: mcp.TextContent{Text: who + " sampled " + p.Messages[0].Content.(mcp.TextContent).Text}}, nil
			},
		}
	}
	a := connect(t, h, opts("ada"))
	b := connect(t, h, opts("bob"))
	assert.Equal(t, "file:///ada ada accept ada sampled hi", callText(t, a, "up_ask", nil))
	assert.Equal(t, "file:///bob bob accept bob sampled hi", callText(t, b, "up_ask", nil))

	bare := connect(t, h, nil)
	res, err := bare.CallTool(context.Background(), "up_ask", nil, nil)
	require.NoError(t, err)
	assert.True(t, res.IsError, "a parent's client without the capabilities: the upstream is told so")
}

// TestMountedGatewayListChanged: a tool the upstream registers at run
// time reaches the parent's client as list_changed, listed and callable
// under the prefix, and leaves again when the upstream removes it; the
// upstream's resource, template and prompt are served under the prefix.
func TestMountedGatewayListChanged(t *testing.T) {
	f := newFixture(t)
	_, h := mountedGateway(t, f)
	changed := make(chan struct{}, 64)
	c := connect(t, h, &client.Options{OnToolsChanged: func() { changed <- struct{}{} }})
	ctx := context.Background()

	r, err := c.ReadResource(ctx, "file://up//readme")
	require.NoError(t, err)
	require.Len(t, r.Contents, 1)
	assert.Equal(t, "read me", r.Contents[0].Text)
	assert.Equal(t, "file://up//readme", r.Contents[0].URI)
	r, err = c.ReadResource(ctx, "greeting://up/ada")
	require.NoError(t, err)
	assert.Equal(t, "hello ada", r.Contents[0].Text)
	p, err := c.GetPrompt(ctx, "up_greet", map[string]string{"who": "bob"})
	require.NoError(t, err)
	assert.Equal(t, "greet bob", p.Messages[0].Content.(mcp.TextContent).Text)

	names := func() []string {
		tools, err := c.ListTools(ctx)
		require.NoError(t, err)
		var out []string
		for _, tl := range tools {
			out = append(out, tl.Name)
		}
		return out
	}
	assert.Contains(t, names(), "up_echo")
	assert.NotContains(t, names(), "up_late")
	mcp.AddTool(f.srv, mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "late!", nil
	})
	require.Eventually(t, func() bool { return slices.Contains(names(), "up_late") }, 5*time.Second, 20*time.Millisecond)
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("the parent's client was not told the tools changed")
	}
	assert.Equal(t, "late!", callText(t, c, "up_late", nil))

	f.srv.Registry().Remove(access.KindTool, "late")
	require.Eventually(t, func() bool { return !slices.Contains(names(), "up_late") }, 5*time.Second, 20*time.Millisecond)
}

// noTemplates answers resources/templates/list with -32601, as a server
// that declares resources but has no templates may (the TypeScript SDK's
// low-level Server without a handler for it), and passes the rest to h.
type noTemplates struct{ h http.Handler }

func (n noTemplates) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Body == nil { // the in-process GET stream
		n.h.ServeHTTP(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &msg) == nil && msg.Method == "resources/templates/list" {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID,
			"error": map[string]any{"code": mcp.CodeMethodNotFound, "message": "Method not found"}})
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	n.h.ServeHTTP(w, r)
}

// TestGatewayUpstreamWithoutTemplates: an upstream that answers
// resources/templates/list with "method not found" has no templates; its
// tools and resources are mirrored.
func TestGatewayUpstreamWithoutTemplates(t *testing.T) {
	f := newFixture(t)
	g, h := gateway(t, f, proxy.Options{Upstream: func(*mcp.Context) client.Transport {
		return client.InProcess(noTemplates{f}, nil)
	}})
	require.NoError(t, g.Refresh(context.Background()))
	c := connect(t, h, nil)
	assert.Equal(t, "hi", callText(t, c, "echo", map[string]any{"text": "hi"}))
	r, err := c.ReadResource(context.Background(), "file:///readme")
	require.NoError(t, err)
	assert.Equal(t, "read me", r.Contents[0].Text)
	templates := rawList(t, c, "resources/templates/list", "resourceTemplates", "uriTemplate")
	assert.Empty(t, templates)
}

// TestMountedGatewayRev20260728: a parent's client at 2026-07-28 (no session)
// reaches the mounted gateway's shared connection, and the upstream's
// sampling, elicitation and roots requests are answered through the
// input-required rounds of the parent's request.
func TestMountedGatewayRev20260728(t *testing.T) {
	f := newFixture(t)
	g, h := mountedGateway(t, f)
	c := connect(t, h, sessionlessClient())
	require.Equal(t, mcp.Version20260728, c.ProtocolVersion())
	assert.Equal(t, "stateless", callText(t, c, "up_echo", map[string]string{"text": "stateless"}))
	assert.Equal(t, "file:///sessionless eve accept sessionless", callText(t, c, "up_ask", nil))
	assert.Zero(t, g.Sessions(), "requests without a session use the gateway's shared connection")
}

// TestMountedGatewayResourceUpdated: the upstream's resources/updated
// reaches the parent's client subscribed to the resource under its
// prefixed URI.
func TestMountedGatewayResourceUpdated(t *testing.T) {
	f := newFixture(t)
	_, h := mountedGateway(t, f)
	updated := make(chan string, 4)
	c := connect(t, h, &client.Options{OnResourceUpdated: func(uri string) { updated <- uri }})
	require.NoError(t, c.Subscribe(context.Background(), "file://up//readme"))
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
	}, 5*time.Second, time.Millisecond, "the upstream's resources/updated did not reach the parent's subscribed client")
	assert.Equal(t, "file://up//readme", got)
}
