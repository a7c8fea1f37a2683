package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// The canonical chain, outermost first: recovery and logging see
// everything; CORS answers preflights before authentication rejects them;
// the access policy needs the auth data; the timeout bounds only the work.
func Example() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Logger: logger})
	// One allow-list for the engine's DNS-rebinding check and for CORS.
	allow := &middleware.AllowList{Origins: []string{"https://app.example"}}
	// The engine runs its own Host/Origin check, session-ID check and
	// pings (mcphttp.Options.Ping), wherever it is mounted.
	engine := mcphttp.New(srv, &mcphttp.Options{Allow: allow})
	defer engine.Close()

	chain := alice.New(
		middleware.Recover(logger),
		middleware.RequestLog(logger),
		middleware.CORS(&middleware.CORSOptions{Allow: allow}),
		middleware.CheckCredentials(func(r *http.Request) (any, error) {
			if r.Header.Get("Authorization") != "Bearer secret" {
				return nil, fmt.Errorf("%w: missing or unknown bearer token", mcp.ErrUnauthorized)
			}
			return "ada", nil
		}, &middleware.AuthOptions{Logger: logger}),
		middleware.SessionID,
		middleware.RestrictAccess(func(_ context.Context, q access.Query) bool {
			return !strings.HasPrefix(q.Name, "admin_") || q.Auth == "admin"
		}),
		middleware.Timeout(2*time.Minute),
	)
	mux := http.NewServeMux()
	mux.Handle("/mcp", chain.Then(engine))
	// Serve mux: http.ListenAndServe("localhost:8000", mux)
}

// exampleLogger logs to stdout without the time and duration, so the
// examples' output is stable.
func exampleLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// RequestLog names the JSON-RPC method and the tool, prompt or resource of
// each request, as the engine decoded it, and the JSON-RPC error of a
// refused one.
func ExampleRequestLog() {
	logger := exampleLogger()
	srv := mcp.NewServer(mcp.Options{Name: "hello", Version: "1.0.0", Logger: logger})
	mcp.AddTool(srv, mcp.Tool{Name: "greet"}, func(ctx context.Context, c *mcp.Context, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "Hello, " + in.Name, nil
	})
	engine := mcphttp.New(srv, &mcphttp.Options{Stateless: true})
	defer engine.Close()
	h := middleware.RequestLog(nil)(engine) // nil: the server's logger

	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
	} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	// Output:
	// level=INFO msg="mcp request" method=POST path=/mcp status=200 bytes=84 rpc=tools/call tool=greet
	// level=INFO msg="mcp request" method=POST path=/mcp status=200 bytes=84 rpc=tools/call tool=nope rpc_error=-32602
}

func ExampleSessionID() {
	h := middleware.SessionID(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Printf("session %q\n", middleware.SessionIDFromContext(r.Context()))
	}))
	for _, id := range []string{"8f1c", "", "not valid"} {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			fmt.Print(rec.Code, " ", rec.Body.String())
		}
	}
	// Output:
	// session "8f1c"
	// session ""
	// 400 {"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Bad Request: the Mcp-Session-Id header must be 1 to 256 visible ASCII characters (0x21 to 0x7E); send the ID the server issued, unchanged"}}
}

func ExampleRestrictAccess() {
	srv := mcp.NewServer(mcp.Options{Name: "ops", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	for _, name := range []string{"status", "admin_restart"} {
		mcp.AddTool(srv, mcp.Tool{Name: name}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "ok", nil })
	}
	// Only admins see (and may call) the admin_ tools.
	policy := func(_ context.Context, q access.Query) bool {
		return q.Kind != access.KindTool || !strings.HasPrefix(q.Name, "admin_") || q.Auth == "admin"
	}
	list := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var names []string
		for _, tl := range srv.ListTools(r.Context(), mcp.AuthFromContext(r.Context())) {
			names = append(names, tl.Name)
		}
		fmt.Println(strings.Join(names, " "))
	})
	for _, who := range []string{"guest", "admin"} {
		h := alice.New(middleware.FixedAuth(who), middleware.RestrictAccess(policy)).Then(list)
		fmt.Print(who, ": ")
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", nil))
	}
	// Output:
	// guest: status
	// admin: status admin_restart
}

func ExampleTimeout() {
	h := middleware.Timeout(10 * time.Millisecond)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // a slow tool that honours its context
		err := context.Cause(r.Context())
		fmt.Println(errors.Is(err, middleware.ErrTimeout))
		fmt.Println(err)
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", nil))
	// Output:
	// true
	// middleware: the request ran out of time: the server's limit is 10ms per request
}

func ExampleNewPing() {
	// The engine pings by itself as mcphttp.Options.Ping says; turn that
	// off to ping with options of your own.
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0"})
	engine := mcphttp.New(srv, &mcphttp.Options{Ping: &middleware.PingOptions{Disabled: true}})
	defer engine.Close()

	// Ping each client with an open GET stream every 10 s; end its session
	// after 5 unanswered pings in a row.
	ping := middleware.NewPing(engine, &middleware.PingOptions{Interval: 10 * time.Second, MaxFailures: 5, LogLevel: slog.LevelInfo})
	defer ping.Close()

	mux := http.NewServeMux()
	mux.Handle("/mcp", alice.New(ping.Middleware).Then(engine))
	// Serve mux: http.ListenAndServe("localhost:8000", mux)
}

func ExampleCORS() {
	cors := middleware.CORS(&middleware.CORSOptions{Allow: &middleware.AllowList{Origins: []string{"https://app.example"}}})
	h := cors(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Mcp-Session-Id", "8f1c")
	}))

	preflight := httptest.NewRequest(http.MethodOptions, "/mcp", nil)
	preflight.Header.Set("Origin", "https://app.example")
	preflight.Header.Set("Access-Control-Request-Method", "POST")
	preflight.Header.Set("Access-Control-Request-Headers", "authorization,content-type,mcp-session-id")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, preflight)
	fmt.Println(rec.Code, rec.Header().Get("Access-Control-Allow-Origin"), rec.Header().Get("Access-Control-Allow-Headers"))

	post := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	post.Header.Set("Origin", "https://app.example")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, post)
	fmt.Println(rec.Code, rec.Header().Get("Access-Control-Expose-Headers"))
	// Output:
	// 204 https://app.example authorization,content-type,mcp-session-id
	// 200 Mcp-Session-Id, Www-Authenticate
}

func ExampleRecover() {
	h := middleware.Recover(slog.New(slog.DiscardHandler))(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("nil map write")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
	fmt.Print(rec.Code, " ", rec.Body.String())
	// Output:
	// 500 {"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the server failed while handling the request (see the server log)"}}
}

func ExampleCheckCredentials() {
	auth := func(r *http.Request) (any, error) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			return nil, fmt.Errorf("%w: missing or unknown bearer token", mcp.ErrUnauthorized)
		}
		return "ada", nil
	}
	h := middleware.CheckCredentials(auth, &middleware.AuthOptions{
		Challenge: discovery.Challenge("https://mcp.example/.well-known/oauth-protected-resource", ""),
		Logger:    slog.New(slog.DiscardHandler),
	})(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Println("hello", mcp.AuthFromContext(r.Context()))
		}))

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
	fmt.Print(rec.Code, " ", rec.Header().Get("WWW-Authenticate"), "\n", rec.Body.String())

	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer secret")
	h.ServeHTTP(httptest.NewRecorder(), req)
	// Output:
	// 401 Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"
	// {"error":"unauthorized","error_description":"Unauthorized: the request needs valid credentials"}
	// hello ada
}
