package tools

import (
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/sampling"
	"github.com/mcpchain/mcp/state"
)

// The features of the newest revisions, one small tool each: a typed
// form, a URL to open, the model with tools, a task, an MCP App, a tool
// one session unlocks, a transformed tool and per-session state. The
// e2e tests' clients call the fixtures of Register; these are tested in
// examples/everything/showcase_test.go, through embedded sessions that
// answer as a client would.

//go:embed ui
var ui embed.FS

// ShowcaseNames are the tools RegisterShowcase adds that every client
// sees (dice_reroll is for an MCP App's view, listed only to hosts that
// render apps; secret is listed only to the session that unlocked it).
var ShowcaseNames = []string{"book_table", "connect_account", "plan_trip", "report", "dice", "unlock", "add_ten", "visits"}

// booking is the form book_table asks the user to fill in.
type booking struct {
	Name   string `json:"name" jsonschema:"who the table is for"`
	Guests int    `json:"guests" jsonschema:"how many people" default:"2" mcp:"minimum=1,maximum=12"`
	Time   string `json:"time" enum:"18:00,19:30,21:00" enumTitles:"Early,Middle,Late" default:"19:30"`
}

// RegisterShowcase adds the showcase tools, their app's view and the
// route of the URL elicitation's page to srv, which must have the tools
// of Register (add_ten is derived from add).
func RegisterShowcase(srv *mcp.Server) {
	// A typed form (elicitation): the struct's schema is the form.
	mcp.AddTool(srv, mcp.Tool{Name: "book_table", Description: "Book a table: asks the user for the details"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			b, action, err := elicit.As[booking](ctx, c, "Book a table")
			if err != nil {
				return "", err
			}
			if action != elicit.ActionAccept {
				return "no booking (" + action + ")", nil
			}
			return fmt.Sprintf("booked for %s, %d guests at %s", b.Name, b.Guests, b.Time), nil
		})

	// URL-mode elicitation: the user opens a page the client never sees
	// the contents of; the page's own route tells the server it is done.
	mcp.AddTool(srv, mcp.Tool{Name: "connect_account", Description: "Connect an account on a page the user opens"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			id := rand.Text()
			res, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: id,
				URL:     "https://example.com/connect?elicitation=" + id,
				Message: "Sign in to the account to connect"})

			if err != nil {
				return "", err
			}
			return "connect_account: " + res.Action, nil
		})
	srv.AddRoute("GET", "/connect/done", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The page calls this when the user finished: the client hears
		// notifications/elicitation/complete on that session.
		elicit.Complete(srv, r.URL.Query().Get("session"), r.URL.Query().Get("elicitation"))
		mcphttp.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
	}), &mcp.RouteOptions{Public: true})

	// Sampling with tools: the client's model may call forecast while it
	// plans; sampling.RunLoop runs the loop.
	loopTools := mcp.NewServer(mcp.Options{Name: "trip-tools", Version: "1.0.0"})
	mcp.AddTool(loopTools, mcp.Tool{Name: "forecast", Description: "The weather forecast of a city"},
		func(_ context.Context, _ *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			return "sunny in " + in.City, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "plan_trip", Description: "Ask the client's model to plan a trip, with a forecast tool"},
		func(ctx context.Context, c *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			res, err := sampling.RunLoop(ctx, c, &sampling.Request{MaxTokens: 200,
				Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: "Plan a day in " + in.City}}}},
				sampling.Loop{Tools: loopTools})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s (after %d rounds)", textOf(res.Result), res.Rounds), nil
		})

	// A task: clients that ask run it in the background and poll.
	mcp.AddTool(srv, mcp.Tool{Name: "report", Description: "Build a report (runs as a task when the client asks)",
		Task: &mcp.TaskOptions{}},
		func(ctx context.Context, c *mcp.Context, in struct {
			MS int `json:"ms,omitempty" default:"50" mcp:"maximum=5000"`
		}) (string, error) {
			select {
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return "report ready", nil
			case <-ctx.Done():
				return "", ctx.Err()
			}
		})

	// An MCP App: dice whose result a host renders with ui/dice.html;
	// dice_reroll is for the view only.
	srv.AddAppResource(mcp.AppResource{URI: "ui://everything/dice.html", Name: "dice-view",
		FS: ui, File: "ui/dice.html"})
	// The view renders structuredContent: the dice, their sides, the
	// total. The roll is a function of the seed, so tests can check it.
	type rolled struct {
		Dice  []int `json:"dice"`
		Sides int   `json:"sides"`
		Total int   `json:"total"`
	}
	roll := func(_ context.Context, _ *mcp.Context, in struct {
		Seed int `json:"seed,omitempty" jsonschema:"any number; the same seed rolls the same dice"`
	}) (rolled, error) {
		a, b := in.Seed%6+1, (in.Seed/6)%6+1
		return rolled{Dice: []int{a, b}, Sides: 6, Total: a + b}, nil
	}
	mcp.AddTool(srv, mcp.Tool{Name: "dice", Description: "Roll a die (an MCP App shows it)",
		UI: &apps.ToolUI{ResourceURI: "ui://everything/dice.html"}}, roll)
	mcp.AddTool(srv, mcp.Tool{Name: "dice_reroll", Description: "Roll again, from the app's view",
		UI: &apps.ToolUI{ResourceURI: "ui://everything/dice.html", Visibility: []apps.Visibility{apps.VisibleToApp}}}, roll)

	// A per-session tool: unlock gives this session alone a secret tool.
	mcp.AddTool(srv, mcp.Tool{Name: "unlock", Description: "Give this session the secret tool"},
		func(_ context.Context, c *mcp.Context, _ struct{}) (string, error) {
			err := mcp.TryAddTool(srv.SessionRegistry(c.SessionID), mcp.Tool{Name: "secret", Description: "Only for the session that unlocked it"},
				func(context.Context, *mcp.Context, struct{}) (string, error) { return "the secret is 42", nil })
			if err != nil {
				return "", err
			}
			return "unlocked", nil
		})

	// A transformed tool: add with b fixed at 10.
	srv.AddTransformedTool("add", mcp.Transform{Name: "add_ten", Description: "Add ten to a number",
		Args: map[string]mcp.ArgTransform{"a": {Description: "the number"}, "b": {Hide: true, Value: 10}}})

	// A counter that follows its caller: a signed-in caller's own count
	// (state.Caller: the same at every revision, in stateless mode, and on
	// every replica that shares the store), else the session's.
	mcp.AddTool(srv, mcp.Tool{Name: "visits", Description: "Count your visits: per signed-in user, else per session"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (int, error) {
			scope := state.Caller(c)
			n, _, err := state.Get[int](ctx, scope, "visits")
			if errors.Is(err, mcp.ErrNoCaller) {
				scope = state.Session(c)
				n, _, err = state.Get[int](ctx, scope, "visits")
			}
			if errors.Is(err, mcp.ErrNoSession) {
				return 0, errors.New("visits are counted per signed-in user (Authorization: Bearer <name>) or per session; this anonymous request has neither")
			}
			if err != nil {
				return 0, err
			}
			n++
			return n, state.Set(ctx, scope, "visits", n)
		})
}

// textOf is the text of a sampling result's content.
func textOf(r *sampling.Result) string {
	var s string
	for _, b := range r.ContentBlocks() {
		if t, ok := b.(mcp.TextContent); ok {
			s += t.Text
		}
	}
	return s
}
