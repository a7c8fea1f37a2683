// Package mcptest helps test MCP servers: an in-memory client session of
// a *mcp.Server that goes through the same handler chain as HTTP and
// stdio (authentication, CanAccess, timeouts, your middleware), with
// helpers that fail the test on a protocol error, and the notifications
// the server sent collected for assertions.
//
//	func TestAdd(t *testing.T) {
//		s := mcptest.NewSession(t, newServer(), nil)
//		res := s.CallTool("add", map[string]int{"a": 1, "b": 2})
//		if res.Text() != "3" { t.Fatalf("got %q", res.Text()) }
//	}
//
// Error paths (an unknown tool, a refused caller) are tested with the
// underlying [mcphttp.EmbeddedSession] from [Session.Client], whose
// methods return errors. A tool that fails is not a protocol error: its
// result has IsError set.
package mcptest

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// Options configure [NewSession]. The zero value (or nil) is an anonymous
// caller of a stateful engine.
type Options struct {
	// SessionAuth is the caller's auth data, for a server without
	// authentication (see mcphttp.EmbedOptions.SessionAuth).
	SessionAuth any
	// Header is sent with every request: the caller's credentials for the
	// server's Authenticate hook, or what your middleware reads.
	Header http.Header
	// Middleware wraps the engine, inside the server's authentication.
	Middleware []func(http.Handler) http.Handler
	// Handler configures the engine (page size, stateless, …).
	Handler *mcphttp.Options
	// ClientInfo is sent in initialize. Default {Name: "mcptest"}.
	ClientInfo mcp.Implementation
	// ProtocolVersion is the revision the session speaks (see
	// mcphttp.EmbedOptions.ProtocolVersion). Default 2025-11-25.
	ProtocolVersion mcp.Version
	// Client answers the server's sampling, elicitation and roots
	// requests, so tools that ask their client can be tested: see
	// [SampleReply], [ElicitAccept], [ElicitDecline], [ElicitURLAccept] and [RootsOf] for
	// fixed answers.
	Client mcphttp.ClientHandlers
	// Extensions are the extensions the session declares (see
	// mcphttp.EmbedOptions.Extensions): {mcp.AppsExtension: {}} tests a
	// server's MCP Apps as a host that renders them sees it.
	Extensions map[string]any
}

// Notification is a notification the server sent to the session.
type Notification struct {
	// Method is the notification's method ("notifications/progress", …).
	Method string
	// Params are its params, as the server sent them.
	Params json.RawMessage
}

// Session is an in-memory client session of a server, closed when the
// test ends. Its methods fail the test (t.Fatal) on a protocol error, so
// they must be called from the test's goroutine; the session itself is
// safe for concurrent use through [Session.Client].
type Session struct {
	t testing.TB
	e *mcphttp.EmbeddedSession

	mu    sync.Mutex
	cond  *sync.Cond
	notes []Notification
}

// NewSession starts an in-memory session of srv (initialize included) and
// registers its Close with t.Cleanup. It fails the test when the session
// cannot start (a refused caller, a bad option). opts may be nil.
func NewSession(t testing.TB, srv *mcp.Server, opts *Options) *Session {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.ClientInfo.Name == "" {
		o.ClientInfo = mcp.Implementation{Name: "mcptest", Version: "1.0.0"}
	}
	s := &Session{t: t}
	s.cond = sync.NewCond(&s.mu)
	e, err := mcphttp.Embed(context.Background(), srv, &mcphttp.EmbedOptions{
		SessionAuth: o.SessionAuth, Header: o.Header, Middleware: o.Middleware, Handler: o.Handler,
		ClientInfo: o.ClientInfo, OnNotification: s.collect,
		ProtocolVersion: o.ProtocolVersion, Client: o.Client, Extensions: o.Extensions,
	})
	if err != nil {
		t.Fatalf("mcptest: starting the session: %v", err)
	}
	s.e = e
	t.Cleanup(func() { _ = e.Close() })
	return s
}

func (s *Session) collect(method string, params json.RawMessage) {
	s.mu.Lock()
	s.notes = append(s.notes, Notification{Method: method, Params: params})
	s.mu.Unlock()
	s.cond.Broadcast()
}

// Client returns the underlying embedded session, whose methods take a
// context and return errors: use it to test error paths.
func (s *Session) Client() *mcphttp.EmbeddedSession { return s.e }

func (s *Session) ctx() context.Context { return s.t.Context() }

func (s *Session) check(what string, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("mcptest: %s: %v", what, err)
	}
}

// CallTool calls a tool with args (any JSON-encodable value) and returns
// its result; a failing tool is a result with IsError set.
func (s *Session) CallTool(name string, args any) *mcp.ContentResult {
	s.t.Helper()
	res, err := s.e.CallTool(s.ctx(), name, args)
	s.check("tools/call "+name, err)
	return res
}

// CallToolAs calls a tool and decodes its structured output into Out. It
// fails the test when the tool fails, has no structured output, or the
// output does not decode into Out.
func CallToolAs[Out any](s *Session, name string, args any) Out {
	s.t.Helper()
	out, _, err := mcphttp.CallToolAs[Out](s.ctx(), s.e, name, args)
	s.check("tools/call "+name, err)
	return out
}

// ListTools lists the tools visible to the session.
func (s *Session) ListTools() []mcp.Tool {
	s.t.Helper()
	tools, err := s.e.ListTools(s.ctx())
	s.check("tools/list", err)
	return tools
}

// ReadResource reads a resource by URI.
func (s *Session) ReadResource(uri string) *mcp.ReadResourceResult {
	s.t.Helper()
	res, err := s.e.ReadResource(s.ctx(), uri)
	s.check("resources/read "+uri, err)
	return res
}

// GetPrompt builds a prompt with args.
func (s *Session) GetPrompt(name string, args map[string]string) *mcp.PromptResult {
	s.t.Helper()
	res, err := s.e.GetPrompt(s.ctx(), name, args)
	s.check("prompts/get "+name, err)
	return res
}

// Complete asks for completions of argument arg of a prompt or resource
// template, value being what the user typed so far.
func (s *Session) Complete(ref mcp.CompletionRef, arg, value string, args map[string]string) *mcp.CompletionResult {
	s.t.Helper()
	res, err := s.e.Complete(s.ctx(), ref, arg, value, args)
	s.check("completion/complete", err)
	return res
}

// Notifications returns the notifications the server sent so far, in
// order (progress, log messages, streamed content, list changes).
func (s *Session) Notifications() []Notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes)
}

// WaitNotification waits up to timeout for a notification with method
// (one already received counts) and returns the first; it fails the test
// when none comes. Notifications outside a request (list changes) arrive
// asynchronously, hence the wait.
func (s *Session) WaitNotification(method string, timeout time.Duration) Notification {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	wake := time.AfterFunc(timeout, s.cond.Broadcast)
	defer wake.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if i := slices.IndexFunc(s.notes, func(n Notification) bool { return n.Method == method }); i >= 0 {
			return s.notes[i]
		}
		if !time.Now().Before(deadline) {
			s.t.Fatalf("mcptest: no %s notification within %s", method, timeout)
		}
		s.cond.Wait()
	}
}
