package proxy_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/eliciturl"
	"github.com/mcpchain/mcp/proxy"
)

// TestGatewayResourceUpdatedStaysWithItsCaller:
// a resources/updated the upstream sends on the connection the gateway
// opened for one caller (a downstream session's, or a caller's pooled
// one) is that caller's view of the resource, and reaches no other
// user's session; what the gateway's own connection (the one that
// subscribes upstream) hears reaches the subscribed sessions.
func TestGatewayResourceUpdatedStaysWithItsCaller(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		sessionless bool
	}{{"session", false}, {"sessionless", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := inProcess(t)
			g, stateless := statelessGateway(t, w, proxy.Options{})
			h := sessionful(t, g)
			updated := make(chan string, 8)
			bob := downstreamWith(t, h, "bob", &client.Options{OnResourceUpdated: func(uri string) { updated <- uri }})
			ctx := context.Background()
			require.NoError(t, bob.Subscribe(ctx, "note://x"))
			require.NoError(t, bob.Subscribe(ctx, "note://y"))
			// bob's stream for server-initiated messages opens in the
			// background: wait until an update of the gateway's own
			// connection reaches him.
			require.Eventually(t, func() bool {
				w.srv.ResourceUpdated("note://y")
				select {
				case <-updated:
					return true
				case <-time.After(50 * time.Millisecond):
					return false
				}
			}, 5*time.Second, time.Millisecond)
			for settled := false; !settled; {
				select {
				case <-updated:
				case <-time.After(200 * time.Millisecond):
					settled = true
				}
			}

			var alice *client.Client
			if tc.sessionless {
				alice = downstreamAs(t, stateless, "alice")
			} else {
				alice = downstreamAs(t, h, "alice")
			}
			assert.Equal(t, "alice", who(t, alice))
			w.tap.get(t, "alice").inject(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"note://x"}}`)
			// The gateway's client has run the callbacks of what it read
			// before an answer once the call returns.
			assert.Equal(t, "alice", who(t, alice))
			w.srv.ResourceUpdated("note://y")
			select {
			case uri := <-updated:
				assert.Equal(t, "note://y", uri, "alice's update never reaches bob's session")
			case <-time.After(5 * time.Second):
				t.Fatal("the update of the gateway's own connection did not reach bob")
			}
		})
	}
}

// TestGatewayRefusesUnsafeElicitationURLs: the
// upstream's elicitation/create in URL mode is relayed to the downstream
// client only when its URL is one a user may be asked to open (absolute
// https, or http to a loopback host); otherwise the upstream gets a
// JSON-RPC error saying why, and the downstream client is asked nothing.
func TestGatewayRefusesUnsafeElicitationURLs(t *testing.T) {
	t.Parallel()
	w := inProcess(t)
	g, _ := statelessGateway(t, w, proxy.Options{})
	h := sessionful(t, g)
	var mu sync.Mutex
	var opened []string
	answer := func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
		mu.Lock()
		opened = append(opened, p.URL)
		mu.Unlock()
		return &elicit.Result{Action: "accept"}, nil
	}
	down := downstreamWith(t, h, "alice", &client.Options{ElicitURL: answer, Elicit: answer})
	held := holdAsync(down, map[string]string{"gate": "e"})
	w.waitStarted(t, "e")
	tap := w.tap.get(t, "alice")

	tests := []struct {
		mode   string
		url    string
		refuse bool
	}{
		{"url", "javascript:alert(document.cookie)", true},
		{"url", "data:text/html,<script>alert(1)</script>", true},
		{"url", "file:///etc/passwd", true},
		{"url", "http://evil.example/login", true},
		{"url", "https://bank.example@evil.example/", true},
		{"URL", "javascript:alert(1)", true}, // not URL mode to the client library, a url all the same
		{"form", "javascript:alert(2)", true},
		{"url", "https://example.com/consent", false},
		{"url", "http://localhost:8080/callback", false},
	}
	for i, tt := range tests {
		params, _ := json.Marshal(map[string]any{"mode": tt.mode, "message": "open it", "url": tt.url, "elicitationId": "e1",
			"requestedSchema": map[string]any{"type": "object"}})
		tap.inject(`{"jsonrpc":"2.0","id":"inj-` + string(rune('a'+i)) + `","method":"elicitation/create","params":` + string(params) + `}`)
		var reply map[string]json.RawMessage
		select {
		case reply = <-tap.replies:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the gateway did not answer the upstream", tt.url)
		}
		if !tt.refuse {
			assert.JSONEq(t, `{"action":"accept"}`, string(reply["result"]), tt.url)
			continue
		}
		var e *mcp.Error
		require.NoError(t, json.Unmarshal(reply["error"], &e), "%s: %s", tt.url, reply)
		assert.Equal(t, int64(mcp.CodeInvalidParams), e.Code, tt.url)
		// A url-mode request is refused by the gateway's upstream client
		// itself (package client checks what it would show); a url in
		// another mode reaches the gateway's relay, which refuses it.
		if !strings.Contains(e.Message, "refuses to relay") {
			assert.Contains(t, e.Message, "it was not shown to the user", tt.url)
		}
		assert.Contains(t, e.Message, eliciturl.Check(tt.url).Error(), "the error says why")
	}
	mu.Lock()
	assert.Equal(t, []string{"https://example.com/consent", "http://localhost:8080/callback"}, opened,
		"the downstream client is asked to open only the safe URLs")
	mu.Unlock()
	w.openGate("e")
	assert.Equal(t, "alice", <-held)
}

// TestGatewayRefusesUnsafeURLElicitationRequired: an
// upstream's URLElicitationRequired error (-32042), which carries URLs
// the downstream client shows, is passed on only when every URL passes
// the same check; otherwise the downstream client gets -32603 naming the
// refusal, without the URLs.
func TestGatewayRefusesUnsafeURLElicitationRequired(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, u := range []string{"javascript:alert(1)", "https://example.com/consent"} {
		f.srv.AddResource(mcp.Resource{URI: "consent://" + u[:5], Name: "consent",
			Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
				return nil, &mcp.Error{Code: mcp.CodeURLElicitationRequired, Message: "consent needed",
					Data: map[string]any{"elicitations": []map[string]string{{"mode": "url", "elicitationId": "c1", "message": "consent", "url": u}}}}
			}})
	}
	_, h := gateway(t, f, proxy.Options{})
	down := connect(t, h, nil)
	var re *mcp.Error
	_, err := down.ReadResource(context.Background(), "consent://javas")
	require.ErrorAs(t, err, &re)
	assert.Equal(t, int64(mcp.CodeInternalError), re.Code)
	// Refused by the gateway's upstream client (package client checks a
	// -32042's URLs) before the gateway's own check: the reason is the same.
	assert.Contains(t, re.Message, eliciturl.Check("javascript:alert(1)").Error())
	assert.Nil(t, re.Data, "the refused error carries none of the upstream URLs")
	_, err = down.ReadResource(context.Background(), "consent://https")
	require.ErrorAs(t, err, &re)
	assert.Equal(t, int64(mcp.CodeURLElicitationRequired), re.Code)
	assert.Contains(t, string(re.Data.(json.RawMessage)), "https://example.com/consent")
}

// TestServeStdioRefusesUnsafeElicitationURLs: the
// bridge relays a remote server's URL-mode elicitation to the desktop
// client only with a URL a user may be asked to open.
func TestServeStdioRefusesUnsafeElicitationURLs(t *testing.T) {
	t.Parallel()
	w := inProcess(t)
	cin, sout := io.Pipe()
	sin, cout := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- proxy.ServeStdio(ctx, w.tap.transport("bridge", client.InProcess(w.h, nil)), cin, cout,
			&proxy.StdioOptions{Gateway: proxy.Options{Server: mcp.Options{Logger: quiet}}})
	}()
	opened := make(chan string, 4)
	c, err := client.Connect(ctx, client.Stdio(rwc{sin, sout}), &client.Options{Logger: quiet,
		ElicitURL: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
			opened <- p.URL
			return &elicit.Result{Action: "accept"}, nil
		}})
	require.NoError(t, err)
	held := holdAsync(c, map[string]string{"gate": "b"})
	w.waitStarted(t, "b")
	tap := w.tap.get(t, "bridge")
	for i, u := range []string{"javascript:alert(1)", "https://example.com/ok"} {
		params, _ := json.Marshal(map[string]string{"mode": "url", "message": "open it", "url": u, "elicitationId": "e"})
		tap.inject(`{"jsonrpc":"2.0","id":"inj-` + string(rune('a'+i)) + `","method":"elicitation/create","params":` + string(params) + `}`)
		select {
		case reply := <-tap.replies:
			if i == 0 {
				// Refused by the bridge's upstream client (package client
				// checks what it would show) before the relay sees it.
				var e *mcp.Error
				require.NoError(t, json.Unmarshal(reply["error"], &e), "%s", reply)
				assert.Contains(t, e.Message, eliciturl.Check(u).Error())
			} else {
				assert.JSONEq(t, `{"action":"accept"}`, string(reply["result"]))
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the bridge did not answer the upstream", u)
		}
	}
	assert.Equal(t, "https://example.com/ok", <-opened, "only the https URL reached the desktop client")
	w.openGate("b")
	assert.Equal(t, "anonymous", within(t, held))
	require.NoError(t, c.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return once its input ended")
	}
}

// TestGatewayDropsUpstreamLogsOfUnknownLevel: the upstream's log messages
// reach the downstream call only with a level of the protocol; another
// (which a strict client would refuse the notification for) is dropped.
func TestGatewayDropsUpstreamLogsOfUnknownLevel(t *testing.T) {
	t.Parallel()
	w := inProcess(t)
	g, _ := statelessGateway(t, w, proxy.Options{})
	h := sessionful(t, g)
	logs := make(chan mcp.LogMessage, 4)
	down := downstreamWith(t, h, "alice", &client.Options{OnLog: func(m mcp.LogMessage) { logs <- m }})
	held := holdAsync(down, map[string]string{"gate": "l"})
	w.waitStarted(t, "l")
	tap := w.tap.get(t, "alice")
	tap.inject(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"evil","data":"first"}}`)
	tap.inject(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"second"}}`)
	select {
	case m := <-logs:
		assert.Equal(t, mcp.LevelInfo, m.Level, "the message of an unknown level was dropped")
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream's log message did not reach the downstream call")
	}
	w.openGate("l")
	assert.Equal(t, "alice", within(t, held))
}

// TestServeStdioRelaysElicitationComplete: the remote server's
// notifications/elicitation/complete, which comes once the user is done
// with the page (no call in flight), reaches the desktop client through
// the bridge's one session.
func TestServeStdioRelaysElicitationComplete(t *testing.T) {
	t.Parallel()
	w := inProcess(t)
	cin, sout := io.Pipe()
	sin, cout := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- proxy.ServeStdio(ctx, w.tap.transport("bridge", client.InProcess(w.h, nil)), cin, cout,
			&proxy.StdioOptions{Gateway: proxy.Options{Server: mcp.Options{Logger: quiet}}})
	}()
	completed := make(chan string, 1)
	c, err := client.Connect(ctx, client.Stdio(rwc{sin, sout}), &client.Options{Logger: quiet,
		ElicitURL: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			return &elicit.Result{Action: "accept"}, nil
		},
		OnNotification: func(method string, params json.RawMessage) {
			if method == "notifications/elicitation/complete" {
				completed <- string(params)
			}
		}})
	require.NoError(t, err)
	assert.Equal(t, "anonymous", who(t, c), "a call has gone through the bridge")
	w.tap.get(t, "bridge").inject(`{"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":"e7"}}`)
	select {
	case p := <-completed:
		assert.JSONEq(t, `{"elicitationId":"e7"}`, p)
	case <-time.After(10 * time.Second):
		t.Fatal("the completion did not reach the desktop client")
	}
	require.NoError(t, c.Close())
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return once its input ended")
	}
}
