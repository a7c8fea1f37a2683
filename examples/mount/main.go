// Command mount shows an MCP server mounted into an existing web app: the
// app's own ServeMux keeps its routes, the MCP endpoint lives under
// /api/mcp, and the app's own middleware (here: a tenant taken from a
// header) runs in front of it. The same middleware runs on the stdio
// transport (-stdio), where the tenant comes from the MOUNT_TENANT
// variable through a synthesized header.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/stdio"
)

type tenantKey struct{}

// Tenant is the app's own middleware: it reads X-Tenant into the context.
func Tenant(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t := r.Header.Get("X-Tenant")
		if t == "" {
			t = "public"
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, t)))
	})
}

// NewServer is the MCP server: one tool that reads the tenant.
func NewServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "mount", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "tenant", Description: "Return the tenant of the request"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			t, _ := ctx.Value(tenantKey{}).(string)
			return "tenant: " + t, nil
		})
	return srv
}

// NewApp is the existing web app with the MCP endpoint mounted in it.
func NewApp(h *mcphttp.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "the app's home page")
	})
	mux.HandleFunc("GET /api/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		mcphttp.WriteJSON(w, http.StatusOK, map[string]string{"id": r.PathValue("id")})
	})
	// The three lines that mount MCP:
	chain := alice.New(middleware.Recover(nil), Tenant)
	mux.Handle("/api/mcp", chain.Then(h))
	return mux
}

func main() {
	useStdio := flag.Bool("stdio", false, "serve MCP over stdio instead of HTTP")
	addr := flag.String("addr", "127.0.0.1:8080", "HTTP address")
	flag.Parse()

	srv := NewServer()
	h := mcphttp.New(srv, nil)
	defer h.Close()
	if *useStdio {
		header := http.Header{}
		if t := os.Getenv("MOUNT_TENANT"); t != "" {
			header.Set("X-Tenant", t)
		}
		chain := alice.New(middleware.Recover(nil), Tenant)
		if err := stdio.Serve(context.Background(), chain.Then(h), os.Stdin, os.Stdout, &stdio.Options{Header: header}); err != nil {
			log.Fatal(err)
		}
		return
	}
	log.Printf("app on http://%s (MCP at /api/mcp)", *addr)
	log.Fatal((&http.Server{Addr: *addr, Handler: NewApp(h), ReadHeaderTimeout: 10e9}).ListenAndServe())
}
