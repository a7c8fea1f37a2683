// Package mcptest helps test MCP servers: a [Session] is a
// [*client.Client] connected in process (client.InProcess) to a
// *mcp.Server, through the same handler chain as HTTP and stdio
// (authentication, CanAccess, timeouts, your middleware). Its methods are
// the client's, without the context, and fail the test on an error; what
// the server sent besides its answers (notifications, log messages,
// progress) is collected for assertions.
//
//	func TestAdd(t *testing.T) {
//		s := mcptest.NewSession(t, newServer(), nil)
//		res := s.CallTool("add", map[string]int{"a": 1, "b": 2}, nil)
//		if res.Text() != "3" { t.Fatalf("got %q", res.Text()) }
//	}
//
// Error paths (an unknown tool, a refused caller) are tested with the
// client itself, [Session.Client], whose methods return errors. A tool
// that fails is not a protocol error: its result has IsError set.
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
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// Options configure [NewSession]. The zero value (or nil) is an anonymous
// caller of a stateful engine, speaking revision 2025-11-25.
type Options struct {
	// SessionAuth is the caller's auth data, for a server without
	// authentication (see mcphttp.Local, which refuses it for a server
	// with authentication).
	SessionAuth any
	// Header is sent with every request: the caller's credentials for the
	// server's Authenticate hook, or what your middleware reads.
	Header http.Header
	// Middleware wraps the engine, inside the server's authentication.
	Middleware []func(http.Handler) http.Handler
	// Handler configures the engine (page size, stateless, …).
	Handler *mcphttp.Options
	// Client configures the client: its Info (default {Name:
	// "mcptest"}), the ProtocolVersion it speaks, its answers to the
	// server's sampling, elicitation and roots requests (see
	// [SampleReply], [ElicitAccept], [ElicitDecline], [ElicitURLAccept],
	// [RootsOf] and [SampleSequence] for fixed ones), the Extensions it
	// declares, and callbacks, which run besides the session's own
	// collection.
	Client client.Options
}

// Notification is a notification the server sent to the session.
type Notification struct {
	// Method is the notification's method ("notifications/progress", …).
	Method string
	// Params are its params, as the server sent them.
	Params json.RawMessage
}

// Session is an in-process client of a server, closed (the client, then
// the engine) when the test ends. Its methods fail the test (t.Fatal) on
// an error, so they must be called from the test's goroutine; the client
// itself ([Session.Client]) is safe for concurrent use.
//
// What the server sends during a tool call (its progress, its log
// messages) is collected by the time CallTool returns; what it sends
// outside any request (a list change), or during another request, arrives
// on its own time: wait for it with [Session.WaitNotification].
type Session struct {
	t testing.TB
	c *client.Client

	mu       sync.Mutex
	cond     *sync.Cond
	notes    []Notification
	logs     []mcp.LogMessage
	progress []mcp.Progress
}

// NewSession connects an in-process client to srv (initialize included,
// or at 2026-07-28 server/discover) and registers its Close with
// t.Cleanup. It fails the test when the session cannot start (a refused
// caller, a bad option). opts may be nil.
func NewSession(t testing.TB, srv *mcp.Server, opts *Options) *Session {
	t.Helper()
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Session{t: t}
	s.cond = sync.NewCond(&s.mu)
	co := o.Client
	if co.Info.Name == "" {
		co.Info = mcp.Implementation{Name: "mcptest", Version: "1.0.0"}
	}
	onNote, onLog := co.OnNotification, co.OnLog
	co.OnNotification = func(method string, params json.RawMessage) {
		s.collect(method, params)
		if onNote != nil {
			onNote(method, params)
		}
	}
	co.OnLog = func(m mcp.LogMessage) {
		s.mu.Lock()
		s.logs = append(s.logs, m)
		s.mu.Unlock()
		if onLog != nil {
			onLog(m)
		}
	}
	h := mcphttp.New(srv, o.Handler)
	local, err := mcphttp.Local(h, o.SessionAuth, o.Middleware...)
	if err != nil {
		_ = h.Close()
		t.Fatalf("mcptest: starting the session: %v", err)
	}
	c, err := client.Connect(context.Background(), client.InProcess(local, o.Header), &co)
	if err != nil {
		_ = h.Close()
		t.Fatalf("mcptest: starting the session: %v", err)
	}
	s.c = c
	t.Cleanup(func() {
		_ = c.Close()
		_ = h.Close()
	})
	return s
}

