package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
)

// newMCPGoServer is the peer tool set of e2e/node/peer-common.mjs on
// mark3labs/mcp-go v1.2.1. sample and elicit are written as mcp-go
// recommends for both eras: they return input requests, which mcp-go
// answers itself for a client of the 2025 era (it sends the
// sampling/createMessage or elicitation/create request and calls the
// handler again) and hands to a client of 2026-07-28 as an
// input-required result. slow may run as a task (taskSupport optional),
// which mcp-go serves at 2025-11-25 (tasks/get, tasks/result,
// tasks/cancel). opts are added to the server's options (cache hints).
//
// mcp-go writes a notification from a goroutine of its own, after the
// handler queued it, and the result from the handler's: a progress
// notification can follow the result of its call on the wire, where the
// client drops it (the call is over); over HTTP at 2025-11-25 two
// notifications sent one after the other can even be written in the
// other order. With progress not nil (what the server writes, counted)
// the progress tool sends each notification once the one before was
// written, and returns once the last was, as a server that sends them
// in order does.
func newMCPGoServer(progress *progressLog, opts ...mcpgoserver.ServerOption) *mcpgoserver.MCPServer {
	var cancelled atomic.Int64
	s := mcpgoserver.NewMCPServer("peer-mcp-go", "1.0.0", append([]mcpgoserver.ServerOption{
		mcpgoserver.WithToolCapabilities(true),
		mcpgoserver.WithResourceCapabilities(false, true),
		mcpgoserver.WithPromptCapabilities(true),
		mcpgoserver.WithTaskCapabilities(true, true, true),
	}, opts...)...)
	text := mcpgo.NewToolResultText

	s.AddTool(mcpgo.NewTool("add", mcpgo.WithDescription("Add two numbers"),
		mcpgo.WithNumber("a", mcpgo.Required()), mcpgo.WithNumber("b", mcpgo.Required())),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return text(strconv.FormatFloat(req.GetFloat("a", 0)+req.GetFloat("b", 0), 'f', -1, 64)), nil
		})
	s.AddTool(mcpgo.NewTool("progress", mcpgo.WithDescription("Three progress notifications")),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
				for i := 1; i <= 3; i++ {
					if err := mcpgoserver.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress",
						map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": i, "total": 3}); err != nil {
						return nil, err
					}
					if progress != nil {
						if err := progress.await(ctx, fmt.Sprint(req.Params.Meta.ProgressToken), i); err != nil {
							return nil, err
						}
					}
				}
			}
			return text("done"), nil
		})
	s.AddTool(mcpgo.NewTool("slow", mcpgo.WithDescription("Sleep ms, counts cancellations"),
		mcpgo.WithNumber("ms", mcpgo.Required()), mcpgo.WithTaskSupport(mcpgo.TaskSupportOptional)),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			select {
			case <-time.After(time.Duration(req.GetFloat("ms", 0)) * time.Millisecond):
				return text("slept"), nil
			case <-ctx.Done():
				cancelled.Add(1)
				return nil, ctx.Err()
			}
		})
	s.AddTool(mcpgo.NewTool("cancelled", mcpgo.WithDescription("Cancelled slow calls")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return text(strconv.FormatInt(cancelled.Load(), 10)), nil
		})
	s.AddTool(mcpgo.NewTool("sample", mcpgo.WithDescription("Sampling round"), mcpgo.WithString("text", mcpgo.Required())),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			r := mcpgoserver.SamplingResponse(req.Params.InputResponses, "sample")
			if r == nil {
				return mcpgoserver.NewInputRequestBuilder("").Sample("sample", mcpgo.CreateMessageParams{MaxTokens: 100,
					Messages: []mcpgo.SamplingMessage{{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent(req.GetString("text", ""))}}}).ToolResult(), nil
			}
			// mcp-go decodes the content of a sampling answer in
			// inputResponses (2026-07-28) as a generic object, the one it
			// asked for itself (2025 era) as TextContent.
			switch c := r.Content.(type) {
			case mcpgo.TextContent:
				return text(c.Text), nil
			case map[string]any:
				if t, ok := c["text"].(string); ok && c["type"] == "text" {
					return text(t), nil
				}
			}
			b, _ := json.Marshal(r.Content)
			return text(string(b)), nil
		})
	s.AddTool(mcpgo.NewTool("elicit", mcpgo.WithDescription("Elicitation round")),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			r := mcpgoserver.ElicitationResponse(req.Params.InputResponses, "answer")
			if r == nil {
				return mcpgoserver.NewInputRequestBuilder("").Elicit("answer", mcpgo.ElicitationParams{Mode: "form", Message: "Answer?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)}).
					ToolResult(), nil
			}
			b, _ := json.Marshal(r.ElicitationResponse)
			return text(string(b)), nil
		})
	s.AddResource(mcpgo.NewResource("file:///hello.txt", "hello", mcpgo.WithMIMEType("text/plain")),
		func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: "file:///hello.txt", MIMEType: "text/plain", Text: "hello"}}, nil
		})
	s.AddResourceTemplate(mcpgo.NewResourceTemplate("greeting://{name}", "greeting", mcpgo.WithTemplateMIMEType("text/plain")),
		func(_ context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			name := strings.TrimPrefix(req.Params.URI, "greeting://")
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: req.Params.URI, MIMEType: "text/plain", Text: "Hello, " + name + "!"}}, nil
		})
	s.AddPrompt(mcpgo.NewPrompt("greet", mcpgo.WithPromptDescription("Greet someone"), mcpgo.WithArgument("name", mcpgo.RequiredArgument())),
		func(_ context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return &mcpgo.GetPromptResult{Messages: []mcpgo.PromptMessage{
				mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewTextContent("Hello, "+req.Params.Arguments["name"]+"!"))}}, nil
		})
	return s
}

