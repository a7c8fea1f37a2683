package session

import (
	"cmp"
	"context"
	"slices"
)

// TaskLister is a [TaskStore] that lists the tasks of one identity: what
// tasks/list of revision 2025-11-25 answers, and what the per-client limit
// on live tasks counts. [MemoryStore] and the Redis store of package
// session/redisstore implement it; a TaskStore without it serves tasks but
// not tasks/list.
type TaskLister interface {
	TaskStore
	// ListTasks returns the live (unexpired) tasks whose Identity is
	// identity, oldest first. The empty identity (an anonymous caller
	// without a session, whose tasks only their IDs guard) lists nothing.
	ListTasks(ctx context.Context, identity string) ([]*Task, error)
}

// ListTasks implements [TaskLister].
func (m *MemoryStore) ListTasks(_ context.Context, identity string) ([]*Task, error) {
	if identity == "" {
		return nil, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Task
	for id, e := range m.tasks {
		if e.t.Identity != identity {
			continue
		}
		if _, ok := m.liveTaskLocked(id); ok {
			out = append(out, e.t.Clone())
		}
	}
	SortTasks(out)
	return out, nil
}

// SortTasks orders tasks oldest first (by Created, then ID), the order of
// [TaskLister.ListTasks].
func SortTasks(ts []*Task) {
	slices.SortFunc(ts, func(a, b *Task) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

var _ TaskLister = (*MemoryStore)(nil)
