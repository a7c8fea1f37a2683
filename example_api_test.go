package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// quiet is the logger of the examples: the server's own diagnostics are
// not part of their output.
var quiet = slog.New(slog.DiscardHandler)

// A tool answers a caller's mistake with a *UserError (an isError result
// the model reads) and a protocol error with an *Error; the client tells
// them apart, and a client's errors carry the JSON-RPC codes.
func ExampleErrorf() {
	srv := mcp.NewServer(mcp.Options{Name: "orders", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "cancel"},
		func(ctx context.Context, c *mcp.Context, in struct {
			ID string `json:"id"`
		}) (string, error) {
			switch {
			case in.ID == "":
				return "", mcp.Errorf(mcp.CodeInvalidParams, "Invalid params: cancel needs an order id")
			case !strings.HasPrefix(in.ID, "o-"):
				return "", mcp.UserErrorf("no order %q: order ids start with o-", in.ID)
			}
			return "cancelled " + in.ID, nil
		})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	s, _ := client.Connect(ctx, client.InProcess(h, nil), nil)
	defer s.Close()

	res, _ := s.CallTool(ctx, "cancel", map[string]string{"id": "42"}, nil)
	fmt.Println(res.IsError, res.Text())
	_, err := s.CallTool(ctx, "cancel", map[string]string{"id": ""}, nil)
	fmt.Println(errors.Is(err, &mcp.Error{Code: mcp.CodeInvalidParams}), describe(err))
	// Output:
	// true no order "42": order ids start with o-
	// true invalid params
}

// describe names the JSON-RPC error a client got, by its code.
func describe(err error) string {
	var e *mcp.Error
	if !errors.As(err, &e) {
		return "not a JSON-RPC error"
	}
	switch e.Code {
	case mcp.CodeMethodNotFound:
		return "unknown method"
	case mcp.CodeInvalidParams:
		return "invalid params"
	case mcp.CodeInternalError:
		return "server failure"
	case mcp.CodeServerError:
		return "refused by the server"
	case mcp.CodeMissingClientCapability:
		return "the client must declare a capability"
	case mcp.CodeURLElicitationRequired:
		return "the user must open a URL first"
	}
	return "other"
}

// Middleware of your own talks to the engine through the request context:
// WithAuth sets the caller, access.WithPolicy hides objects from it, and
// WithInterceptor sees (or refuses) every JSON-RPC call. A tool reaches
// its Context from a plain context.Context with FromContext.
func ExampleWithInterceptor() {
	srv := mcp.NewServer(mcp.Options{Name: "ops", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami"}, func(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
		return callerOf(ctx), nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "deploy"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "deployed", nil
	})

	var seen []string
	logCalls := func(next mcp.CallHandler) mcp.CallHandler {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			res, err := next(ctx, c)
			switch {
			case c.ID == nil: // a notification
			case errors.Is(err, mcp.ErrResourceNotFound):
				seen = append(seen, c.Method+" (not found)")
			default:
				seen = append(seen, c.Method)
			}
			return res, err
		}
	}
	onlyAdminsDeploy := func(_ context.Context, q access.Query) bool {
		return q.Kind != access.KindTool || q.Name != "deploy" || q.Auth == "admin"
	}
	ours := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := mcp.WithAuth(r.Context(), r.Header.Get("X-User"))
			ctx = access.WithPolicy(ctx, onlyAdminsDeploy)
			ctx = mcp.WithInterceptor(ctx, logCalls)
			next.ServeHTTP(w, r.WithContext(ctx))
		})
	}

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	local, _ := mcphttp.Local(h, nil, ours) // the server's chain, then ours
	s, _ := client.Connect(ctx, client.InProcess(local, http.Header{"X-User": {"ada"}}), nil)
	defer s.Close()
	res, _ := s.CallTool(ctx, "whoami", nil, nil)
	fmt.Println(res.Text())
	_, err := s.CallTool(ctx, "deploy", nil, nil)
	fmt.Println(err)
	_, _ = s.ReadResource(ctx, "mem://nowhere")
	fmt.Println(access.KindResource, access.KindPrompt, seen)
	// Output:
	// ada
	// mcp client: "ops" answered tools/call with mcp error -32602: Unknown tool: "deploy"
	// resource prompt [initialize tools/call tools/call resources/read (not found)]
}

