package mcphttp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"
	"weak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/session"
)

// Registry changes travel between replicas on Options.Relay, so that a
// subscriptions/listen stream hears of a tool added, a resource updated or
// a caller's lists changed on any replica sharing the relay, not only on
// its own. Each replica publishes the changes of its own server on the
// relay's changesChannel and delivers what the others publish to its
// listen streams; it skips what it published itself (its streams heard of
// it when it happened). Delivery is the relay's: at most once, in the
// order one replica published (Redis pub/sub).

// changesChannel is the relay name every replica listens on for the
// changes of the others (redisstore.Relay: the channel "mcp:relay:changes"
// by default). The answers of the relay go to names that are numbers
// (replica tags), so this one is apart from them.
const changesChannel = "changes"

// Bounds of a change read from the relay, which is outside input.
const (
	maxRemoteChange = 32 << 10 // the whole message
	maxOrigin       = 64
	maxCallerKey    = 8 << 10
)

// fanoutQueue bounds the changes waiting to be published; beyond it, a
// change is dropped (logged) rather than the registry call blocked.
const fanoutQueue = 256

// remoteChange is a change as it travels on the relay.
type remoteChange struct {
	// Origin is the ID of the server whose change it is (originOf).
	Origin string `json:"o"`
	// Kind is "tools", "prompts", "resources" (list changes) or
	// "updated" (a resource's contents).
	Kind string `json:"k"`
	// URI is the updated resource ("updated" only).
	URI string `json:"u,omitempty"`
	// Caller is the identity key of the one caller a list change is for;
	// empty: every caller.
	Caller string `json:"c,omitempty"`
}

// kindName and kindOf translate change kinds to and from the wire; a
// kind not here (logs, per-session notifications) never travels.
var (
	kindName = map[engine.ChangeKind]string{changeTools: "tools", changePrompts: "prompts", changeResources: "resources", changeResourceUpdated: "updated"}
	kindOf   = map[string]engine.ChangeKind{"tools": changeTools, "prompts": changePrompts, "resources": changeResources, "updated": changeResourceUpdated}
)

// encodeChange is the relay message of ch from origin; false for a change
// that does not travel: a log broadcast, a per-session one (its session's
// objects live in this process), a resource URI longer than any listen
// stream may subscribe to.
func encodeChange(origin string, ch change) ([]byte, bool) {
	name, ok := kindName[ch.Kind]
	if !ok || ch.SessionID != "" || len(ch.URI) > maxSubscriptionURI || len(ch.Caller) > maxCallerKey {
		return nil, false
	}
	b, err := json.Marshal(remoteChange{Origin: origin, Kind: name, URI: ch.URI, Caller: ch.Caller})
	return b, err == nil
}

// decodeChange reads a relay message: the change and its origin, or an
// error saying what is wrong with it. Members it does not know are
// ignored (a newer replica may add some); a case variant of a known one,
// a duplicate member, or a value out of bounds is refused.
func decodeChange(b []byte) (origin string, ch change, err error) {
	if len(b) > maxRemoteChange {
		return "", change{}, fmt.Errorf("the message is %d bytes, more than %d", len(b), maxRemoteChange)
	}
	if err := strictjson.Check(b, 8); err != nil {
		return "", change{}, err
	}
	var m remoteChange
	if err := strictjson.Unmarshal(b, &m); err != nil {
		return "", change{}, err
	}
	kind, ok := kindOf[m.Kind]
	switch {
	case m.Origin == "" || len(m.Origin) > maxOrigin:
		return "", change{}, fmt.Errorf("origin %s is empty or longer than %d bytes", strictjson.Quote(m.Origin), maxOrigin)
	case !ok:
		return "", change{}, fmt.Errorf("unknown kind %s", strictjson.Quote(m.Kind))
	case kind == changeResourceUpdated && (m.URI == "" || len(m.URI) > maxSubscriptionURI):
		return "", change{}, fmt.Errorf("a resource update's URI is empty or longer than %d bytes", maxSubscriptionURI)
	case kind != changeResourceUpdated && m.URI != "":
		return "", change{}, errors.New("a list change carries a URI")
	case kind == changeResourceUpdated && m.Caller != "":
		return "", change{}, errors.New("a resource update names a caller")
	case len(m.Caller) > maxCallerKey:
		return "", change{}, fmt.Errorf("the caller key is longer than %d bytes", maxCallerKey)
	}
	return m.Origin, change{Kind: kind, URI: m.URI, Caller: m.Caller}, nil
}

