package proxy

import (
	"container/list"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
)

// callerPool holds the upstream connections of the callers with a
// subject whose requests have no session: one per identity key, at most
// Options.MaxCallers, the least recently used evicted first. Guarded by
// Gateway.mu.
type callerPool struct {
	byKey map[string]*upstream
	lru   *list.List // of *upstream, the most recently used first
}

func (p *callerPool) init() {
	p.byKey = map[string]*upstream{}
	p.lru = list.New()
}

// drain empties the pool and returns what it held, their idle timers
// stopped, for Close.
func (p *callerPool) drain() []*upstream {
	out := make([]*upstream, 0, len(p.byKey))
	for _, u := range p.byKey {
		if u.idle != nil {
			u.idle.Stop()
			u.idle = nil
		}
		out = append(out, u)
	}
	p.init()
	return out
}

// callerUpstream returns the pooled connection of c's caller, who has a
// subject, putting a new one in the pool (the least recently used
// evicted when the pool is full) the first time. The connection is
// opened only with a request of that caller: its key is the caller's.
func (g *Gateway) callerUpstream(c *mcp.Context) (*upstream, func(), error) {
	key, ok := identity.Key(c.Session)
	if !ok {
		return nil, nil, &mcp.Error{Code: mcp.CodeInternalError, Message: "proxy: a caller without a key has no pooled upstream connection"}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil, nil, g.errClosed()
	}
	p := &g.pool
	u := p.byKey[key]
	if u == nil {
		u = g.newUpstream(callerConn, key)
		u.owner = c.Session
		p.byKey[key] = u
		u.elem = p.lru.PushFront(u)
		for p.lru.Len() > g.opts.MaxCallers {
			g.evict(p.lru.Back().Value.(*upstream))
		}
	} else {
		p.lru.MoveToFront(u.elem)
	}
	u.refs++
	u.idleGen++
	if u.idle != nil {
		u.idle.Stop()
		u.idle = nil
	}
	return u, func() { g.releaseCaller(u) }, nil
}

// evict takes u out of the pool and closes it, at once when no call uses
// it, else when its last call is done. Called with g.mu held.
func (g *Gateway) evict(u *upstream) {
	g.pool.lru.Remove(u.elem)
	delete(g.pool.byKey, u.key)
	u.elem, u.evicted = nil, true
	if u.idle != nil {
		u.idle.Stop()
		u.idle = nil
	}
	if u.refs == 0 {
		g.closeLater(u)
	} else {
		g.inUse[u] = true
	}
}

// releaseCaller ends a use of u, a caller's pooled connection: the last
// one closes it if it was evicted meanwhile, else starts its idle timer.
func (g *Gateway) releaseCaller(u *upstream) {
	g.mu.Lock()
	defer g.mu.Unlock()
	u.refs--
	switch {
	case u.refs > 0:
	case u.evicted:
		g.closeUnused(u)
	case !g.closed:
		gen := u.idleGen
		u.idle = time.AfterFunc(g.opts.CallerIdleTimeout, func() { g.expire(u, gen) })
	}
}

// expire evicts u, which no request used since its idle timer started
// (use gen).
func (g *Gateway) expire(u *upstream, gen uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed || u.evicted || u.refs != 0 || u.idleGen != gen {
		return
	}
	u.idle = nil
	g.evict(u)
}