// callerOf is a helper deep in a tool's code that gets only a context.
func callerOf(ctx context.Context) string {
	c := mcp.FromContext(ctx)
	if c == nil {
		return "no MCP request"
	}
	who, _ := c.Session.(string)
	return who
}

// An interceptor refuses a call with an error that also chooses the HTTP
// answer: a rate limit's 429 and Retry-After.
type tooMany struct{ rpc *mcp.Error }

func (e tooMany) Error() string { return e.rpc.Error() }

func (e tooMany) Unwrap() error { return e.rpc } // the JSON-RPC error every transport sends

func (tooMany) HTTPStatus() int { return http.StatusTooManyRequests }

func (tooMany) HTTPHeader() http.Header { return http.Header{"Retry-After": {"1"}} }

func ExampleHTTPStatusError() {
	srv := mcp.NewServer(mcp.Options{Name: "limited", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "work"}, func(context.Context, *mcp.Context, struct{}) (string, error) { return "done", nil })
	refuse := func(next mcp.CallHandler) mcp.CallHandler {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Method == "tools/call" {
				var err mcp.HTTPStatusError = tooMany{mcp.Errorf(mcp.CodeServerError, "Too many requests: retry in a second")}
				return nil, err
			}
			return next(ctx, c)
		}
	}
	h := mcphttp.New(srv, &mcphttp.Options{Stateless: true, JSONResponse: true})
	limited := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), refuse)))
	})
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", string(mcp.Version20251125))
	rec := httptest.NewRecorder()
	limited.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Header().Get("Retry-After"))
	// Output:
	// 429 1
}

// Skills (SEP-2640) are directories holding a SKILL.md; skills read at
// run time are checked with Registry.AddSkills.
func ExampleRegistry_AddSkills() {
	fsys := fstest.MapFS{
		"review/SKILL.md":       {Data: []byte("---\nname: review\ndescription: Review a change\n---\nRead the diff first.\n")},
		"review/checklist.md":   {Data: []byte("- tests pass\n")},
		"Bad Name/SKILL.md":     {Data: []byte("---\nname: Bad Name\ndescription: x\n---\n")},
		"notes/not-a-skill.txt": {Data: []byte("no SKILL.md here")},
	}
	srv := mcp.NewServer(mcp.Options{Name: "skills", Version: "1.0.0", Logger: quiet})
	err := srv.Registry().AddSkills(fsys)
	fmt.Println(errors.Is(err, mcp.ErrInvalidSkill))

	delete(fsys, "Bad Name/SKILL.md")
	fmt.Println(srv.Registry().AddSkills(fsys))
	// What skills/list answers a client that reads skills, in process.
	h := mcphttp.New(srv, nil)
	defer h.Close()
	c, _ := client.Connect(context.Background(), client.InProcess(h, nil),
		&client.Options{Extensions: map[string]any{mcp.SkillsExtension: nil}})
	defer c.Close()
	var skills []mcp.Skill
	skills, _ = c.ListSkills(context.Background())
	for _, sk := range skills {
		var files []string
		for _, f := range sk.Resources {
			var _ mcp.SkillFile = f // its URI, its SHA-256 digest and its size
			files = append(files, f.URI)
		}
		fmt.Println(sk.Name, sk.Description, files)
	}
	err = srv.Registry().AddSkills(fstest.MapFS{"readme.txt": {Data: []byte("hi")}})
	fmt.Println(errors.Is(err, mcp.ErrNoSkills))
	// Output:
	// true
	// <nil>
	// review Review a change [skill://review/SKILL.md skill://review/checklist.md]
	// true
}

