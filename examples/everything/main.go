// Command everything is an MCP server that uses every feature of mcpchain.
// The e2e tests and the benchmarks run it.
//
//	everything                                   # stdio
//	everything -transport httpStream -port 8000  # Streamable HTTP at /mcp
//	everything -transport httpStream -stateless  # no sessions
//	everything -transport httpStream -legacy-sse # also HTTP+SSE (2024-11-05) at /sse
//	everything -transport httpStream -redis redis://127.0.0.1:6379/0 -resumable
//	                                             # sessions, resumable streams and
//	                                             # answers on Redis, shared by replicas
//	everything -transport httpStream -redis 10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000
//	                                             # the same on a Redis Cluster
//
// SIGINT or SIGTERM stops it gracefully (calls in flight finish; exit
// status 0, or 1 when the 10 s grace period ended first); a second signal
// ends it at once.
//
// Over HTTP a request may carry "Authorization: Bearer <name>"; the tool
// whoami then returns {"subject": "<name>"}. Without it the caller is
// anonymous.
//
// Besides the fixtures the tests call (tools.Register), it shows the
// features of the newest revisions, one tool each (tools.RegisterShowcase):
// book_table (a typed form), connect_account (URL-mode elicitation, with
// the page's route GET /connect/done), plan_trip (sampling with tools),
// report (a task), dice and dice_reroll (an MCP App), unlock (a tool for
// one session), add_ten (a transformed tool) and visits (state per
// signed-in caller, else per session); the server and echo carry an icon.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp/internal/redisurl"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/examples/everything/tools"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/telemetry"
	"github.com/mcpchain/mcp/session/redisstore"
)

// User is the auth data of a caller.
type User struct {
	Name string `json:"subject"`
}

// Subject implements mcp.Subject: sessions are bound to the user.
func (u *User) Subject() string { return u.Name }

// newServer builds the server; tests of this package use it too.
func newServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{
		Name:         "everything",
		Version:      "1.0.0",
		Icons:        []mcp.Icon{tools.Icon},
		WebsiteURL:   "https://github.com/mcpchain/mcp",
		Instructions: "A test server with every kind of tool, resource and prompt.",
		Authenticate: func(r *http.Request) (any, error) {
			h := r.Header.Get("Authorization")
			if h == "" {
				return nil, nil // anonymous
			}
			name, ok := strings.CutPrefix(h, "Bearer ")
			if !ok || name == "" {
				return nil, fmt.Errorf(`%w: the Authorization header must be "Bearer <name>"`, mcp.ErrUnauthorized)
			}
			return &User{Name: name}, nil
		},
	})

	tools.Register(srv, nil)
	tools.RegisterShowcase(srv)
	srv.AddRoute("GET", "/hello", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mcphttp.WriteJSON(w, http.StatusOK, map[string]bool{"ok": true})
	}), &mcp.RouteOptions{Public: true})
	return srv
}

// serverCard is the server card served at /mcp/server-card (httpStream):
// the registry name and the description the server cannot say itself.
// The server authenticates (anonymous callers too), so the card is behind
// that check, as the endpoint is.
func serverCard(publicURL string) *mcphttp.ServerCardOptions {
	return &mcphttp.ServerCardOptions{
		Name:        "io.github.mcpchain/everything",
		Description: "A test server with every kind of tool, resource and prompt.",
		URL:         publicURL,
		Repository:  "https://github.com/mcpchain/mcp",
	}
}

func main() {
	transport := flag.String("transport", "stdio", "stdio or httpStream")
	host := flag.String("host", "0.0.0.0", "host to listen on (httpStream)")
	port := flag.Int("port", 8000, "port to listen on (httpStream)")
	stateless := flag.Bool("stateless", false, "keep no sessions (httpStream)")
	jsonOnly := flag.Bool("json", false, "answer with application/json, never SSE (httpStream)")
	legacySSE := flag.Bool("legacy-sse", false, "also serve the deprecated HTTP+SSE transport at /sse and /messages (httpStream)")
	resumable := flag.Bool("resumable", false, "make request streams resumable with Last-Event-ID (on Redis with -redis) (httpStream)")
	withTelemetry := flag.Bool("telemetry", false, "trace and measure every request with package middleware/telemetry through the global OpenTelemetry provider; none is installed here, so this shows what the middleware costs when nothing is exported (examples/observability exports)")
	redisURL := flag.String("redis", "", "keep sessions on the Redis at this URL (redis://host:6379/0), or on a Redis Cluster (redis://host1:6379?addr=host2:6379&addr=host3:6379, or host1:6379,host2:6379,…), shared by every replica that uses it (httpStream)")
	redisCache := flag.Duration("redis-cache", redisstore.DefaultCacheMaxStale, "with -redis: serve a session's record from a copy in the process for at most this long, invalidated at once through Redis pub/sub when another replica changes it; 0 reads Redis on every request (httpStream)")
	publicURL := flag.String("public-url", "", "the endpoint's public URL, listed as the remote of the server card at /mcp/server-card (httpStream)")
	flag.Parse()

	hopts := &mcphttp.Options{Stateless: *stateless, JSONResponse: *jsonOnly, LegacySSE: *legacySSE, Resumable: *resumable,
		ServerCard: serverCard(*publicURL)}
	// Replicas behind one endpoint must share the key that seals the
	// requestState of 2026-07-28's multi round-trip requests, or a retry
	// that lands on another replica is refused. It comes from the
	// environment, not a flag, so it does not show in the process list.
	if k := os.Getenv("MCP_STATE_KEY"); k != "" {
		hopts.StateKey = []byte(k)
	}
	if *redisURL != "" {
		c, err := openRedis(*redisURL)
		if err != nil {
			fmt.Fprintln(os.Stderr, "everything:", err)
			os.Exit(1)
		}
		defer c.Close()
		// Sessions, resumable streams (with -resumable) and relayed
		// answers on Redis: any replica serves any session and resumes
		// any stream.
		var cache *redisstore.CacheOptions
		if *redisCache > 0 {
			cache = &redisstore.CacheOptions{MaxStale: *redisCache}
		}
		store := redisstore.New(c, &redisstore.Options{Cache: cache})
		defer store.Close()
		hopts.Sessions = store
		hopts.Events = redisstore.NewEventStore(c, "", 10*time.Minute)
		// Answers to sampling, elicitation, roots and pings reach the
		// replica that asked, wherever the client posts them.
		hopts.Relay = redisstore.NewRelay(c, "")
	}

	// The first SIGINT or SIGTERM ends ctx, and Start then shuts down
	// gracefully: the listener closes, calls in flight finish (for at most
	// StartOptions.ShutdownTimeout, 10 s), and Wait returns once they have.
	// The signals are released at that moment, so a second one ends the
	// process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)
	sopts := &mcphttp.StartOptions{TransportType: mcphttp.TransportType(*transport), Host: *host, Port: *port, Handler: hopts}
	if *withTelemetry {
		tel, err := telemetry.New(nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, "everything:", err)
			os.Exit(1)
		}
		sopts.Middleware = append(sopts.Middleware, tel.Middleware)
	}
	inst, err := mcphttp.Start(ctx, newServer(), sopts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "everything:", err)
		os.Exit(1)
	}
	if err := inst.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "everything:", err)
		os.Exit(1)
	}
}

// openRedis connects to the Redis server or cluster at url
// (internal/redisurl's forms) and checks that it answers.
func openRedis(url string) (redis.UniversalClient, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := redisurl.Open(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("-redis %q: %w", url, err)
	}
	return c, nil
}
