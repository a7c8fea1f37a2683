package mcptest_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/sampling"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type sum struct {
	Total int `json:"total"`
}

func newServer(auth mcp.AuthFunc) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "fixture", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler), Authenticate: auth})
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(ctx context.Context, c *mcp.Context, in struct {
		A int `json:"a"`
		B int `json:"b"`
	}) (sum, error) {
		c.Log.Info("added")
		return sum{Total: in.A + in.B}, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
		return fmt.Sprint(c.Session), nil
	})
	srv.AddResource(mcp.Resource{URI: "mem://greeting", Name: "greeting", MIMEType: "text/plain",
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: "hello"}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "greet", Arguments: []mcp.PromptArgument{{Name: "name", Required: true, Enum: []string{"Ada", "Alan"}}},
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
			return mcp.UserText("Hello " + args["name"]), nil
		}})
	return srv
}

func TestSession(t *testing.T) {
	t.Parallel()
	srv := newServer(nil)
	s := mcptest.NewSession(t, srv, &mcptest.Options{SessionAuth: "ada"})

	assert.Len(t, s.ListTools(), 2)
	res := s.CallTool("add", map[string]int{"a": 2, "b": 3}, nil)
	assert.False(t, res.IsError)
	assert.JSONEq(t, `{"total":5}`, res.Text())
	assert.Equal(t, sum{Total: 7}, mcptest.CallToolAs[sum](s, "add", map[string]int{"a": 3, "b": 4}))
	assert.Equal(t, "ada", s.CallTool("whoami", nil, nil).Text())
	assert.Equal(t, "hello", s.ReadResource("mem://greeting").Contents[0].Text)
	assert.Equal(t, mcp.Text("Hello Ada"), s.GetPrompt("greet", map[string]string{"name": "Ada"}).Messages[0].Content)
	assert.Equal(t, []string{"Ada", "Alan"}, s.Complete(mcp.CompletionRef{Type: "ref/prompt", Name: "greet"}, "name", "a", nil).Values)

	var methods []string
	for _, n := range s.Notifications() {
		methods = append(methods, n.Method)
	}
	assert.Contains(t, methods, "notifications/message", "the tool's log")

	// A change outside any request arrives on its own time.
	mcp.AddTool(srv, mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil })
	n := s.WaitNotification("notifications/tools/list_changed", 5*time.Second)
	assert.Equal(t, "notifications/tools/list_changed", n.Method)
}

func TestSessionHeaderAuth(t *testing.T) {
	t.Parallel()
	auth := func(r *http.Request) (any, error) {
		if r.Header.Get("Authorization") != "Bearer ada" {
			return nil, mcp.ErrUnauthorized
		}
		return "ada", nil
	}
	s := mcptest.NewSession(t, newServer(auth), &mcptest.Options{Header: http.Header{"Authorization": {"Bearer ada"}}})
	assert.Equal(t, "ada", s.CallTool("whoami", nil, nil).Text())

	ft := &fatalTB{TB: t}
	ft.run(func() { mcptest.NewSession(ft, newServer(auth), nil) })
	assert.Contains(t, ft.msg, "Unauthorized", "a refused caller fails the test with the reason")
}

// TestHelpersFailTheTest: a protocol error fails the test, naming what
// was asked and why.
func TestHelpersFailTheTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		call func(s *mcptest.Session)
		want string
	}{
		{"unknown tool", func(s *mcptest.Session) { s.CallTool("nope", nil, nil) }, `tools/call nope: mcp client: "fixture" answered tools/call with mcp error -32602`},
		{"tool output that is not a sum", func(s *mcptest.Session) { mcptest.CallToolAs[sum](s, "whoami", nil) }, "tools/call whoami: mcp client: the result of whoami does not decode as mcptest_test.sum"},
		{"unknown resource", func(s *mcptest.Session) { s.ReadResource("mem://nope") }, "resources/read mem://nope"},
		{"missing prompt argument", func(s *mcptest.Session) { s.GetPrompt("greet", nil) }, "prompts/get greet"},
		{"no such notification", func(s *mcptest.Session) { s.WaitNotification("notifications/nope", 10*time.Millisecond) },
			"no notifications/nope notification within 10ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ft := &fatalTB{TB: t}
			s := mcptest.NewSession(ft, newServer(nil), nil)
			ft.run(func() { tt.call(s) })
			assert.Contains(t, ft.msg, tt.want)
		})
	}
}

// fatalTB records a Fatalf instead of failing the real test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// run calls fn on its own goroutine (Fatalf ends it) and waits.
func (f *fatalTB) run(fn func()) {
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	<-done
	require.NotEmpty(f.TB, f.msg, "the helper must fail the test")
}

// TestSessionClientFixtures: the fixed answers of Options.Client reach a
// tool that asks, over 2025-11-25 and 2026-07-28.
func TestSessionClientFixtures(t *testing.T) {
	srv := mcp.NewServer(mcp.Options{Name: "asks", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, in struct{}) (string, error) {
		s, err := sampling.Create(ctx, c, &sampling.Request{MaxTokens: 5,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: "?"}}}})
		if err != nil {
			return "", err
		}
		e, err := elicit.Create(ctx, c, &elicit.Params{Message: "ok?", RequestedSchema: map[string]any{"type": "object"}})
		if err != nil {
			return "", err
		}
		r, err := c.Roots(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s|%s %v|%d %s", s.Content.(mcp.TextContent).Text, e.Action, e.Content["n"], len(r), r[0].URI), nil
	})
	for _, version := range []mcp.Version{"", mcp.Version20260728} {
		t.Run("version="+string(version), func(t *testing.T) {
			s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{ProtocolVersion: version, Sample: mcptest.SampleReply("yes"),
				Elicit: mcptest.ElicitAccept(map[string]any{"n": 2}),
				Roots:  mcptest.RootsOf("file:///x", "file:///y")}})
			assert.Equal(t, "yes|accept 2|2 file:///x", s.CallTool("ask", struct{}{}, nil).Text())

			declined := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{ProtocolVersion: version, Sample: mcptest.SampleReply("yes"), Elicit: mcptest.ElicitDecline(), Roots: mcptest.RootsOf("file:///x")}})
			assert.Equal(t, "yes|decline <nil>|1 file:///x", declined.CallTool("ask", struct{}{}, nil).Text())
		})
	}
}