// init serves newMCPGoServer over stdio and exits when the test binary
// runs as the mcp-go peer of a stdio test (mcpGoStdioCmd): mcp-go keeps
// its stdio session in a package variable, so one process serves one
// stdio connection. With MCPGO_PEER_GROW=1 tools/list is cacheable for
// a minute and a tool grow {name} adds a tool of that name; with
// MCPGO_PEER_TASKS=1 it has the task tool sleep (addMCPGoTaskTool).
func init() {
	if os.Getenv("MCPGO_PEER_STDIO") != "1" {
		return
	}
	var opts []mcpgoserver.ServerOption
	grow := os.Getenv("MCPGO_PEER_GROW") == "1"
	if grow {
		opts = append(opts, mcpGoCacheable)
	}
	progress := newProgressLog()
	s := newMCPGoServer(progress, opts...)
	if grow {
		s.AddTool(mcpgo.NewTool("grow", mcpgo.WithDescription("Add a tool"), mcpgo.WithString("name", mcpgo.Required())),
			func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				_ = growMCPGo(s)(ctx, nil, req.GetString("name", ""))
				return mcpgo.NewToolResultText("grown"), nil
			})
	}
	if os.Getenv("MCPGO_PEER_TASKS") == "1" {
		addMCPGoTaskTool(s, nil)
	}
	stdio := mcpgoserver.NewStdioServer(s)
	stdio.SetErrorLogger(log.New(os.Stderr, "mcp-go: ", 0))
	if err := stdio.Listen(context.Background(), os.Stdin, progress.writer(os.Stdout)); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-go stdio peer:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// progressLog counts the progress notifications a server wrote, by
// token: as stdio lines or as the data lines of SSE events.
type progressLog struct {
	mu      sync.Mutex
	seen    map[string]int
	changed chan struct{} // closed and replaced on each progress notification
}

func newProgressLog() *progressLog {
	return &progressLog{seen: map[string]int{}, changed: make(chan struct{})}
}

