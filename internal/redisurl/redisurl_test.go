package redisurl_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
	"github.com/mcpchain/mcp/internal/redisurl"
)

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		cluster []string // the seed addresses, for a cluster
		single  string   // the address, for one server
		db      int
		err     string
	}{
		{in: "redis://127.0.0.1:6379/0", single: "127.0.0.1:6379"},
		{in: "redis://:pw@10.0.0.1:7000/3", single: "10.0.0.1:7000", db: 3},
		{in: "rediss://cache.example:6380", single: "cache.example:6380"},
		{in: "redis://h1:7000?addr=h2:7001&addr=h3:7002", cluster: []string{"h1:7000", "h2:7001", "h3:7002"}},
		{in: "h1:7000,h2:7001,h3:7002", cluster: []string{"h1:7000", "h2:7001", "h3:7002"}},
		{in: " h1:7000, h2:7001 ,", cluster: []string{"h1:7000", "h2:7001"}},
		{in: "", err: "empty"},
		{in: "h1:7000,", err: "one address"},
		{in: "h1,h2", err: "missing port"},
		{in: "redis://h1:1,redis://h2:2", err: "addr="},
		{in: "http://h1:1", err: "neither"},
		{in: "h1:7000", err: "neither"},
		{in: "redis://h1:1?addr=h2:2&bogus=1", err: "bogus"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := redisurl.New(tt.in)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			defer c.Close()
			switch c := c.(type) {
			case *redis.ClusterClient:
				require.NotNil(t, tt.cluster, "a cluster client for a single server")
				assert.Equal(t, tt.cluster, c.Options().Addrs)
			case *redis.Client:
				require.Nil(t, tt.cluster, "a single-server client for a cluster")
				assert.Equal(t, tt.single, c.Options().Addr)
				assert.Equal(t, tt.db, c.Options().DB)
			default:
				t.Fatalf("client of type %T", c)
			}
		})
	}
}

// TestOpen: each form reaches a real server or cluster, and a cluster
// client spreads keys over the nodes; an address nobody listens on is an
// error.
func TestOpen(t *testing.T) {
	t.Parallel()
	single := redistest.Start(t)
	addrs := redistest.StartCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, s := range []string{
		"redis://" + single + "/0",
		strings.Join(addrs, ","),
		"redis://" + addrs[0] + "?addr=" + addrs[1],
	} {
		t.Run(s, func(t *testing.T) {
			c, err := redisurl.Open(ctx, s)
			require.NoError(t, err)
			defer c.Close()
			for i := range 10 {
				require.NoError(t, c.Set(ctx, "k"+strconv.Itoa(i), i, time.Minute).Err())
			}
			v, err := c.Get(ctx, "k7").Int()
			require.NoError(t, err)
			assert.Equal(t, 7, v)
		})
	}
	_, err := redisurl.Open(ctx, "redis://127.0.0.1:1/0")
	assert.ErrorContains(t, err, "no answer")
	_, err = redisurl.Open(ctx, "127.0.0.1:1,127.0.0.1:2")
	assert.ErrorContains(t, err, "no answer")
}

// TestNewBoundsTimeouts: a client made from a URL that sets no timeouts
// gives up on a hung Redis within about 3 s (1 s timeouts, one retry),
// where go-redis's defaults took 10 s; what a URL sets is kept.
func TestNewBoundsTimeouts(t *testing.T) {
	t.Parallel()
	type bounds struct {
		dial, read, write, pool time.Duration
		retries                 int
	}
	short := bounds{time.Second, time.Second, time.Second, time.Second, 1}
	for _, tt := range []struct {
		in   string
		want bounds
	}{
		{"redis://127.0.0.1:6379/0", short},
		{"redis://h1:7000?addr=h2:7001", short},
		{"h1:7000,h2:7001", short},
		{"redis://127.0.0.1:6379/0?dial_timeout=3s&read_timeout=4s&write_timeout=5s&pool_timeout=6s&max_retries=2", bounds{3 * time.Second, 4 * time.Second, 5 * time.Second, 6 * time.Second, 2}},
	} {
		t.Run(tt.in, func(t *testing.T) {
			c, err := redisurl.New(tt.in)
			require.NoError(t, err)
			defer c.Close()
			var got bounds
			switch c := c.(type) {
			case *redis.ClusterClient:
				o := c.Options()
				got = bounds{o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout, o.MaxRetries}
			case *redis.Client:
				o := c.Options()
				got = bounds{o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolTimeout, o.MaxRetries}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestClusterClientFollowsFailover: a cluster of three masters with a
// replica each; the master of a key's slot is killed. Once its replica
// has taken over, the client reads the key within 2 s (the replica's
// copy), where go-redis alone would go on dialing the dead master until
// its next periodic reload, a minute later.
func TestClusterClientFollowsFailover(t *testing.T) {
	t.Parallel()
	cl, err := redistest.NewClusterWith(redistest.ClusterOptions{Replicas: 1, NodeTimeout: time.Second})
	require.NoError(t, err)
	t.Cleanup(cl.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := redisurl.Open(ctx, strings.Join(cl.Addrs, ","))
	require.NoError(t, err)
	defer c.Close()
	cc := c.(*redis.ClusterClient)
	require.NoError(t, c.Set(ctx, "failover-key", "kept", 0).Err())
	require.NoError(t, cl.WaitReplicated(ctx))
	node, err := cc.MasterForKey(ctx, "failover-key")
	require.NoError(t, err)
	victim := slices.Index(cl.Addrs, node.Options().Addr)
	require.GreaterOrEqual(t, victim, 0, "the key's master %s is a node of the cluster", node.Options().Addr)

	cl.Kill(victim)
	require.Error(t, c.Get(ctx, "failover-key").Err(), "the key's master is dead")
	require.NoError(t, cl.WaitOK(ctx), "the replica took over")
	healed := time.Now()
	require.Eventually(t, func() bool {
		v, err := c.Get(ctx, "failover-key").Result()
		return err == nil && v == "kept"
	}, 2*time.Second, 20*time.Millisecond, "the client reads the key from the promoted replica")
	t.Logf("read from the promoted replica %v after the cluster healed", time.Since(healed).Round(time.Millisecond))
}
