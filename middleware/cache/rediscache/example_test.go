package rediscache_test

import (
	"context"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/middleware/cache"
	"github.com/mcpchain/mcp/middleware/cache/rediscache"
)

// Every replica that shares the Redis serves a subject's answers,
// whichever replica computed them.
func ExampleNew() {
	rc := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	defer rc.Close()
	srv := mcp.NewServer(mcp.Options{Name: "rates", Version: "1.0.0"})
	// … tools with ReadOnlyHint, and Options.Authenticate …
	cached := cache.New(srv, cache.Options{TTL: 10 * time.Minute, Store: rediscache.New(rc, "rates:cache:")})
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Port: 8080,
		Middleware: []func(http.Handler) http.Handler{cached},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := inst.Wait(); err != nil {
		log.Fatal(err)
	}
}
