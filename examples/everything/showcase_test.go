package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/session"
)

// TestShowcase runs each showcase tool as a client of each revision meets
// it, through an embedded session that answers the server's questions.
func TestShowcase(t *testing.T) {
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			t.Run("book_table: a typed form", func(t *testing.T) {
				s := mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version, Elicit: mcptest.ElicitAccept(map[string]any{"name": "Ada", "time": "21:00"})}})
				res := s.CallTool("book_table", nil, nil)
				require.False(t, res.IsError, res.Text())
				assert.Equal(t, "booked for Ada, 2 guests at 21:00", res.Text(), "guests took its default")
			})
			t.Run("connect_account: a URL to open", func(t *testing.T) {
				var opened string
				s := mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version, ElicitURL: mcptest.ElicitURLAccept(func(u string) { opened = u })}})
				res := s.CallTool("connect_account", nil, nil)
				require.False(t, res.IsError, res.Text())
				assert.Equal(t, "connect_account: accept", res.Text())
				assert.True(t, strings.HasPrefix(opened, "https://example.com/connect?elicitation="), opened)
				// A client that cannot open URLs is told so.
				s = mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version, Elicit: mcptest.ElicitDecline()}})
				res = s.CallTool("connect_account", nil, nil)
				assert.True(t, res.IsError)
				assert.Contains(t, res.Text(), "elicitation")
			})
			t.Run("plan_trip: the model calls a tool", func(t *testing.T) {
				s := mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version, SamplingTools: true, Sample: mcptest.SampleSequence(
					mcptest.ToolUseReply("u1", "forecast", map[string]string{"city": "Oslo"}),
					mcptest.TextReply("walk by the fjord"))}})
				res := s.CallTool("plan_trip", map[string]string{"city": "Oslo"}, nil)
				require.False(t, res.IsError, res.Text())
				assert.Equal(t, "walk by the fjord (after 2 rounds)", res.Text())
			})
			t.Run("add_ten: a transformed tool", func(t *testing.T) {
				s := mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version}})
				res := s.CallTool("add_ten", map[string]int{"a": 5}, nil)
				require.False(t, res.IsError, res.Text())
				assert.Equal(t, "15", res.Text())
				res = s.CallTool("add_ten", map[string]int{"a": 5, "b": 1}, nil)
				assert.True(t, res.IsError, "b is hidden: %s", res.Text())
			})
			t.Run("dice: an MCP App", func(t *testing.T) {
				host := mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version, Extensions: map[string]any{apps.Extension: map[string]any{}}}})
				names := toolNames(host.ListTools())
				assert.Contains(t, names, "dice_reroll", "a host sees the app-only tool")
				for _, tool := range host.ListTools() {
					if tool.Name == "dice" {
						assert.Equal(t, "ui://everything/dice.html", tool.Meta["ui"].(map[string]any)["resourceUri"])
					}
				}
				view := host.ReadResource("ui://everything/dice.html")
				require.Len(t, view.Contents, 1)
				assert.Equal(t, apps.MIMEType, view.Contents[0].MIMEType)
				assert.Contains(t, view.Contents[0].Text, `name: "dice_reroll"`)
				res := host.CallTool("dice_reroll", map[string]int{"seed": 7}, nil)
				require.False(t, res.IsError, res.Text())
				assert.JSONEq(t, `{"dice":[2,2],"sides":6,"total":4}`, string(mustJSON(t, res.StructuredContent)))

				plain := mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version}})
				names = toolNames(plain.ListTools())
				assert.Contains(t, names, "dice", "the linked tool is there, with its text as the fallback")
				assert.NotContains(t, names, "dice_reroll", "a client without apps does not see the app-only tool")
			})
			t.Run("report: a task tool", func(t *testing.T) {
				s := mcptest.NewSession(t, newServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version}})
				if version == mcp.Version20251125 {
					for _, tool := range s.ListTools() {
						if tool.Name == "report" {
							require.NotNil(t, tool.Task, "execution.taskSupport says it may run as a task")
						}
					}
				}
				res := s.CallTool("report", map[string]int{"ms": 1}, nil)
				require.False(t, res.IsError, res.Text())
				assert.Equal(t, "report ready", res.Text(), "an ordinary call without the client's opt-in")
			})
		})
	}
}