// note counts the progress notifications among the lines of p.
func (l *progressLog) note(p []byte) {
	for _, line := range bytes.Split(p, []byte("\n")) {
		line = bytes.TrimPrefix(bytes.TrimSpace(line), []byte("data: "))
		var m struct {
			Method string `json:"method"`
			Params struct {
				Token any `json:"progressToken"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil || m.Method != "notifications/progress" {
			continue
		}
		l.mu.Lock()
		l.seen[fmt.Sprint(m.Params.Token)]++
		close(l.changed)
		l.changed = make(chan struct{})
		l.mu.Unlock()
	}
}

// writer is w, what is written to it noted.
func (l *progressLog) writer(w io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		n, err := w.Write(p)
		l.note(p[:n])
		return n, err
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// handler is h, what it writes noted.
func (l *progressLog) handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&progressResponse{w, l}, r)
	})
}

type progressResponse struct {
	http.ResponseWriter
	log *progressLog
}

func (w *progressResponse) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.log.note(p[:n])
	return n, err
}

func (w *progressResponse) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *progressResponse) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// addMCPGoTaskTool adds the tool sleep {ms}, which runs only as a task
// (taskSupport required) and sleeps ms or until stop is closed. It does
// not follow its context: mcp-go 1.2.1 runs a task with the context of
// the tools/call that created it, cancelled once that call is answered,
// so a tool that follows it ends at once, cancelled. A cancelled task is
// marked cancelled by mcp-go's tasks/cancel whatever its tool does.
func addMCPGoTaskTool(s *mcpgoserver.MCPServer, stop <-chan struct{}) {
	s.AddTool(mcpgo.NewTool("sleep", mcpgo.WithDescription("Sleep ms, as a task"),
		mcpgo.WithNumber("ms", mcpgo.Required()), mcpgo.WithTaskSupport(mcpgo.TaskSupportRequired)),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			select {
			case <-time.After(time.Duration(req.GetFloat("ms", 0)) * time.Millisecond):
				return mcpgo.NewToolResultText("slept"), nil
			case <-stop:
				return nil, errors.New("stopped")
			}
		})
}

// await returns once n progress notifications with token were written.
func (l *progressLog) await(ctx context.Context, token string, n int) error {
	for {
		l.mu.Lock()
		seen, changed := l.seen[token], l.changed
		l.mu.Unlock()
		if seen >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// mcpGoStdioCmd is this test binary run as the mcp-go stdio peer (see
// init), killed at the end of the test, with env (MCPGO_PEER_GROW=1,
// MCPGO_PEER_TASKS=1).
func mcpGoStdioCmd(t *testing.T, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "MCPGO_PEER_STDIO=1"), env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		if t.Failed() {
			t.Logf("mcp-go stdio peer stderr:\n%s", stderr)
		}
	})
	return cmd
}

// mcpGoHTTP serves s over Streamable HTTP in the test's process (mcp-go's
// default: stateful for the 2025 era; 2026-07-28 requests are served
// without a session on the same endpoint), what it writes noted in
// progress. It returns the server's URL.
func mcpGoHTTP(t *testing.T, s *mcpgoserver.MCPServer, progress *progressLog) string {
	ts := httptest.NewServer(progress.handler(mcpgoserver.NewStreamableHTTPServer(s)))
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL + "/mcp"
}

// mcpGoPeer is newMCPGoServer as a peer of TestGoClientPeers, a server of
// its own for each test.
func mcpGoPeer() map[string]func(t *testing.T) client.Transport {
	return map[string]func(t *testing.T) client.Transport{
		"stdio": func(t *testing.T) client.Transport { return client.Command(mcpGoStdioCmd(t)) },
		"http": func(t *testing.T) client.Transport {
			progress := newProgressLog()
			return client.HTTP(mcpGoHTTP(t, newMCPGoServer(progress), progress), nil)
		},
	}
}

// TestGoClientMCPGoStatefulHTTP: mcp-go's HTTP entry serves the client at
// 2025-11-25 in a session (Mcp-Session-Id, a GET stream), and what does
// not depend on the order of a call's notifications works: lists, reads,
// prompts, a cancelled call, sampling and elicitation. Progress is n/a
// there: mcp-go 1.2.1 hands each notification of a session to whichever
// of its streams takes it first, the GET stream or the POST of the call,
// so the three progress notifications of one call reach the client on
// two streams, in any order, one after the call's result at times (seen:
// 1, 3, 2). Without the GET stream (HTTPOptions.NoListen) mcp-go sends
// its sampling request where the client does not read, and the call
// waits forever. TestGoClientPeers therefore speaks 2026-07-28 to
// mcp-go over HTTP, where each request has its own stream.
func TestGoClientMCPGoStatefulHTTP(t *testing.T) {
	t.Parallel()
	testPeer(t, mcpGoPeer()["http"](t), mcp.Version20251125, mcp.Version20251125,
		"tools", "resources", "templates", "prompts", "cancellation", "sampling", "elicitation")
}
