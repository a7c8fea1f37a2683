package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp/session"
)

func (s *Store) taskKey(id string) string { return s.prefix + "task:{" + id + "}" }

func decodeTask(b []byte) (*session.Task, error) {
	var t session.Task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("redisstore: a stored task is not valid: %w", err)
	}
	return &t, nil
}

// CreateTask implements session.TaskStore: one string key holding the task's
// JSON, expiring TTL after the task was created.
func (s *Store) CreateTask(ctx context.Context, t *session.Task) error {
	if err := checkTask(t); err != nil {
		return err
	}
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("redisstore: encoding the task: %w", err)
	}
	args := redis.SetArgs{Mode: "NX"}
	if exp := taskExpiry(t); !exp.IsZero() {
		args.ExpireAt = exp
	}
	err = s.c.SetArgs(ctx, s.taskKey(t.ID), b, args).Err()
	if errors.Is(err, redis.Nil) {
		return session.ErrExists
	}
	if err != nil {
		return fmt.Errorf("redisstore: redis SET: %w", err)
	}
	// The index of tasks/list (tasklist.go). A failure here leaves the
	// task readable by ID, only unlisted: it is reported all the same.
	// Tasks of the empty identity (anonymous callers without a session)
	// are never listed: no index holds every such caller's tasks.
	if t.Identity == "" {
		return nil
	}
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	if err := indexTask.Run(ctx, s.c, []string{s.tasksOfKey(t.Identity)}, expiryScore(t), t.ID, now).Err(); err != nil {
		return fmt.Errorf("redisstore: indexing the task: %w", err)
	}
	return nil
}

// GetTask implements session.TaskStore.
func (s *Store) GetTask(ctx context.Context, id string) (*session.Task, error) {
	b, err := s.c.Get(ctx, s.taskKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, session.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: redis GET: %w", err)
	}
	return decodeTask(b)
}

// UpdateTask implements session.TaskStore: a WATCH/MULTI transaction that keeps
// the key's expiry (SET KEEPTTL).
func (s *Store) UpdateTask(ctx context.Context, id string, fn func(*session.Task) error) (*session.Task, error) {
	return watchUpdate(ctx, s, s.taskKey(id), decodeTask, func(t *session.Task) error {
		if err := fn(t); err != nil {
			return err
		}
		t.ID = id
		return nil
	}, func(p redis.Pipeliner, key string, b []byte) {
		p.SetArgs(ctx, key, b, redis.SetArgs{KeepTTL: true})
	}, "task", id)
}

// taskExpiry is when t expires: TTL after it was created; zero for never.
func taskExpiry(t *session.Task) time.Time {
	if t.TTL <= 0 {
		return time.Time{}
	}
	return t.Created.Add(t.TTL)
}

func checkTask(t *session.Task) error {
	if t == nil || !session.ValidID(t.ID) {
		return errors.New("redisstore: CreateTask needs a task with a valid ID")
	}
	return nil
}

var (
	_ session.Store      = (*Store)(nil)
	_ session.TaskStore  = (*Store)(nil)
	_ session.EventStore = (*EventStore)(nil)
	_ session.Relay      = (*Relay)(nil)
)