// TestShowcaseSessions: the per-session tool and the per-session state,
// which need a session (revision 2025-11-25): each session has its own.
func TestShowcaseSessions(t *testing.T) {
	srv := newServer()
	a := mcptest.NewSession(t, srv, nil)
	b := mcptest.NewSession(t, srv, nil)
	require.Equal(t, "unlocked", a.CallTool("unlock", nil, nil).Text())
	assert.Contains(t, toolNames(a.ListTools()), "secret")
	assert.NotContains(t, toolNames(b.ListTools()), "secret", "another session does not see it")
	assert.Equal(t, "the secret is 42", a.CallTool("secret", nil, nil).Text())
	a.WaitNotification("notifications/tools/list_changed", 5*time.Second)

	assert.Equal(t, "1", a.CallTool("visits", nil, nil).Text())
	assert.Equal(t, "2", a.CallTool("visits", nil, nil).Text())
	assert.Equal(t, "1", b.CallTool("visits", nil, nil).Text(), "each session counts its own")
}

// TestVisitsPerCaller: visits counts per signed-in caller at every
// revision and in stateless mode (one store, so one count across sessions
// and revisions), per session for an anonymous 2025 session, and refuses
// an anonymous request that has no session with a message saying why.
func TestVisitsPerCaller(t *testing.T) {
	srv := newServer()
	bearer := func(name string) http.Header { return http.Header{"Authorization": {"Bearer " + name}} }
	sessions := session.NewMemoryStore()
	at := func(name string, v mcp.Version, stateless bool) *mcptest.Session {
		o := &mcptest.Options{Handler: &mcphttp.Options{Stateless: stateless, Sessions: sessions}, Client: client.Options{ProtocolVersion: v}}
		if name != "" {
			o.Header = bearer(name)
		}
		return mcptest.NewSession(t, srv, o)
	}
	alice := []*mcptest.Session{
		at("alice", mcp.Version20251125, false),
		at("alice", mcp.Version20260728, false),
		at("alice", mcp.Version20251125, true),
	}
	for i, want := range []string{"1", "2", "3", "4", "5", "6"} {
		assert.Equal(t, want, alice[i%3].CallTool("visits", nil, nil).Text(), "alice's calls share one count")
	}
	assert.Equal(t, "1", at("bob", mcp.Version20260728, false).CallTool("visits", nil, nil).Text(), "bob counts his own")

	anon := at("", mcp.Version20251125, false)
	assert.Equal(t, "1", anon.CallTool("visits", nil, nil).Text(), "an anonymous session counts its own")
	res := at("", mcp.Version20260728, false).CallTool("visits", nil, nil)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text(), "per signed-in user (Authorization: Bearer <name>) or per session")
}

// TestShowcaseCompleteRoute: the page's route sends
// notifications/elicitation/complete to the session it names, over HTTP,
// as the page would once the user is done.
func TestShowcaseCompleteRoute(t *testing.T) {
	h := mcphttp.New(newServer(), nil)
	defer h.Close()
	ts := httptest.NewServer(mcphttp.NewMux(h, nil))
	defer ts.Close()
	done := make(chan json.RawMessage, 1)
	ctx := t.Context()
	c, err := client.Connect(ctx, client.HTTP(ts.URL+"/mcp", nil), &client.Options{
		OnNotification: func(method string, params json.RawMessage) {
			if method == "notifications/elicitation/complete" {
				done <- params
			}
		}})
	require.NoError(t, err)
	defer c.Close()
	who, err := c.CallTool(ctx, "whoami", nil, nil)
	require.NoError(t, err)
	sid, _ := who.StructuredContent.(map[string]any)["sessionId"].(string)
	require.NotEmpty(t, sid)

	resp, err := http.Get(ts.URL + "/connect/done?session=" + url.QueryEscape(sid) + "&elicitation=e-1")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	select {
	case p := <-done:
		assert.JSONEq(t, `{"elicitationId":"e-1"}`, string(p))
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/elicitation/complete reached the session")
	}
}

func toolNames(tools []mcp.Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}
