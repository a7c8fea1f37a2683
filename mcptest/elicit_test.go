package mcptest_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcptest"
)

// urlServer is a server whose "account" tool needs the user to visit a
// page first (URLElicitationRequired until visit was called for the
// session), and whose "pay" tool asks with ElicitURL during the call.
type urlServer struct {
	srv     *mcp.Server
	mu      sync.Mutex
	pending map[string]string // elicitation ID → session ID
	visited map[string]bool   // session ID → page visited
}

func newURLServer(*testing.T) *urlServer {
	u := &urlServer{srv: mcp.NewServer(mcp.Options{Name: "u", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)}),
		pending: map[string]string{}, visited: map[string]bool{}}
	mcp.AddTool(u.srv, mcp.Tool{Name: "account"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		u.mu.Lock()
		defer u.mu.Unlock()
		if u.visited[c.SessionID] {
			return "linked", nil
		}
		id := rand.Text()
		u.pending[id] = c.SessionID
		return "", elicit.URLRequired(elicit.URLRequest{ID: id, URL: "https://example.com/link?id=" + id, Message: "Link your account"})
	})
	mcp.AddTool(u.srv, mcp.Tool{Name: "pay"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		res, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: "pay-1", URL: "https://example.com/pay", Message: "Pay"})
		if errors.Is(err, mcp.ErrCapability) {
			return "refused: " + err.Error(), nil
		} else if err != nil {
			return "", err
		}
		return res.Action, nil
	})
	return u
}

// visit is the page: it marks the elicitation's session and tells it.
func (u *urlServer) visit(url string) {
	const prefix = "https://example.com/link?id="
	if len(url) <= len(prefix) {
		return
	}
	id := url[len(prefix):]
	u.mu.Lock()
	sid, ok := u.pending[id]
	if ok {
		u.visited[sid] = true
	}
	u.mu.Unlock()
	if ok {
		elicit.Complete(u.srv, sid, id)
	}
}

// TestURLElicitationEmbedded: an in-process session (mcptest) that answers
// URL elicitations with client.Options.ElicitURL. At 2025-11-25 the
// -32042 error reaches the caller with its elicitation, the page's
// completion notification reaches the session, and the call then works;
// at 2026-07-28 the session's own rounds open the page and call again. A
// session without ElicitURL is refused with the capability named.
func TestURLElicitationEmbedded(t *testing.T) {
	t.Parallel()
	t.Run("2025-11-25", func(t *testing.T) {
		t.Parallel()
		u := newURLServer(t)
		var asked []*elicit.Params
		s := mcptest.NewSession(t, u.srv, &mcptest.Options{Client: client.Options{
			ElicitURL: func(ctx context.Context, p *elicit.Params) (*elicit.Result, error) {
				asked = append(asked, p)
				return mcptest.ElicitURLAccept(nil)(ctx, p)
			}}})
		_, err := s.Client().CallTool(context.Background(), "account", nil, nil)
		var je *mcp.Error
		require.ErrorAs(t, err, &je)
		require.Equal(t, int64(mcp.CodeURLElicitationRequired), je.Code)
		var data map[string]any
		require.NoError(t, json.Unmarshal(je.Data.(json.RawMessage), &data), "the server's data, as sent")
		els := data["elicitations"].([]any)
		require.Len(t, els, 1)
		el := els[0].(map[string]any)
		assert.Equal(t, "url", el["mode"])
		u.visit(el["url"].(string))
		n := s.WaitNotification("notifications/elicitation/complete", 5*time.Second)
		assert.JSONEq(t, `{"elicitationId":"`+el["elicitationId"].(string)+`"}`, string(n.Params))
		assert.Equal(t, "linked", s.CallTool("account", nil, nil).Text())

		assert.Equal(t, "accept", s.CallTool("pay", nil, nil).Text())
		require.Len(t, asked, 1)
		assert.Equal(t, elicit.Params{Mode: "url", Message: "Pay", ElicitationID: "pay-1", URL: "https://example.com/pay"}, *asked[0])
	})
	t.Run("2026-07-28", func(t *testing.T) {
		t.Parallel()
		u := newURLServer(t)
		s := mcptest.NewSession(t, u.srv, &mcptest.Options{Client: client.Options{ProtocolVersion: mcp.Version20260728, ElicitURL: mcptest.ElicitURLAccept(u.visit)}})
		assert.Equal(t, "linked", s.CallTool("account", nil, nil).Text(), "round 1 asks, the user visits, round 2 works")
		assert.Equal(t, "accept", s.CallTool("pay", nil, nil).Text())
		assert.Empty(t, s.Notifications(), "no completion notification at 2026-07-28")
	})
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run("form only "+string(version), func(t *testing.T) {
			t.Parallel()
			u := newURLServer(t)
			s := mcptest.NewSession(t, u.srv, &mcptest.Options{Client: client.Options{ProtocolVersion: version, Elicit: mcptest.ElicitAccept(nil)}})
			assert.Contains(t, s.CallTool("pay", nil, nil).Text(), "refused: mcp: the client did not declare that capability: URL-mode elicitation needs the client to declare the capability elicitation.url")
			res := s.CallTool("account", nil, nil)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text(), "capability elicitation.url")
		})
	}
}

// TestAskElicitationMode: Context.Ask checks an elicitation's mode as
// Elicit does: a URL-mode question to a form-only client is refused
// before anything is asked.
func TestAskElicitationMode(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "a", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		_, err := c.Ask(ctx, map[string]mcp.InputRequest{"u": {Method: "elicitation/create",
			Params: &elicit.Params{Mode: "url", Message: "Go", URL: "https://example.com", ElicitationID: "x"}}})
		return fmt.Sprint(errors.Is(err, mcp.ErrURLElicitation)), nil
	})
	asked := false
	s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{
		Elicit: func(context.Context, *elicit.Params) (*elicit.Result, error) {
			asked = true
			return &elicit.Result{Action: "accept"}, nil
		}}})
	assert.Equal(t, "true", s.CallTool("ask", nil, nil).Text())
	assert.False(t, asked)
}
