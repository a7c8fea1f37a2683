// Package discord is the server of e2e's tool search and code mode tests:
// Discord's 242 operations (openapi.RegisterDoc, against a mock of the API
// built from the same document) behind tool search, with code mode's script
// tool pinned beside the search and call tools when asked. The clients know
// nothing of either package.
//
// The tests serve it in process; the Node clients' stdio cases start
// ./stdio, built without the race detector: under it, loading the document
// took a minute on a loaded machine, longer than the clients wait for a
// server to start. It is a package of its own so that build compiles only
// what the server imports.
package discord

import (
	"log/slog"
	"net/http"
	"os"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/codemode"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/openapitest"
	"github.com/mcpchain/mcp/toolsearch"
)

// Server is Discord's operations, calling a mock of the API, with tool
// search installed, and code mode too when CodeMode was asked.
type Server struct {
	MCP *mcp.Server
	// Middleware installs tool search's interceptor, inside code mode's.
	Middleware func(http.Handler) http.Handler
	// Mock answers the API's requests and records them; Close it when done.
	Mock     *openapitest.Server
	CodeMode bool
}

// New builds the server from the OpenAPI document at spec.
func New(spec string, codeMode bool) (*Server, error) {
	data, err := os.ReadFile(spec)
	if err != nil {
		return nil, err
	}
	doc, err := openapi.Load(data)
	if err != nil {
		return nil, err
	}
	mock := openapitest.NewServer(doc)
	d := &Server{Mock: mock, CodeMode: codeMode}
	d.MCP = mcp.NewServer(mcp.Options{Name: "discord", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	if err := openapi.RegisterDoc(d.MCP, doc, openapi.Options{BaseURL: mock.BaseURL(), Client: mock.Client()}); err != nil {
		mock.Close()
		return nil, err
	}
	var runner *codemode.Runner
	var opts *toolsearch.Options
	if codeMode {
		// As docs/codemode.md installs it: the script tool registered
		// first and pinned beside search, its middleware outermost.
		if runner, err = codemode.New(d.MCP, nil); err != nil {
			mock.Close()
			return nil, err
		}
		opts = &toolsearch.Options{Pinned: []string{codemode.DefaultTool}}
	}
	s, err := toolsearch.New(d.MCP, opts)
	if err != nil {
		mock.Close()
		return nil, err
	}
	d.Middleware = s.Middleware
	if runner != nil {
		d.Middleware = func(h http.Handler) http.Handler { return runner.Middleware(s.Middleware(h)) }
	}
	return d, nil
}
