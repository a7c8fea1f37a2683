// Command bearer is an existing web app with an MCP server mounted under
// /mcp, both behind the app's own bearer token. The token check is the
// server's Authenticate hook, which the MCP handler runs on every request
// however it is mounted; the app's own route gets the same check from
// middleware.CheckCredentials.
//
//	APP_TOKEN=s3cret go run ./examples/bearer   # MCP at http://127.0.0.1:8000/mcp
package main

import (
	"context"
	"crypto/subtle"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware"
)

// user is the caller as the token check finds it: the auth data tools
// read as c.Session. Its Subject binds MCP sessions to the user, on every
// replica.
type user struct{ Name string }

// Subject implements mcp.Subject.
func (u *user) Subject() string { return u.Name }

// newApp returns the app's mux and the MCP handler in it; both admit
// requests that carry token as "Authorization: Bearer <token>".
func newApp(token string) (*http.ServeMux, *mcphttp.Handler) {
	checkToken := func(r *http.Request) (any, error) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, mcp.ErrUnauthorized // 401 with WWW-Authenticate: Bearer
		}
		return &user{Name: "ada"}, nil
	}
	srv := mcp.NewServer(mcp.Options{Name: "bearer", Version: "1.0.0", Authenticate: checkToken})
	mcp.AddTool(srv, mcp.Tool{Name: "whoami", Description: "Say who is calling"},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			return "You are " + c.Session.(*user).Name, nil
		})
	h := mcphttp.New(srv, nil)

	mux := http.NewServeMux()
	mux.Handle("GET /api/hello", middleware.CheckCredentials(checkToken, nil)(http.HandlerFunc(
		func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "hello from the app") })))
	mux.Handle("/mcp", h)
	return mux, h
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "address to listen on")
	flag.Parse()
	token := os.Getenv("APP_TOKEN")
	if token == "" {
		log.Fatal("set APP_TOKEN to the bearer token clients must send")
	}
	mux, _ := newApp(token)
	log.Printf("app on http://%s, MCP at /mcp", *addr)
	log.Fatal((&http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}).ListenAndServe())
}
