// Command apps serves an MCP App (the extension io.modelcontextprotocol/ui):
// a dice tool whose result a host renders as an interactive view, and a
// reroll tool only that view calls. The view is ui/dice.html, compiled in
// with go:embed; it speaks the extension's JSON-RPC over postMessage itself,
// without a JavaScript SDK. A client without the extension gets the
// tool's text.
//
//	go run ./examples/apps          # stdio
//	go run ./examples/apps -http    # Streamable HTTP on :8000/mcp
package main

import (
	"context"
	"embed"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/apps"
	"github.com/mcpchain/mcp/mcphttp"
)

//go:embed ui
var ui embed.FS

// viewURI names the view; the tools link to it.
const viewURI = "ui://dice/view.html"

type rollArgs struct {
	Count int `json:"count,omitempty" jsonschema:"how many dice" default:"2" mcp:"minimum=1,maximum=6"`
	Sides int `json:"sides,omitempty" jsonschema:"faces per die" default:"6" mcp:"minimum=2,maximum=100"`
}

// rollResult is what the view renders (structuredContent).
type rollResult struct {
	Dice  []int `json:"dice"`
	Sides int   `json:"sides"`
	Total int   `json:"total"`
}

// roll throws the dice: the text for the model and for clients without
// the extension, the numbers for the view.
func roll(in rollArgs) *mcp.ContentResult {
	r := rollResult{Sides: in.Sides}
	faces := make([]string, in.Count)
	for i := range in.Count {
		d := rand.IntN(in.Sides) + 1
		r.Dice, r.Total = append(r.Dice, d), r.Total+d
		faces[i] = fmt.Sprint(d)
	}
	return &mcp.ContentResult{Content: []mcp.Content{mcp.TextContent{
		Text: fmt.Sprintf("Rolled %s on %dd%d: %d", strings.Join(faces, ", "), in.Count, in.Sides, r.Total)}},
		StructuredContent: r}
}

func newServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "dice", Title: "Dice", Version: "1.0.0"})
	srv.AddAppResource(mcp.AppResource{URI: viewURI, Name: "dice-view", Title: "Dice",
		Description: "The dice of the last roll, and a button to roll them again",
		FS:          ui, File: "ui/dice.html", PrefersBorder: new(true)})
	mcp.AddTool(srv, mcp.Tool{Name: "roll", Title: "Roll dice", Description: "Roll dice and show them",
		UI: &apps.ToolUI{ResourceURI: viewURI}},
		func(ctx context.Context, c *mcp.Context, in rollArgs) (*mcp.ContentResult, error) {
			return roll(in), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "reroll", Description: "Roll the view's dice again",
		UI: &apps.ToolUI{ResourceURI: viewURI, Visibility: []apps.Visibility{apps.VisibleToApp}}},
		func(ctx context.Context, c *mcp.Context, in rollArgs) (*mcp.ContentResult, error) {
			return roll(in), nil
		})
	return srv
}

func main() {
	httpMode := flag.Bool("http", false, "serve Streamable HTTP on :8000/mcp instead of stdio")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	opts := &mcphttp.StartOptions{}
	if *httpMode {
		opts.TransportType = mcphttp.TransportHTTPStream
	}
	inst, err := mcphttp.Start(ctx, newServer(), opts)
	if err != nil {
		log.Fatal(err)
	}
	if err := inst.Wait(); err != nil {
		log.Fatal(err)
	}
}
