package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp/session"
)

// tasksOfKey is the index of one identity's tasks: a sorted set of task
// IDs scored by their expiry (Unix milliseconds, +inf for none), which
// expires with its last task. The identity is hashed: it may be long.
func (s *Store) tasksOfKey(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return s.prefix + "tasks-of:{" + hex.EncodeToString(sum[:16]) + "}"
}

// indexTask adds a task to its identity's index, drops the index's expired
// members, and makes the index expire with its last task (never, while
// one has no expiry).
var indexTask = redis.NewScript(`
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] == nil or last[2] == 'inf' then
  redis.call('PERSIST', KEYS[1])
else
  redis.call('PEXPIREAT', KEYS[1], math.ceil(tonumber(last[2])))
end
return 1
`)

func expiryScore(t *session.Task) string {
	exp := taskExpiry(t)
	if exp.IsZero() {
		return "+inf"
	}
	return strconv.FormatInt(exp.UnixMilli(), 10)
}

// ListTasks implements session.TaskLister: the identity's index, then
// each task (one pipeline); IDs whose task is gone leave the index. The
// empty identity has no index (CreateTask) and lists nothing.
func (s *Store) ListTasks(ctx context.Context, identity string) ([]*session.Task, error) {
	if identity == "" {
		return nil, nil
	}
	key := s.tasksOfKey(identity)
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	ids, err := s.c.ZRangeByScore(ctx, key, &redis.ZRangeBy{Min: "(" + now, Max: "+inf"}).Result()
	if err != nil {
		return nil, fmt.Errorf("redisstore: redis ZRANGEBYSCORE: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	cmds := make([]*redis.StringCmd, len(ids))
	_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.Get(ctx, s.taskKey(id))
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, fmt.Errorf("redisstore: redis GET: %w", err)
	}
	var out []*session.Task
	var gone []any
	for i, c := range cmds {
		b, err := c.Bytes()
		if errors.Is(err, redis.Nil) {
			gone = append(gone, ids[i])
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("redisstore: redis GET: %w", err)
		}
		t, err := decodeTask(b)
		if err != nil {
			return nil, err
		}
		if t.Identity == identity {
			out = append(out, t)
		}
	}
	if len(gone) > 0 {
		_ = s.c.ZRem(ctx, key, gone...).Err() // best effort: the next list tries again
	}
	session.SortTasks(out)
	return out, nil
}

var _ session.TaskLister = (*Store)(nil)
