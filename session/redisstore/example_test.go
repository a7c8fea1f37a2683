package redisstore_test

import (
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/session/redisstore"
)

// Every replica behind the load balancer uses the same Redis for session
// records and tasks, resumable streams, and the answers to requests the
// server sent: any replica serves any session.
func ExampleNew() {
	rdb := redis.NewClient(&redis.Options{Addr: "redis:6379"})
	defer rdb.Close()

	srv := mcp.NewServer(mcp.Options{Name: "replicated", Version: "1.0.0"})
	h := mcphttp.New(srv, &mcphttp.Options{
		Sessions:  redisstore.New(rdb, nil),
		Resumable: true,
		Events:    redisstore.NewEventStore(rdb, "", 10*time.Minute),
		Relay:     redisstore.NewRelay(rdb, ""),
	})
	http.Handle("/mcp", h)
}
