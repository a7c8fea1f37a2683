package codemode

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"

	"go.starlark.net/starlark"

	"github.com/mcpchain/mcp/internal/identity"
)

// The bounds of the compiled scripts a Runner keeps: how many, and the
// source of each (a compiled script holds about three times its source:
// 200 KB for one of 64 KiB), so that they hold at most about 1.6 MB.
const (
	programCacheSize     = 64
	maxCachedScriptBytes = 8 << 10
)

// programCache keeps the compiled form of the scripts run most recently,
// by the SHA-256 of their caller's partition and their source: a model sends the same short script
// again (a retry, the same question for another input written as a
// constant), and parsing, guarding and compiling it is about a third of
// the sandbox's cost for a script of one call. A starlark.Program holds
// the script's code and constants and no state of a run (Init makes each
// run's globals and values), so runs share it, concurrently too. Only
// scripts that compiled are kept, and only those of at most
// maxCachedScriptBytes (a model's are a few hundred bytes); an error is
// found again.
type programCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *cachedProgram, the most recently used first
	byKey map[[sha256.Size]byte]*list.Element
}

type cachedProgram struct {
	key  [sha256.Size]byte
	prog *starlark.Program
}

func newProgramCache(max int) *programCache {
	return &programCache{max: max, order: list.New(), byKey: make(map[[sha256.Size]byte]*list.Element, max)}
}

// get returns the program compiled from the source whose hash is key.
func (c *programCache) get(key [sha256.Size]byte) (*starlark.Program, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cachedProgram).prog, true
}

// put keeps prog under key, dropping the least recently used program
// when the cache is full.
func (c *programCache) put(key [sha256.Size]byte, prog *starlark.Program) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok { // compiled twice at once
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&cachedProgram{key: key, prog: prog})
	if c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*cachedProgram).key)
	}
}

// len is the number of programs kept.
func (c *programCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// partition is whose compiled scripts a run may reuse: the caller's own
// (by its identity key; anonymous callers, who cannot be told apart,
// share one), so that the time a script takes tells no caller what
// another ran. A caller without a key that is not anonymous (auth data
// without a subject) keeps nothing.
type partition struct {
	key       string
	cacheable bool
}

type partitionKey struct{}

// partitionOf is the partition of the caller with auth data auth.
func partitionOf(auth any) partition {
	if k, ok := identity.Key(auth); ok {
		return partition{key: k, cacheable: true}
	}
	return partition{cacheable: identity.Of(auth) == identity.Anonymous}
}

// programKey is the key of src's compiled form in part.
func programKey(part partition, src string) [sha256.Size]byte {
	return sha256.Sum256([]byte(part.key + "\x00" + src))
}

// partitionFrom is the partition runTool put in ctx; a run without one
// (the package's own tests) is anonymous.
func partitionFrom(ctx context.Context) partition {
	if p, ok := ctx.Value(partitionKey{}).(partition); ok {
		return p
	}
	return partition{cacheable: true}
}