// collect keeps a notification, and a progress report's numbers.
func (s *Session) collect(method string, params json.RawMessage) {
	var p *mcp.Progress
	if method == "notifications/progress" {
		p = new(mcp.Progress)
		if json.Unmarshal(params, p) != nil {
			p = nil
		}
	}
	s.mu.Lock()
	s.notes = append(s.notes, Notification{Method: method, Params: params})
	if p != nil {
		s.progress = append(s.progress, *p)
	}
	s.mu.Unlock()
	s.cond.Broadcast()
}

// Client returns the session's client, whose methods take a context and
// return errors: use it to test error paths.
func (s *Session) Client() *client.Client { return s.c }

func (s *Session) ctx() context.Context { return s.t.Context() }

func (s *Session) check(what string, err error) {
	s.t.Helper()
	if err != nil {
		s.t.Fatalf("mcptest: %s: %v", what, err)
	}
}

// Call sends any request and decodes its result into result (nil to
// drop it).
func (s *Session) Call(method string, params, result any) {
	s.t.Helper()
	s.check(method, s.c.Call(s.ctx(), method, params, result))
}

// Notify sends a notification.
func (s *Session) Notify(method string, params any) {
	s.t.Helper()
	s.check(method, s.c.Notify(s.ctx(), method, params))
}

// ListTools lists the tools visible to the session.
func (s *Session) ListTools() []mcp.Tool {
	s.t.Helper()
	tools, err := s.c.ListTools(s.ctx())
	s.check("tools/list", err)
	return tools
}

// CallTool calls a tool with args (any JSON-encodable value) and returns
// its result; a failing tool is a result with IsError set. opts may be
// nil; opts.Progress asks for progress reports, as [Session.CallToolProgress]
// does. The call returns once the notifications the server sent during it
// are collected.
func (s *Session) CallTool(name string, args any, opts *client.CallOptions) *mcp.ContentResult {
	s.t.Helper()
	var o client.CallOptions
	if opts != nil {
		o = *opts
	}
	o.AfterNotifications = true
	res, err := s.c.CallTool(s.ctx(), name, args, &o)
	s.check("tools/call "+name, err)
	return res
}

// CallToolProgress calls a tool with a progress token (so that
// mcp.Context.ReportProgress reaches the client) and returns its result
// with the progress reports the server sent for the call, in order.
func (s *Session) CallToolProgress(name string, args any) (*mcp.ContentResult, []mcp.Progress) {
	s.t.Helper()
	var reports []mcp.Progress // the client calls Progress on one goroutine, before the call returns
	res := s.CallTool(name, args, &client.CallOptions{Progress: func(p mcp.Progress) { reports = append(reports, p) }})
	return res, reports
}

// CallToolAs calls a tool and decodes its structured output (or, without
// one, its text as JSON) into Out, as client.CallToolAs does. It fails the
// test when the tool fails (client.ErrToolFailed) or the output does not
// decode into Out.
func CallToolAs[Out any](s *Session, name string, args any) Out {
	s.t.Helper()
	out, err := client.CallToolAs[Out](s.ctx(), s.c, name, args)
	s.check("tools/call "+name, err)
	return out
}

// ListResources lists the static resources visible to the session.
func (s *Session) ListResources() []mcp.Resource {
	s.t.Helper()
	res, err := s.c.ListResources(s.ctx())
	s.check("resources/list", err)
	return res
}