// Resources and templates registered at run time report a bad definition
// as an error; a tool result can link to a resource instead of embedding
// it; a template argument can offer completions.
func ExampleRegistry_AddResource() {
	srv := mcp.NewServer(mcp.Options{Name: "files", Version: "1.0.0", Logger: quiet})
	motd := mcp.Resource{URI: "mem://motd", Name: "motd", MIMEType: "text/plain",
		Load: func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: "mem://motd", Text: "hello"}}, nil
		}}
	fmt.Println(srv.Registry().AddResource(motd))
	err := srv.Registry().AddResource(mcp.Resource{URI: "mem://empty"})
	fmt.Println(errors.Is(err, mcp.ErrInvalidDefinition))

	var complete mcp.CompleteFunc = func(ctx context.Context, value string, args map[string]string) ([]string, error) {
		return slices.DeleteFunc([]string{"alice", "bob"}, func(u string) bool { return !strings.HasPrefix(u, value) }), nil
	}
	fmt.Println(srv.Registry().AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "users://{name}", Name: "user",
		Arguments: []mcp.TemplateArgument{{Name: "name", Complete: complete}},
		Load: func(ctx context.Context, c *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: "users://" + args["name"], Text: "user " + args["name"]}}, nil
		}}))
	mcp.AddTool(srv, mcp.Tool{Name: "where"}, func(context.Context, *mcp.Context, struct{}) (mcp.ResourceLink, error) {
		return motd.Link(), nil
	})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	s, _ := client.Connect(ctx, client.InProcess(h, nil), nil)
	defer s.Close()
	counts := func() (int, int) { // as resources/list and resources/templates/list answer
		rs, _ := s.ListResources(ctx)
		ts, _ := s.ListResourceTemplates(ctx)
		return len(rs), len(ts)
	}
	fmt.Println(counts())
	var read *mcp.ReadResourceResult
	read, _ = s.ReadResource(ctx, "users://bob")
	fmt.Println(read.Contents[0].Text)
	var done *mcp.CompletionResult
	done, _ = s.Complete(ctx, mcp.CompletionRef{Type: "ref/resource", URI: "users://{name}"}, "name", "a", nil)
	fmt.Println(done.Values)
	res, _ := s.CallTool(ctx, "where", nil, nil)
	link, _ := res.Content[0].(mcp.ResourceLink)
	fmt.Println(link.URI)

	srv.Registry().Remove(access.KindResource, "mem://motd")
	srv.Registry().Remove(access.KindResource, "users://{name}")
	fmt.Println(counts())
	// Output:
	// <nil>
	// true
	// <nil>
	// 1 1
	// user bob
	// [alice]
	// mem://motd
	// 0 0
}

// A tool logs to its client with Context.Log, filtered by the level the
// client chose; the client gets a LogMessage as the notification's params.
func ExampleLogLevel() {
	srv := mcp.NewServer(mcp.Options{Name: "jobs", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "sync"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		c.Log.Debug("cache checked")
		c.Log.Warn("slow upstream", "ms", 900)
		c.Log.Log(mcp.LevelCritical, "disk almost full")
		return "synced", nil
	})

	ctx := context.Background()
	var got []string
	h := mcphttp.New(srv, nil)
	defer h.Close()
	s, _ := client.Connect(ctx, client.InProcess(h, nil), &client.Options{OnLog: func(m mcp.LogMessage) {
		got = append(got, string(m.Level))
	}})
	defer s.Close()
	_ = s.SetLogLevel(ctx, mcp.LevelInfo)
	// AfterNotifications: the call returns once OnLog has seen its messages.
	_, _ = s.CallTool(ctx, "sync", nil, &client.CallOptions{AfterNotifications: true})
	fmt.Println(got)

	fmt.Println(mcp.LevelError.Enabled(mcp.LevelWarning), mcp.LevelDebug.Enabled(mcp.LevelNotice),
		mcp.LevelAlert.Enabled(""), mcp.LevelEmergency.Valid(), mcp.LogLevel("loud").Valid())
	// Output:
	// [warning critical]
	// true false true true false
}

