package redisstore_test

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/session/redisstore"
	"github.com/mcpchain/mcp/session/storetest"
)

func TestRedisRelayContract(t *testing.T) {
	t.Parallel()
	addr := redistest.Start(t)
	storetest.RunRelay(t, func(t *testing.T) (session.Relay, session.Relay) {
		a := redis.NewClient(&redis.Options{Addr: addr})
		b := redis.NewClient(&redis.Options{Addr: addr})
		t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
		return redisstore.NewRelay(a, ""), redisstore.NewRelay(b, "")
	})
}

// TestRedisClusterContracts runs the contract suites of the Redis session
// store, event store, task store and relay on a Redis Cluster of three
// masters (one cluster for all of them), every command through
// redistest.SlotCheck: each transaction, WATCH and command keeps its keys
// in one slot, and the suites do run transactions, WATCHes and scripts. The relay
// runs on cluster clients and, publishing through one node with the
// subscriber on another, on plain clients of two nodes: the cluster
// carries a PUBLISH to every node.
func TestRedisClusterContracts(t *testing.T) {
	t.Parallel()
	addrs := redistest.StartCluster(t)
	c, check := redistest.NewClusterClient(t, addrs)
	t.Run("suites", func(t *testing.T) {
		t.Run("Store", func(t *testing.T) {
			t.Parallel()
			n := 0
			storetest.Run(t, func(*testing.T) session.Store {
				n++
				return redisstore.New(c, &redisstore.Options{Prefix: "cs" + string(rune('a'+n)) + ":"})
			}, 100*time.Millisecond)
		})
		t.Run("CachedStore", func(t *testing.T) {
			t.Parallel()
			n := 0
			storetest.Run(t, func(t *testing.T) session.Store {
				n++
				return newCached(t, c, &redisstore.Options{Prefix: "ck" + string(rune('a'+n)) + ":"})
			}, 100*time.Millisecond)
		})
		t.Run("Events", func(t *testing.T) {
			t.Parallel()
			n := 0
			storetest.RunEvents(t, func(*testing.T) session.EventStore {
				n++
				return redisstore.NewEventStore(c, "cev"+string(rune('a'+n))+":", time.Minute)
			})
		})
		t.Run("Tasks", func(t *testing.T) {
			t.Parallel()
			n := 0
			storetest.RunTasks(t, func(*testing.T) session.TaskStore {
				n++
				return redisstore.New(c, &redisstore.Options{Prefix: "ct" + string(rune('a'+n)) + ":"})
			}, 100*time.Millisecond)
		})
		t.Run("Relay", func(t *testing.T) {
			t.Parallel()
			storetest.RunRelay(t, func(t *testing.T) (session.Relay, session.Relay) {
				a, _ := redistest.NewClusterClient(t, addrs)
				b, _ := redistest.NewClusterClient(t, addrs)
				return redisstore.NewRelay(a, ""), redisstore.NewRelay(b, "")
			})
		})
		t.Run("RelayAcrossNodes", func(t *testing.T) {
			t.Parallel()
			storetest.RunRelay(t, func(t *testing.T) (session.Relay, session.Relay) {
				a := redis.NewClient(&redis.Options{Addr: addrs[0]})
				b := redis.NewClient(&redis.Options{Addr: addrs[1]})
				t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
				return redisstore.NewRelay(a, ""), redisstore.NewRelay(b, "")
			})
		})
	})
	// The suites' multi-key paths ran, and were checked: Update and
	// UpdateTask (WATCH, then MULTI … EXEC), Append (MULTI: XADD, EXPIRE).
	t.Logf("slot-checked: %d WATCH, %d transactions", check.Checked(redistest.KindWatch), check.Checked(redistest.KindTransaction))
	assert.Positive(t, check.Checked(redistest.KindWatch), "WATCHes checked")
	assert.Positive(t, check.Checked(redistest.KindTransaction), "transactions checked")
	assert.Positive(t, check.Checked(redistest.KindScript), "the cache's compare-and-set and delete scripts checked")
}
