package inproc

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync"
)

// Revision 2026-07-28 in process (stdio and embedded). The revision has no
// initialize and no sessions: every request names its version in
// params._meta["io.modelcontextprotocol/protocolVersion"], and over stdio
// there are no HTTP headers at all. A synthesized request for such a
// message therefore carries the MCP-Protocol-Version header taken from
// _meta (and no session of this client matters to it), and its context is
// marked with [Rev20260728] so that the engine knows the routing headers of
// Streamable HTTP (Mcp-Method, Mcp-Name, Mcp-Param-*) cannot be there.
//
// Without a session the engine cannot hear a notifications/cancelled for
// such a request (over HTTP, closing the response stream is the
// cancellation); the client does it: a notifications/cancelled whose
// requestId names one of its 2026 requests in flight cancels that
// request's context.

// metaProtocolVersion is the _meta key of a 2026-07-28 request's version.
const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

type rev20260728Key struct{}

// Rev20260728 reports whether ctx is that of a request this package
// synthesized for a 2026-07-28 message: its protocol version came from
// _meta, and the HTTP routing headers of the revision are not checked.
// Network clients cannot set it.
func Rev20260728(ctx context.Context) bool {
	v, _ := ctx.Value(rev20260728Key{}).(bool)
	return v
}

// metaVersion returns params._meta's protocolVersion, or "" when the
// params carry none (or not as a string). Params that do not contain the
// key's text are not decoded, so a 2025 message costs one scan.
func metaVersion(params json.RawMessage) string {
	if !bytes.Contains(params, []byte(metaProtocolVersion)) {
		return ""
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	var v string
	if raw, ok := p.Meta[metaProtocolVersion]; !ok || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// rev20260728Request marks r, the synthesized POST of a 2026-07-28 message of
// version v: MCP-Protocol-Version from _meta, no Mcp-Session-Id, and the
// [Rev20260728] context mark. It returns the marked request.
func rev20260728Request(r *http.Request, v string) *http.Request {
	r = r.WithContext(context.WithValue(r.Context(), rev20260728Key{}, true))
	r.Header.Set("MCP-Protocol-Version", v)
	r.Header.Del("Mcp-Session-Id")
	return r
}

// inflight are the 2026-07-28 requests being served, by JSON-RPC id, so
// that notifications/cancelled can cancel them.
type inflight struct {
	mu sync.Mutex
	m  map[string]context.CancelFunc
}

// track registers the request id and returns its context and the function
// that unregisters it (and releases the context).
func (f *inflight) track(ctx context.Context, id json.RawMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	key := string(id)
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]context.CancelFunc{}
	}
	f.m[key] = cancel
	f.mu.Unlock()
	return ctx, func() {
		f.mu.Lock()
		delete(f.m, key)
		f.mu.Unlock()
		cancel()
	}
}

// cancel cancels the request a notifications/cancelled names, and reports
// whether it named one of the tracked requests.
func (f *inflight) cancel(params json.RawMessage) bool {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return false
	}
	f.mu.Lock()
	c, ok := f.m[string(p.RequestID)]
	f.mu.Unlock()
	if ok {
		c()
	}
	return ok
}

// quietOnceCancelled wraps the emit of a tracked request: once its context
// is cancelled nothing more is sent for it, since a cancelled request
// SHOULD NOT be answered.
func quietOnceCancelled(ctx context.Context, emit func([]byte)) func([]byte) {
	return func(b []byte) {
		if ctx.Err() == nil {
			emit(b)
		}
	}
}