// Prompts with typed arguments can be registered at run time; a raw tool
// takes its arguments as JSON; a long tool runs as a task (revision
// 2026-07-28) with the default lifetime and poll interval.
func ExampleTryAddTypedPrompt() {
	srv := mcp.NewServer(mcp.Options{Name: "kit", Version: "1.0.0", Logger: quiet})
	var greet mcp.PromptFunc[struct {
		Name string `json:"name"`
	}] = func(ctx context.Context, c *mcp.Context, args struct {
		Name string `json:"name"`
	}) (*mcp.PromptResult, error) {
		return mcp.UserText("Greet " + args.Name), nil
	}
	fmt.Println(mcp.TryAddTypedPrompt(srv.Registry(), mcp.Prompt{Name: "greet"}, greet))
	fmt.Println(mcp.TryAddTypedPrompt(srv.Registry(), mcp.Prompt{Name: "greet"}, greet))

	var echo mcp.RawToolFunc = func(ctx context.Context, c *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
		return &mcp.ContentResult{Content: []mcp.Content{mcp.Text(string(args))}}, nil
	}
	srv.AddRawTool(mcp.Tool{Name: "echo", InputSchema: nil}, echo)
	mcp.AddTool(srv, mcp.Tool{Name: "report", Task: &mcp.TaskOptions{TTL: 2 * time.Hour, PollInterval: time.Second}},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) { return "the report", nil })
	// Output:
	// <nil>
	// prompt "greet" is already registered
}

// apiKeys is an AuthProvider of its own: it checks API keys, and it
// describes its OAuth documents (a discovery.MetadataProvider), so the server
// serves them and points 401 answers at them.
type apiKeys map[string]grant

func (k apiKeys) VerifyRequest(r *http.Request) (any, error) {
	if g, ok := k[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]; ok {
		return g, nil
	}
	return nil, fmt.Errorf("%w: unknown API key", mcp.ErrUnauthorized)
}

func (apiKeys) Mount(mux *http.ServeMux) {}

func (apiKeys) OAuthMetadata() *discovery.Options {
	return &discovery.Options{
		Enabled: true,
		ProtectedResource: &discovery.ProtectedResourceMetadata{Resource: "https://notes.example/mcp",
			AuthorizationServers: []string{"https://id.example"}, ScopesSupported: []string{"notes:read"}},
		AuthorizationServer: &discovery.AuthorizationServerMetadata{Issuer: "https://id.example",
			AuthorizationEndpoint: "https://id.example/authorize", TokenEndpoint: "https://id.example/token",
			ResponseTypesSupported: []string{"code"}},
	}
}

// grant is the auth data of a key: the scopes it was granted.
type grant []string

// HasScope makes grant an access.ScopeChecker, for access.Scopes.
func (g grant) HasScope(scope string) bool { return slices.Contains(g, scope) }

var (
	_ discovery.MetadataProvider = apiKeys{}
	_ access.ScopeChecker        = grant{}
)

func ExampleOptions() {
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Logger: quiet,
		Auth:  apiKeys{"k1": {"notes:read"}},
		Roots: &mcp.RootsOptions{Disabled: true}, // never ask clients for their roots
	})
	mcp.AddTool(srv, mcp.Tool{Name: "read", CanAccess: access.Scopes("notes:read")},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "a note", nil })
	// The HTTP side's own endpoints and pings are the handler's options.
	h := mcphttp.New(srv, &mcphttp.Options{
		Health: &mcphttp.HealthOptions{Path: "/healthz", Message: "up"},
		Ping:   &middleware.PingOptions{Interval: 30 * time.Second, MaxFailures: 2},
	})
	defer h.Close()
	mux := mcphttp.NewMux(h, nil)

	for _, path := range []string{"/healthz", "/.well-known/oauth-protected-resource/mcp", "/mcp"} {
		rec := httptest.NewRecorder()
		method := http.MethodGet
		if path == "/mcp" {
			method = http.MethodPost
		}
		mux.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		fmt.Println(path, rec.Code, rec.Header().Get("WWW-Authenticate") != "")
	}
	// Output:
	// /healthz 200 false
	// /.well-known/oauth-protected-resource/mcp 200 false
	// /mcp 401 true
}

