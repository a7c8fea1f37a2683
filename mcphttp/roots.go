package mcphttp

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/mcpchain/mcp"
)

// errRootsDisabled is what asking for roots returns when the server's
// Options.Roots.Disabled is set.
var errRootsDisabled = fmt.Errorf("%w: roots are disabled by the server (mcp.Options.Roots.Disabled), so it does not ask the client for them", mcp.ErrCapability)

// cachedRoots returns the roots the client last reported, fetching them
// through peer when unknown.
func (c *sessionState) cachedRoots(ctx context.Context, peer mcpPeer) ([]mcp.Root, error) {
	c.mu.Lock()
	if c.rootsOK {
		r := c.roots
		c.mu.Unlock()
		return r, nil
	}
	c.mu.Unlock()
	roots, err := c.h.ops.ListRoots(ctx, peer)
	if err != nil {
		return nil, err
	}
	c.setRoots(roots)
	return roots, nil
}

// rootsDisabled reports whether the server's Options.Roots.Disabled is set.
func (h *Handler) rootsDisabled() bool {
	ro := h.ops.Options().Roots
	return ro != nil && ro.Disabled
}

func (c *sessionState) setRoots(r []mcp.Root) {
	c.mu.Lock()
	c.roots, c.rootsOK = r, true
	c.mu.Unlock()
}

func (c *sessionState) invalidateRoots() {
	c.mu.Lock()
	c.roots, c.rootsOK = nil, false
	c.mu.Unlock()
}

// fetchRoots asks a client that declared roots for them, on the GET
// stream, and caches the answer; changed says the client reported a
// change, which the OnRootsChanged hook hears of once the answer is in.
// It reports whether it asked (not when the session is stateless, the
// client declared no roots, or the server's roots are disabled).
func (h *Handler) fetchRoots(c *sessionState, changed bool) bool {
	if c.ephemeral || c.sess.Capabilities().Roots == nil || h.rootsDisabled() {
		return false
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		go func() {
			select {
			case <-c.doneCh():
				cancel()
			case <-h.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		roots, err := h.ops.ListRoots(ctx, streamPeer{c})
		if err != nil {
			h.log.Debug("mcp: roots/list failed", "session", c.sess.ID, "error", err)
		} else {
			c.setRoots(roots)
		}
		if changed {
			h.rootsChanged(c, roots)
		}
	}()
	return true
}

// rootsChanged tells the OnRootsChanged hook.
func (h *Handler) rootsChanged(c *sessionState, roots []mcp.Root) {
	if h.hooks.OnRootsChanged != nil {
		defer h.recoverHook("OnRootsChanged", c.sess.ID)
		h.hooks.OnRootsChanged(c.info(), slices.Clone(roots))
	}
}