// origins holds the ID of each mcp.Server of this process that a handler
// relays changes for. It is the server's, not the handler's: every
// handler of a server heard of its change from the server itself, so
// none delivers it again when it comes back on the relay. An entry goes
// when its server is collected.
var origins sync.Map // weak.Pointer[mcp.Server] → string

// originOf returns srv's ID, drawing it on first use.
func originOf(srv *mcp.Server) string {
	wp := weak.Make(srv)
	if v, ok := origins.Load(wp); ok {
		return v.(string)
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	v, loaded := origins.LoadOrStore(wp, hex.EncodeToString(b[:]))
	if !loaded {
		runtime.AddCleanup(srv, func(wp weak.Pointer[mcp.Server]) { origins.Delete(wp) }, wp)
	}
	return v.(string)
}

// fanout publishes this replica's changes on the relay and delivers the
// other replicas' to the listen streams.
type fanout struct {
	origin string
	out    chan []byte
	stop   func() // ends the subscription
	// ctx ends (cancel) when the handler closes: the publishing goroutine
	// then stops, a Send under way included, and closes exited.
	ctx    context.Context
	cancel context.CancelFunc
	exited chan struct{}
}

// startFanout subscribes h to the changes of the other replicas on
// Options.Relay and starts the goroutine that publishes h's own. It
// leaves h.fanout nil (changes stay in this process, logged) when the
// subscription fails.
func (h *Handler) startFanout() {
	f := &fanout{origin: originOf(h.srv), out: make(chan []byte, fanoutQueue), exited: make(chan struct{})}
	stop, err := h.opts.Relay.Subscribe(context.Background(), changesChannel, func(b []byte) { h.onRemoteChange(f.origin, b) })
	if err != nil {
		h.log.Error("mcp: subscribing to the relay's changes failed; subscriptions/listen streams hear only of this replica's changes", "error", err)
		return
	}
	f.stop = stop
	f.ctx, f.cancel = context.WithCancel(context.Background())
	h.fanout = f
	go f.publish(h.opts.Relay, h.log, &h.warned.changeSend)
}

// publish sends the queued changes, in order, until close.
func (f *fanout) publish(relay session.Relay, log *slog.Logger, w *warnLimit) {
	defer close(f.exited)
	for {
		select {
		case b := <-f.out:
			ctx, cancel := context.WithTimeout(f.ctx, 2*time.Second)
			err := relay.Send(ctx, changesChannel, b)
			cancel()
			if err != nil && f.ctx.Err() == nil {
				w.warn(log, "mcp: publishing a change to the other replicas failed; their subscriptions/listen streams miss it", "error", err)
			}
		case <-f.ctx.Done():
			return
		}
	}
}

// close ends the subscription and the publishing goroutine, and returns
// once both have stopped; changes still queued are not sent.
func (f *fanout) close() {
	f.stop()
	f.cancel()
	<-f.exited
}

// relayChange queues ch for the other replicas, if it travels.
func (h *Handler) relayChange(ch change) {
	f := h.fanout
	if f == nil {
		return
	}
	b, ok := encodeChange(f.origin, ch)
	if !ok {
		return
	}
	select {
	case f.out <- b:
	default:
		h.warned.changeQueueFull.warn(h.log, "mcp: too many changes wait to be published to the other replicas; one is dropped", "queued", fanoutQueue)
	}
}

// onRemoteChange delivers a change another replica published to this
// handler's listen streams; one of its own server (origin) was delivered
// when it happened.
func (h *Handler) onRemoteChange(origin string, b []byte) {
	from, ch, err := decodeChange(b)
	if err != nil {
		h.warned.changeBad.warn(h.log, "mcp: a change relayed from another replica is not valid; dropped", "error", err)
		return
	}
	if from == origin {
		return
	}
	if ch.Caller != "" {
		// First, so that the caller's lists made after it hears of the
		// change read its rules again.
		h.ops.CallerChanged(ch.Caller)
	}
	h.publishRev20260728(ch)
}