// A tool that works on the client's files reads its roots; a client that
// declared roots with listChanged says when they change, so a tool may
// keep what it read.
func ExampleContext_Roots() {
	srv := mcp.NewServer(mcp.Options{Name: "files", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "where"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		var caps *mcp.RootsCapability = c.ClientCapabilities.Roots
		if caps == nil {
			return "the client shares no roots", nil
		}
		roots, err := c.Roots(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d roots (cacheable: %v)", len(roots), caps.ListChanged), nil
	})
	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	s, _ := client.Connect(ctx, client.InProcess(h, nil), nil)
	defer s.Close()
	res, _ := s.CallTool(ctx, "where", nil, nil)
	fmt.Println(res.Text())
	// Output:
	// the client shares no roots
}

// The types a tool meets through its Context and its results: the
// client's declared capabilities, the logger (pass c.Log on to helpers as
// a mcp.Logger), an access check shared by several tools, and annotations
// that tell the client who a piece of content is for.
func ExampleClientCapabilities() {
	adminOnly := access.Check(func(ctx context.Context, auth any) bool { return auth == "admin" })
	srv := mcp.NewServer(mcp.Options{Name: "ops", Version: "1.0.0", Logger: quiet})
	audit := func(log mcp.Logger, what string) { log.Info("audit", "action", what) }
	mcp.AddTool(srv, mcp.Tool{Name: "restart", CanAccess: adminOnly},
		func(ctx context.Context, c *mcp.Context, in struct{}) (*mcp.ContentResult, error) {
			audit(c.Log, "restart")
			var caps mcp.ClientCapabilities = c.ClientCapabilities
			note := mcp.TextContent{Text: "restarted", Annotations: &mcp.Annotations{
				Audience: []mcp.Role{mcp.RoleUser}, Priority: 1}}
			if caps.Sampling != nil {
				note.Text += " (this client could be asked to summarize the logs)"
			}
			return &mcp.ContentResult{Content: []mcp.Content{note}}, nil
		})
	fmt.Println(len(srv.ListTools(context.Background(), "admin")), len(srv.ListTools(context.Background(), "guest")))
	// Output: 1 0
}

// A client's own metadata travels in the request's params._meta; a tool
// reads it typed with MetaValue (or raw with Context.Meta).
func ExampleMetaValue() {
	srv := mcp.NewServer(mcp.Options{Name: "orders", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "place"}, func(ctx context.Context, c *mcp.Context, in struct{}) (string, error) {
		key, ok := mcp.MetaValue[string](c, "example.com/idempotency-key")
		if !ok {
			return "", mcp.UserErrorf("send an idempotency key in _meta")
		}
		raw, _ := c.Meta("example.com/idempotency-key")
		return "placed once for " + key + " (" + string(raw) + ")", nil
	})
	h := mcphttp.New(srv, nil)
	defer h.Close()
	e, err := client.Connect(context.Background(), client.InProcess(h, nil), nil)
	if err != nil {
		panic(err)
	}
	defer e.Close()
	var res mcp.ContentResult
	err = e.Call(context.Background(), "tools/call", map[string]any{"name": "place", "arguments": map[string]any{},
		"_meta": map[string]any{"example.com/idempotency-key": "k-42"}}, &res)
	fmt.Println(res.Text(), err)
	// Output: placed once for k-42 ("k-42") <nil>
}
