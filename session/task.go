package session

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"time"
)

// TaskStatus is the status of a task (the tasks extension of revision
// 2026-07-28, io.modelcontextprotocol/tasks).
type TaskStatus string

// The statuses of a task. Completed, Failed and Cancelled are terminal:
// a task in one of them never changes again.
const (
	TaskWorking       TaskStatus = "working"
	TaskInputRequired TaskStatus = "input_required"
	TaskCompleted     TaskStatus = "completed"
	TaskFailed        TaskStatus = "failed"
	TaskCancelled     TaskStatus = "cancelled"
)

// Terminal reports whether s is a final status.
func (s TaskStatus) Terminal() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskCancelled
}

// Task is the stored state of one task: plain data, serialisable as JSON,
// so that any replica sharing the store answers tasks/get, tasks/update
// and tasks/cancel for a task another replica runs. The replica running
// the tool writes its status, questions and outcome; the others write the
// answers (tasks/update) and the cancellation (tasks/cancel), and the
// runner reads them back.
type Task struct {
	// ID is the taskId: unguessable ([NewID]).
	ID string `json:"id"`
	// Status is the current status.
	Status TaskStatus `json:"status"`
	// StatusMessage optionally explains the status.
	StatusMessage string `json:"statusMessage,omitempty"`
	// Identity binds the task to the caller that created it: "sub:" and
	// its subject, "session:" and the ID of the session it was made in,
	// or "" (an anonymous caller without a session: the unguessable ID
	// alone guards the task). Only a caller with the same identity reads,
	// answers, cancels or lists it.
	Identity string `json:"identity,omitempty"`
	// Created and Updated are when the task was made and last changed.
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// Heartbeat is when the replica running the task last said it still
	// does: a task that is not terminal and whose heartbeat is old was
	// left behind by a replica that stopped.
	Heartbeat time.Time `json:"heartbeat,omitzero"`
	// TTL is how long the task stays readable after Created; <= 0 means
	// no expiry.
	TTL time.Duration `json:"ttl"`
	// PollInterval is the interval suggested to clients polling tasks/get.
	PollInterval time.Duration `json:"pollInterval,omitempty"`
	// InputRequests are the questions waiting for the client, by key: each
	// a JSON {"method": …, "params": …}. Keys are unique over the task's
	// lifetime.
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	// InputResponses are answers tasks/update delivered that the runner
	// has not taken yet, by the key of their question.
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
	// InputErrors are questions the client answered with a JSON-RPC error
	// {code, message, data?} (revision 2025-11-25 asks them as requests),
	// by key, until the runner takes them.
	InputErrors map[string]json.RawMessage `json:"inputErrors,omitempty"`
	// Result is the tool's result (a CallToolResult) once Completed.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error {code, message, data?} once Failed.
	Error json.RawMessage `json:"error,omitempty"`
}

// Clone returns a deep copy of t (the raw JSON values are shared: they
// are never modified in place).
func (t *Task) Clone() *Task {
	cp := *t
	cp.InputRequests = maps.Clone(t.InputRequests)
	cp.InputResponses = maps.Clone(t.InputResponses)
	cp.InputErrors = maps.Clone(t.InputErrors)
	cp.Result = slices.Clone(t.Result)
	cp.Error = slices.Clone(t.Error)
	return &cp
}

// TaskStore keeps tasks. A task expires TTL after it was created, whatever
// happens to it meanwhile. [MemoryStore] and the Redis store of package
// session/redisstore implement it next to [Store], so tasks live where
// sessions do and survive a change of replica. Implementations must be safe for concurrent use by many
// processes when they are shared.
type TaskStore interface {
	// CreateTask stores a new task; [ErrExists] if its ID is in use.
	CreateTask(ctx context.Context, t *Task) error
	// GetTask returns the task, or [ErrNotFound].
	GetTask(ctx context.Context, id string) (*Task, error)
	// UpdateTask applies fn to the current task and stores the result
	// atomically (fn may run more than once when writers race), keeping
	// its expiry; it returns what was stored. [ErrNotFound] if there is no
	// such task; an error from fn is returned and nothing is written.
	UpdateTask(ctx context.Context, id string, fn func(*Task) error) (*Task, error)
}

func taskExpiry(t *Task) time.Time {
	if t.TTL <= 0 {
		return time.Time{}
	}
	return t.Created.Add(t.TTL)
}

func checkTask(t *Task) error {
	if t == nil || !ValidID(t.ID) {
		return errors.New("session: CreateTask needs a task with a valid ID")
	}
	return nil
}

// CreateTask implements [TaskStore].
func (m *MemoryStore) CreateTask(_ context.Context, t *Task) error {
	if err := checkTask(t); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepTasksLocked()
	if _, ok := m.liveTaskLocked(t.ID); ok {
		return ErrExists
	}
	if m.tasks == nil {
		m.tasks = map[string]taskEntry{}
	}
	m.tasks[t.ID] = taskEntry{t: t.Clone(), expires: taskExpiry(t)}
	return nil
}

// GetTask implements [TaskStore].
func (m *MemoryStore) GetTask(_ context.Context, id string) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.liveTaskLocked(id)
	if !ok {
		return nil, ErrNotFound
	}
	return e.t.Clone(), nil
}

// UpdateTask implements [TaskStore].
func (m *MemoryStore) UpdateTask(_ context.Context, id string, fn func(*Task) error) (*Task, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.liveTaskLocked(id)
	if !ok {
		return nil, ErrNotFound
	}
	t := e.t.Clone()
	if err := fn(t); err != nil {
		return nil, err
	}
	t.ID = id
	e.t = t
	m.tasks[id] = e
	return t.Clone(), nil
}

type taskEntry struct {
	t       *Task
	expires time.Time // zero: never
}

func (m *MemoryStore) liveTaskLocked(id string) (taskEntry, bool) {
	e, ok := m.tasks[id]
	if !ok {
		return e, false
	}
	if !e.expires.IsZero() && !m.now().Before(e.expires) {
		delete(m.tasks, id)
		return e, false
	}
	return e, true
}

func (m *MemoryStore) sweepTasksLocked() {
	n := 0
	now := m.now()
	for id, e := range m.tasks {
		if n++; n > 16 {
			return
		}
		if !e.expires.IsZero() && !now.Before(e.expires) {
			delete(m.tasks, id)
		}
	}
}

var _ TaskStore = (*MemoryStore)(nil)
