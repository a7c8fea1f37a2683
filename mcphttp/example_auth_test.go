package mcphttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// exampleTenant is an app's own middleware: it puts the caller's tenant
// in the request context.
type exampleTenant struct{}

// Run the server's authentication first in your own chain, so that your
// middleware after it sees the caller. The handler skips its own check for
// a request this method admitted: the check runs once.
func ExampleHandler_AuthMiddleware() {
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Logger: discardLogger(),
		Authenticate: func(r *http.Request) (any, error) {
			if r.Header.Get("Authorization") != "Bearer ada-token" {
				return nil, fmt.Errorf("%w: missing or unknown bearer token", mcp.ErrUnauthorized)
			}
			return "ada", nil
		}})
	h := mcphttp.New(srv, nil)
	defer h.Close()

	tenantOf := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The caller is known here because h.AuthMiddleware ran first.
			tenant := "tenant-of-" + fmt.Sprint(mcp.AuthFromContext(r.Context()))
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exampleTenant{}, tenant)))
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/api/mcp", alice.New(middleware.Recover(nil), h.AuthMiddleware, tenantOf).Then(h))

	for _, token := range []string{"", "Bearer mallory", "Bearer ada-token"} {
		req := httptest.NewRequest(http.MethodPost, "/api/mcp", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", token)
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			fmt.Print(rec.Code, " ", rec.Header().Get("WWW-Authenticate"), " ", rec.Body.String())
			continue
		}
		fmt.Println(rec.Code, "session issued:", rec.Header().Get("Mcp-Session-Id") != "")
	}
	// Output:
	// 401 Bearer {"error":"unauthorized","error_description":"Unauthorized: the request needs valid credentials"}
	// 401 Bearer error="invalid_token" {"error":"invalid_token","error_description":"Unauthorized: the credentials were refused (invalid, expired or revoked)"}
	// 200 session issued: true
}

// NewMux serves the endpoint with what needs a mux around it (the health
// endpoint, custom routes, discovery documents, an auth provider's
// routes); mount it under a prefix with http.StripPrefix.
func ExampleNewMux() {
	srv := mcp.NewServer(mcp.Options{Name: "notes", Version: "1.0.0", Logger: discardLogger()})
	srv.AddRoute("GET", "/version", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "1.0.0")
	}), &mcp.RouteOptions{Public: true})
	h := mcphttp.New(srv, nil)
	defer h.Close()

	app := http.NewServeMux()
	app.Handle("/tools/", http.StripPrefix("/tools", mcphttp.NewMux(h, nil)))

	for _, path := range []string{"/tools/health", "/tools/version"} {
		rec := httptest.NewRecorder()
		app.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		fmt.Print(path, " ", rec.Code, " ", rec.Body.String())
	}
	// The MCP endpoint is at /tools/mcp.
	// Output:
	// /tools/health 200 ok
	// /tools/version 200 1.0.0
}
