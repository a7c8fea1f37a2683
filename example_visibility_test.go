package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// names lists the tools a session sees.
func names(ctx context.Context, s *client.Client) []string {
	tools, _ := s.ListTools(ctx)
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// A tool gives its caller's session a tool of its own (c.SessionID names
// the session): only that session lists it, can call it, and is sent
// notifications/tools/list_changed.
func ExampleServer_SessionRegistry() {
	srv := mcp.NewServer(mcp.Options{Name: "shop", Version: "1.0.0"})
	type loginArgs struct {
		User string `json:"user"`
	}
	mcp.AddTool(srv, mcp.Tool{Name: "login"}, func(_ context.Context, c *mcp.Context, in loginArgs) (string, error) {
		err := mcp.TryAddTool(srv.SessionRegistry(c.SessionID), mcp.Tool{Name: "cart", Description: "The cart of " + in.User},
			func(context.Context, *mcp.Context, struct{}) (string, error) {
				return in.User + "'s cart is empty", nil
			})
		return "welcome, " + in.User, err
	})

	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	changed := make(chan string, 8)
	ada, _ := client.Connect(ctx, client.InProcess(h, nil), &client.Options{OnNotification: func(method string, _ json.RawMessage) { changed <- method }})
	defer ada.Close()
	bob, _ := client.Connect(ctx, client.InProcess(h, nil), nil)
	defer bob.Close()

	res, _ := ada.CallTool(ctx, "login", map[string]string{"user": "ada"}, nil)
	fmt.Println(res.Content[0].(mcp.TextContent).Text)
	fmt.Println("ada was sent", <-changed)
	fmt.Println("ada sees", names(ctx, ada))
	fmt.Println("bob sees", names(ctx, bob))
	res, _ = ada.CallTool(ctx, "cart", nil, nil)
	fmt.Println(res.Content[0].(mcp.TextContent).Text)
	_, err := bob.CallTool(ctx, "cart", nil, nil)
	fmt.Println("bob:", err)
	// Output:
	// welcome, ada
	// ada was sent notifications/tools/list_changed
	// ada sees [login cart]
	// bob sees [login]
	// ada's cart is empty
	// bob: mcp client: "shop" answered tools/call with mcp error -32602: Unknown tool: "cart"
}

// Outside a request, a session is named by the ID the transport reports:
// here the OnStart hook gives every session a resource, a template, a
// prompt and a tool of its own, and hides a tag from it. All of it is
// dropped when the session ends; a later call naming the session fails
// with ErrNoSession.
func ExampleServer_SessionRegistry_hooks() {
	srv := mcp.NewServer(mcp.Options{Name: "desk", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "report", Tags: []string{"beta"}}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "report", nil
	})
	text := func(s string) []mcp.ResourceContents { return []mcp.ResourceContents{{Text: s}} }
	var last string
	hooks := &mcphttp.SessionHooks{OnStart: func(info mcphttp.SessionInfo) {
		last = info.ID
		reg := srv.SessionRegistry(info.ID)
		err := errors.Join(
			reg.AddResource(mcp.Resource{URI: "session://notes", Name: "notes",
				Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) { return text("no notes yet"), nil }}),
			reg.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "session://notes/{n}", Name: "note",
				Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
					return text("note " + args["n"]), nil
				}}),
			reg.AddPrompt(mcp.Prompt{Name: "summarize",
				Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
					return mcp.UserText("Summarize my notes."), nil
				}}),
			mcp.TryAddTypedPrompt(reg, mcp.Prompt{Name: "greet"},
				func(_ context.Context, _ *mcp.Context, in struct {
					Name string `json:"name"`
				}) (*mcp.PromptResult, error) {
					return mcp.UserText("Hello, " + in.Name), nil
				}),
			reg.AddRawTool(mcp.Tool{Name: "note_count"}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
				return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{Text: "0"}}}, nil
			}),
			reg.Disable(mcp.Match{Tags: []string{"beta"}}),
		)
		if err != nil {
			fmt.Println(err)
		}
	}}
	ctx := context.Background()
	h := mcphttp.New(srv, &mcphttp.Options{Hooks: hooks})
	defer h.Close()
	s, _ := client.Connect(ctx, client.InProcess(h, nil), nil)
	fmt.Println(names(ctx, s))
	r, _ := s.ReadResource(ctx, "session://notes/7")
	fmt.Println(r.Contents[0].Text)
	p, _ := s.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
	fmt.Println(p.Messages[0].Content.(mcp.TextContent).Text)

	// The session's own rule comes after the server's: it can show again.
	reg := srv.SessionRegistry(last)
	_ = reg.Enable(mcp.Match{Tags: []string{"beta"}})
	// An empty kind removes the names of every kind: a tool, a resource,
	// a template and two prompts here.
	_ = reg.Remove("", "note_count", "session://notes", "session://notes/{n}", "summarize", "greet")
	fmt.Println(names(ctx, s))

	_ = s.Close()
	err := reg.AddRawTool(mcp.Tool{Name: "late"}, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
		return nil, nil
	})
	fmt.Println(errors.Is(err, mcp.ErrNoSession))
	// Output:
	// [note_count]
	// note 7
	// Hello, Ada
	// [report]
	// true
}

// Tags group objects; Disable and Enable hide and show them by tag or name
// for every session. An access.Policy decides per request with the
// session ID and the tags in hand.
func ExampleRegistry_Disable() {
	srv := mcp.NewServer(mcp.Options{Name: "ops", Version: "1.0.0"})
	for _, t := range []mcp.Tool{
		{Name: "status", Tags: []string{"read"}},
		{Name: "restart", Tags: []string{"admin", "write"}},
		{Name: "drain", Tags: []string{"admin", "write"}},
	} {
		mcp.AddTool(srv, t, func(context.Context, *mcp.Context, struct{}) (string, error) { return t.Name, nil })
	}
	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	show := func() {
		s := must(client.Connect(ctx, client.InProcess(h, nil), nil))
		defer s.Close()
		fmt.Println(names(ctx, s))
	}

	_ = srv.Registry().Disable(mcp.Match{Tags: []string{"admin"}})
	show()
	_ = srv.Registry().Enable(mcp.Match{Kind: access.KindTool, Names: []string{"drain"}}) // an exception
	show()
	_ = srv.Registry().Enable(mcp.Match{Tags: []string{"admin"}})
	show()

	// Writes only for sessions on the allow-list, whoever the caller is.
	allowed := map[string]bool{}
	var policy access.Policy = func(_ context.Context, q access.Query) bool {
		return !slices.Contains(q.Tags, "write") || allowed[q.SessionID]
	}
	withPolicy := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(access.WithPolicy(r.Context(), policy)))
		})
	}
	s := must(client.Connect(ctx, client.InProcess(must(mcphttp.Local(h, nil, withPolicy)), nil), nil))
	defer s.Close()
	fmt.Println(names(ctx, s))
	// Output:
	// [status]
	// [status drain]
	// [status restart drain]
	// [status]
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
