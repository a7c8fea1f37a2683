package cache

import (
	"container/list"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
)

// memStore is the default Store: in memory, bounded in entries and
// encoded bytes, least recently used out first. An expired answer is
// dropped when it is next asked for, or when it reaches the end of the
// list.
type memStore struct {
	maxEntries int
	maxBytes   int64
	now        func() time.Time

	mu    sync.Mutex
	ll    *list.List // of *memEntry, most recently used first
	byKey map[string]*list.Element
	bytes int64
}

type memEntry struct {
	key     string
	res     *mcp.ContentResult
	size    int64
	expires time.Time
}

func newMemStore(maxEntries int, maxBytes int64, now func() time.Time) *memStore {
	return &memStore{maxEntries: maxEntries, maxBytes: maxBytes, now: now, ll: list.New(), byKey: map[string]*list.Element{}}
}

// copyResult is a copy of r its receiver may modify without changing r:
// a new result, a new list of items (the items are values) and a new
// _meta; structuredContent and the bytes of images are shared, to be
// read only, as the engine does.
func copyResult(r *mcp.ContentResult) *mcp.ContentResult {
	c := *r
	c.Content = slices.Clone(r.Content)
	c.Meta = maps.Clone(r.Meta)
	return &c
}

func (m *memStore) Get(_ context.Context, key string) (*mcp.ContentResult, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	el, ok := m.byKey[key]
	if !ok {
		return nil, false, nil
	}
	e := el.Value.(*memEntry)
	if !m.now().Before(e.expires) {
		m.remove(el)
		return nil, false, nil
	}
	m.ll.MoveToFront(el)
	return copyResult(e.res), true, nil
}

func (m *memStore) Set(_ context.Context, key string, res *mcp.ContentResult, ttl time.Duration) error {
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	size := int64(len(b) + len(key))
	if size > m.maxBytes {
		return nil // larger than the whole store: not kept
	}
	e := &memEntry{key: key, res: copyResult(res), size: size, expires: m.now().Add(ttl)}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.byKey[key]; ok {
		m.remove(el)
	}
	m.byKey[key] = m.ll.PushFront(e)
	m.bytes += size
	for m.ll.Len() > m.maxEntries || m.bytes > m.maxBytes {
		m.remove(m.ll.Back())
	}
	return nil
}

func (m *memStore) Clear(context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ll.Init()
	m.byKey = map[string]*list.Element{}
	m.bytes = 0
	return nil
}

// remove drops el; m.mu is held.
func (m *memStore) remove(el *list.Element) {
	e := m.ll.Remove(el).(*memEntry)
	delete(m.byKey, e.key)
	m.bytes -= e.size
}

// len is the number of answers kept, for the tests.
func (m *memStore) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ll.Len()
}
