package redistest_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
)

// fakeT records the failures SlotCheck reports, so that a test can expect
// one.
type fakeT struct {
	testing.TB
	errs []string
}

func (f *fakeT) Error(args ...any)                 { f.errs = append(f.errs, "error") }
func (f *fakeT) Errorf(format string, args ...any) { f.errs = append(f.errs, format) }

// TestCluster: the cluster forms, spreads keys over its nodes, agrees with
// Slot, and SlotCheck catches what crosses slots while letting through
// what does not.
func TestCluster(t *testing.T) {
	t.Parallel()
	addrs := redistest.StartCluster(t)
	require.Len(t, addrs, redistest.ClusterSize)
	ctx := context.Background()

	t.Run("SlotAgreesWithTheServer", func(t *testing.T) {
		c := redis.NewClient(&redis.Options{Addr: addrs[0]})
		defer c.Close()
		for _, key := range []string{"", "a", "foo", "123456789", "mcp:sess:{abc}", "{user1000}.following",
			"foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", "{}x", "x{"} {
			want, err := c.ClusterKeySlot(ctx, key).Result()
			require.NoError(t, err)
			assert.Equal(t, int(want), redistest.Slot(key), "key %q", key)
		}
		assert.Equal(t, 12739, redistest.Slot("123456789")%16384, "CRC16/XMODEM check value 0x31C3")
	})

	t.Run("KeysOnEveryNode", func(t *testing.T) {
		c, _ := redistest.NewClusterClient(t, addrs)
		for i := range 30 {
			require.NoError(t, c.Set(ctx, "k"+strconv.Itoa(i), i, 0).Err())
		}
		var sizes []int64
		require.NoError(t, c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			return n.Ping(ctx).Err()
		}))
		for _, a := range addrs {
			n := redis.NewClient(&redis.Options{Addr: a})
			size, err := n.DBSize(ctx).Result()
			_ = n.Close()
			require.NoError(t, err)
			sizes = append(sizes, size)
		}
		for i, s := range sizes {
			assert.Positive(t, s, "node %s holds none of 30 keys (%v)", addrs[i], sizes)
		}
	})

	t.Run("SlotCheck", func(t *testing.T) {
		tests := []struct {
			name string
			op   func(c *redis.ClusterClient) error
			kind string // counted
			bad  bool   // crosses slots
		}{
			{"one key", func(c *redis.ClusterClient) error { return c.Set(ctx, "x", 1, 0).Err() }, "", false},
			{"DEL of one tag", func(c *redis.ClusterClient) error { return c.Del(ctx, "{t}a", "{t}b").Err() }, redistest.KindCommand, false},
			{"DEL across slots", func(c *redis.ClusterClient) error { return c.Del(ctx, "a", "b").Err() }, redistest.KindCommand, true},
			{"transaction of one tag", func(c *redis.ClusterClient) error {
				_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, "{t}a", 1, 0)
					p.Expire(ctx, "{t}a", 100)
					p.Set(ctx, "{t}b", 1, 0)
					return nil
				})
				return err
			}, redistest.KindTransaction, false},
			{"transaction across slots", func(c *redis.ClusterClient) error {
				_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, "a", 1, 0)
					p.Set(ctx, "b", 1, 0)
					return nil
				})
				return err
			}, redistest.KindTransaction, true},
			{"script", func(c *redis.ClusterClient) error {
				return c.Eval(ctx, "return redis.call('GET', KEYS[1])", []string{"{t}a"}).Err()
			}, redistest.KindScript, false},
			{"script across slots", func(c *redis.ClusterClient) error {
				return c.Eval(ctx, "return 1", []string{"a", "b"}).Err()
			}, redistest.KindScript, true},
			{"watch", func(c *redis.ClusterClient) error {
				return c.Watch(ctx, func(tx *redis.Tx) error {
					_, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
						p.Set(ctx, "{w}a", 2, 0)
						return nil
					})
					return err
				}, "{w}a")
			}, redistest.KindWatch, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				ft := &fakeT{TB: t}
				c, sc := redistest.NewClusterClient(ft, addrs)
				err := tt.op(c)
				if tt.bad {
					assert.Error(t, err)
					assert.NotEmpty(t, ft.errs, "the crossing is reported to the test")
				} else {
					assert.NoError(t, err)
					assert.Empty(t, ft.errs)
				}
				if tt.kind != "" {
					assert.Positive(t, sc.Checked(tt.kind), "counted as %s", tt.kind)
				}
			})
		}
	})
}
