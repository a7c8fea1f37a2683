package mcphttp

import (
	"context"
	"net"
)

// SetTaskPrePeer replaces the request's peer of a deferred task's first
// phase (the MRTR peer of revision 2026-07-28) with what wrap returns.
func SetTaskPrePeer(h *Handler, wrap func(mcpPeer) mcpPeer) { h.tasks.prePeer = wrap }

// StartHosts is startHosts: the names Start adds to Options.Allow.Hosts.
var StartHosts = startHosts

// ETagMatch is etagMatch: whether If-None-Match values name an entity tag.
var ETagMatch = etagMatch

// AcceptedUnread is how many connections the instance's server has
// accepted whose first request has not reached the handler yet.
func AcceptedUnread(i *Instance) int {
	i.fresh.mu.Lock()
	defer i.fresh.mu.Unlock()
	return i.fresh.n
}

// NewDrainListener is the listener Start serves on, over ln.
func NewDrainListener(ln net.Listener) net.Listener { return &drainListener{Listener: ln} }

// WaitHanded is the drain listener's waitHanded.
func WaitHanded(ctx context.Context, l net.Listener) { l.(*drainListener).waitHanded(ctx) }
