package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
)

// ruleReplica is a stateless replica with a server of its own (its
// registry is its process's), on a Redis store and relay shared with the
// others: a vault tool hidden server-wide, and unlock, which shows the
// vault to its caller alone (Server.CallerRegistry).
func ruleReplica(t *testing.T, rc redis.UniversalClient, prefix string) (*mcp.Server, string) {
	t.Helper()
	srv := mcp.NewServer(mcp.Options{Name: "caller-rules", Version: "1.0.0", Logger: quiet(), CallerRules: true,
		Authenticate: func(r *http.Request) (any, error) {
			name, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || name == "" {
				return nil, mcp.ErrUnauthorized
			}
			return listenUser{name}, nil
		}})
	mcp.AddTool(srv, mcp.Tool{Name: "vault"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "open", nil })
	require.NoError(t, srv.Registry().Disable(mcp.Match{Kind: access.KindTool, Names: []string{"vault"}}))
	srv.AddPrompt(mcp.Prompt{Name: "greet", Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
		return &mcp.PromptResult{}, nil
	}})
	mcp.AddTool(srv, mcp.Tool{Name: "unlock"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return "unlocked", srv.CallerRegistry(c.Session).Enable(mcp.Match{Kind: access.KindTool, Names: []string{"vault"}})
	})
	store := redisstore.New(rc, &redisstore.Options{Prefix: prefix + "store:"})
	h := mcphttp.New(srv, &mcphttp.Options{Stateless: true, Sessions: store, Relay: redisstore.NewRelay(rc, prefix+"relay:"), Logger: quiet()})
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	return srv, ts.URL
}

// TestCallerRulesAcrossReplicasGoClients: two stateless replicas share
// one real Redis (store and relay). The official go-sdk client (v1.8.0,
// 2026-07-28, no session) calls unlock as alice on replica 1, which
// Enables the hidden vault tool for alice alone. alice's
// subscriptions/listen stream, held on replica 2 by the mcpchain client
// at 2026-07-28, hears tools/list_changed, and her tools/list served by
// replica 2 (go-sdk) shows the vault, which she can call there. bob's
// stream on replica 2 hears nothing of it, and his list does not show it.
// The delay from the unlock call on replica 1 to alice's callback on
// replica 2 is logged.
func TestCallerRulesAcrossReplicasGoClients(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	c1, c2 := redis.NewClient(&redis.Options{Addr: addr}), redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c1.Close(); _ = c2.Close() })
	prefix := "mcp:rules-" + session.NewID()[:8] + ":"
	srv1, url1 := ruleReplica(t, c1, prefix)
	_, url2 := ruleReplica(t, c2, prefix)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	base := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(base.CloseIdleConnections)
	sdkAs := func(user, url string) *sdk.ClientSession {
		cl := sdk.NewClient(&sdk.Implementation{Name: "mcpchain-e2e-rules", Version: "0.0.1"}, nil)
		s, err := cl.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
			HTTPClient: &http.Client{Transport: bearer{user, base}}}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		require.Equal(t, rev20260728, s.InitializeResult().ProtocolVersion)
		return s
	}
	toolNames := func(s *sdk.ClientSession) []string {
		res, err := s.ListTools(ctx, nil)
		require.NoError(t, err)
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		slices.Sort(out)
		return out
	}
	changed, prompts := make(chan string, 8), make(chan string, 8)
	listenAs := func(user string) *client.Client {
		c, err := client.Connect(ctx, client.HTTP(url2, &client.HTTPOptions{Header: http.Header{"Authorization": {"Bearer " + user}}}),
			&client.Options{ProtocolVersion: mcp.Version20260728, OnToolsChanged: func() { changed <- user },
				OnPromptsChanged: func() { prompts <- user }})
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	// Connect returns once the server acknowledged each listen stream.
	listenAs("alice")
	listenAs("bob")

	alice1, alice2, bob2 := sdkAs("alice", url1), sdkAs("alice", url2), sdkAs("bob", url2)
	require.Equal(t, []string{"unlock"}, toolNames(alice2), "replica 2 reads alice's rules (none)")
	_, err := alice2.CallTool(ctx, &sdk.CallToolParams{Name: "vault"})
	require.Error(t, err, "the vault is hidden")

	start := time.Now()
	res, err := alice1.CallTool(ctx, &sdk.CallToolParams{Name: "unlock"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	select {
	case who := <-changed:
		require.Equal(t, "alice", who, "the first to hear of it")
	case <-ctx.Done():
		t.Fatal("alice's stream on replica 2 heard nothing")
	}
	heard := time.Since(start)
	assert.Equal(t, []string{"unlock", "vault"}, toolNames(alice2), "replica 2 applies alice's new rule at once")
	res, err = alice2.CallTool(ctx, &sdk.CallToolParams{Name: "vault"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	assert.Equal(t, "open", res.Content[0].(*sdk.TextContent).Text)
	assert.Equal(t, []string{"unlock"}, toolNames(bob2), "bob does not see alice's vault")
	_, err = bob2.CallTool(ctx, &sdk.CallToolParams{Name: "vault"})
	require.Error(t, err)
	t.Logf("unlock on replica 1 → alice's OnToolsChanged through her listen stream on replica 2: %v", heard)

	// bob heard nothing of alice's change: a prompts change for everyone,
	// made on replica 1 after hers and relayed in order, is the next thing
	// both streams hear.
	require.NoError(t, srv1.Registry().Remove(access.KindPrompt, "none"))
	heardPrompts := map[string]bool{}
	for len(heardPrompts) < 2 {
		select {
		case who := <-prompts:
			heardPrompts[who] = true
		case <-ctx.Done():
			t.Fatalf("the prompts change reached only %v", heardPrompts)
		}
	}
	select {
	case who := <-changed:
		t.Fatalf("%s heard a tools change after alice's own", who)
	default:
	}
}