// ListResourceTemplates lists the resource templates visible to the
// session.
func (s *Session) ListResourceTemplates() []mcp.ResourceTemplate {
	s.t.Helper()
	res, err := s.c.ListResourceTemplates(s.ctx())
	s.check("resources/templates/list", err)
	return res
}

// ReadResource reads a resource by URI.
func (s *Session) ReadResource(uri string) *mcp.ReadResourceResult {
	s.t.Helper()
	res, err := s.c.ReadResource(s.ctx(), uri)
	s.check("resources/read "+uri, err)
	return res
}

// Subscribe subscribes to changes of the resource at uri.
func (s *Session) Subscribe(uri string) {
	s.t.Helper()
	s.check("resources/subscribe "+uri, s.c.Subscribe(s.ctx(), uri))
}

// Unsubscribe ends a subscription.
func (s *Session) Unsubscribe(uri string) {
	s.t.Helper()
	s.check("resources/unsubscribe "+uri, s.c.Unsubscribe(s.ctx(), uri))
}

// ListPrompts lists the prompts visible to the session.
func (s *Session) ListPrompts() []mcp.Prompt {
	s.t.Helper()
	res, err := s.c.ListPrompts(s.ctx())
	s.check("prompts/list", err)
	return res
}

// GetPrompt builds a prompt with args.
func (s *Session) GetPrompt(name string, args map[string]string) *mcp.PromptResult {
	s.t.Helper()
	res, err := s.c.GetPrompt(s.ctx(), name, args)
	s.check("prompts/get "+name, err)
	return res
}

// Complete asks for completions of argument arg of a prompt or resource
// template, value being what the user typed so far and args the other
// arguments already chosen (nil for none).
func (s *Session) Complete(ref mcp.CompletionRef, arg, value string, args map[string]string) *mcp.CompletionResult {
	s.t.Helper()
	res, err := s.c.Complete(s.ctx(), ref, arg, value, args)
	s.check("completion/complete", err)
	return res
}

// SetLogLevel asks the server for log messages at level and above.
func (s *Session) SetLogLevel(level mcp.LogLevel) {
	s.t.Helper()
	s.check("logging/setLevel", s.c.SetLogLevel(s.ctx(), level))
}

// Ping checks that the server answers.
func (s *Session) Ping() {
	s.t.Helper()
	s.check("ping", s.c.Ping(s.ctx()))
}

// RootsChanged tells the server that the roots (Options.Client.Roots)
// changed.
func (s *Session) RootsChanged() {
	s.t.Helper()
	s.check("notifications/roots/list_changed", s.c.RootsChanged(s.ctx()))
}

// ListSkills lists the server's skills (declare mcp.SkillsExtension in
// Options.Client.Extensions).
func (s *Session) ListSkills() []mcp.Skill {
	s.t.Helper()
	res, err := s.c.ListSkills(s.ctx())
	s.check("skills/list", err)
	return res
}

// GetSkill returns the entry of the skill whose SKILL.md is uri.
func (s *Session) GetSkill(uri string) *mcp.Skill {
	s.t.Helper()
	res, err := s.c.GetSkill(s.ctx(), uri)
	s.check("skills/get "+uri, err)
	return res
}

// LoadSkill reads and verifies a skill's SKILL.md.
func (s *Session) LoadSkill(sk mcp.Skill) *client.LoadedSkill {
	s.t.Helper()
	res, err := s.c.LoadSkill(s.ctx(), sk)
	s.check("loading skill "+sk.URI, err)
	return res
}

// Notifications returns the notifications the server sent so far, in
// order (progress, log messages, streamed content, list changes).
func (s *Session) Notifications() []Notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes)
}

// Logs returns the log messages the server sent so far
// (notifications/message), in order.
func (s *Session) Logs() []mcp.LogMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.logs)
}

// Progress returns the progress reports the server sent so far, for
// every call that asked for them, in order.
func (s *Session) Progress() []mcp.Progress {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.progress)
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
