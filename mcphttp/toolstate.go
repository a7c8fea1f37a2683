package mcphttp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/session"
	"github.com/mcpchain/mcp/state"
)

// The tools' state (state.Set, state.Get): a request's peer is its
// engine.State. Three scopes (docs/server.md, "State"):
//
//   - the session's: the session's stored record (session.Record.State),
//     which follows the session to every replica and ends with it;
//   - a caller's own (mcp.Context.Caller), keyed by its identity key, and
//   - a handle's (state.NewHandle, ForHandle), keyed by its owner and
//     the handle: each a record of its own in the same store, under an ID
//     no session has (stateIDPrefix), so they live on Redis like sessions
//     and need no store of their own.
//
// A request that does not use them costs nothing for them.

// stateIDPrefix starts the store ID of every record of caller and handle
// state: a hash of what it belongs to, so that no subject or handle
// appears in a key. Session IDs never have a dot (session.NewID), and
// lookup refuses an Mcp-Session-Id with this prefix, so a client cannot
// reach such a record as a session.
const stateIDPrefix = "state."

// stateIdentity is the Identity of a state record: no caller's, so no
// replica adopts one as a session (sessionstate.Adoptable).
const stateIdentity = "state"

// The kinds of state record, in the hash of their IDs.
const (
	stateOfCaller  = 'c'
	stateOfHandle  = 'h'
	stateOfHandles = 'i' // an owner's live handles, for MaxStateHandles
	stateOfRules   = 'r' // a caller's own Disable and Enable rules
)

// stateRecordID is the store ID of the record of kind for owner (and
// handle).
func stateRecordID(kind byte, owner, handle string) string {
	h := sha256.New()
	h.Write([]byte{kind, 0})
	h.Write([]byte(owner))
	h.Write([]byte{0})
	h.Write([]byte(handle))
	var sum [sha256.Size]byte
	return stateIDPrefix + base64.RawURLEncoding.EncodeToString(h.Sum(sum[:0]))
}

// isStateID reports whether a session ID names a state record.
func isStateID(id string) bool { return strings.HasPrefix(id, stateIDPrefix) }

// A state handle is handlePrefix and the URL-safe base64 of 24 bytes: 16
// random ones, then when it expires (Unix seconds, big-endian), which is
// bound to it since the record's ID hashes the whole handle.
const (
	handlePrefix = "st_"
	handleRandom = 16
	handleBytes  = handleRandom + 8
	handleLen    = len(handlePrefix) + (handleBytes*8+5)/6
)

// mintHandle returns a new handle that expires at exp.
func mintHandle(exp time.Time) string {
	var b [handleBytes]byte
	_, _ = rand.Read(b[:handleRandom])
	binary.BigEndian.PutUint64(b[handleRandom:], uint64(exp.Unix()))
	return handlePrefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// parseHandle returns when the handle h expires; ok is false when h is
// not a handle's form.
func parseHandle(h string) (exp time.Time, ok bool) {
	if len(h) != handleLen || !strings.HasPrefix(h, handlePrefix) {
		return time.Time{}, false
	}
	var b [handleBytes]byte
	n, err := base64.RawURLEncoding.Decode(b[:], []byte(h[len(handlePrefix):]))
	if err != nil || n != handleBytes {
		return time.Time{}, false
	}
	secs := binary.BigEndian.Uint64(b[handleRandom:])
	if secs > 1<<40 { // far beyond any TTL: not a handle this package made
		return time.Time{}, false
	}
	return time.Unix(int64(secs), 0), true
}

// unknownHandle is the error of a handle that names nothing the caller may
// use. The same words for a handle never made and one of another caller,
// so that the answer tells a guesser nothing.
func unknownHandle(h string) error {
	return fmt.Errorf("%w: %s names no state of this caller (it was ended, or was never made for it); make a new one",
		state.ErrUnknownHandle, quoteHandle(h))
}

// quoteHandle quotes a handle for an error, cut when it is not a handle's
// length (it is the client's input).
func quoteHandle(h string) string {
	if len(h) > handleLen {
		h = h[:handleLen] + "…"
	}
	return fmt.Sprintf("%q", h)
}

// checkHandle checks the form and the expiry of h, and returns how long it
// has left.
func checkHandle(h string, now time.Time) (time.Duration, error) {
	if h == "" {
		return 0, fmt.Errorf("%w: no handle given; make one first", state.ErrUnknownHandle)
	}
	exp, ok := parseHandle(h)
	if !ok {
		return 0, fmt.Errorf("%w: %s is not a state handle this server made; pass back exactly what the tool that made it returned", state.ErrUnknownHandle, quoteHandle(h))
	}
	left := exp.Sub(now)
	if left <= 0 {
		return 0, fmt.Errorf("%w: %s expired at %s; make a new one", state.ErrUnknownHandle, quoteHandle(h), exp.UTC().Format(time.RFC3339))
	}
	return left, nil
}

// stateLimits are the handler's bounds of the tools' state.
func (h *Handler) stateLimits() (maxValue, maxTotal int) {
	return limit(h.opts.MaxStateValue, DefaultMaxStateValue), limit(h.opts.MaxSessionState, DefaultMaxSessionState)
}

// callerStateTTL is how long a caller's state lives after its last write.
func (h *Handler) callerStateTTL() time.Duration {
	switch v := h.opts.CallerStateTTL; {
	case v == 0:
		return defaultCallerStateTTL
	case v < 0:
		return 0
	default:
		return v
	}
}

// handleTTL is how long a new handle lives.
func (h *Handler) handleTTL() time.Duration {
	if h.opts.StateHandleTTL > 0 {
		return h.opts.StateHandleTTL
	}
	return defaultStateHandleTTL
}

// getState reads key of scope s (not a session's).
func (h *Handler) getState(ctx context.Context, s engine.StateScope, key string) (json.RawMessage, bool, error) {
	id := stateRecordID(stateOfCaller, s.Owner, "")
	if s.Handle != "" {
		if _, err := checkHandle(s.Handle, time.Now()); err != nil {
			return nil, false, err
		}
		id = stateRecordID(stateOfHandle, s.Owner, s.Handle)
	}
	rec, err := h.store.Get(ctx, id)
	switch {
	case errors.Is(err, session.ErrNotFound) && s.Handle != "":
		return nil, false, unknownHandle(s.Handle)
	case errors.Is(err, session.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, storeFailed(err)
	}
	v, ok := rec.State[key]
	return v, ok, nil
}

// setState sets (value nil: deletes) key of scope s (not a session's):
// one atomic update of its record, made on the first write of a caller's
// state; a handle's record exists from NewHandle to its expiry.
func (h *Handler) setState(ctx context.Context, s engine.StateScope, key string, value json.RawMessage) error {
	maxValue, maxTotal := h.stateLimits()
	if value != nil && maxValue > 0 && len(value) > maxValue {
		return &state.SizeError{Key: key, Size: len(value), Limit: maxValue}
	}
	if s.Handle != "" {
		left, err := checkHandle(s.Handle, time.Now())
		if err != nil {
			return err
		}
		err = h.store.Update(ctx, stateRecordID(stateOfHandle, s.Owner, s.Handle), left, setKey(key, value, maxTotal))
		if errors.Is(err, session.ErrNotFound) {
			return unknownHandle(s.Handle)
		}
		return stateWriteError(err)
	}
	id, ttl := stateRecordID(stateOfCaller, s.Owner, ""), h.callerStateTTL()
	for range 3 {
		err := h.store.Update(ctx, id, ttl, setKey(key, value, maxTotal))
		if !errors.Is(err, session.ErrNotFound) {
			return stateWriteError(err)
		}
		if value == nil {
			return nil // nothing to delete
		}
		rec := newStateRecord(id)
		if err := setKey(key, value, maxTotal)(rec); err != nil {
			return err
		}
		err = h.store.Create(ctx, rec, ttl)
		if !errors.Is(err, session.ErrExists) {
			return stateWriteError(err)
		}
		// Another request made it first: update theirs.
	}
	return fmt.Errorf("mcphttp: the caller's state record kept appearing and vanishing; try again")
}

// newStateRecord is a new, empty state record.
func newStateRecord(id string) *session.Record {
	now := time.Now()
	return &session.Record{ID: id, Identity: stateIdentity, Created: now, LastSeen: now}
}

// stateWriteError words a store's failure of a write: the size errors of
// setKey as they are.
func stateWriteError(err error) error {
	if err == nil || errors.Is(err, state.ErrTooLarge) || errors.Is(err, state.ErrUnknownHandle) {
		return err
	}
	return storeFailed(err)
}

func storeFailed(err error) error {
	return fmt.Errorf("mcphttp: the state store failed: %w", err)
}

// setKey is the update of a record that sets key to value (nil: deletes
// it) within maxTotal bytes of keys and values (0: no limit).
func setKey(key string, value json.RawMessage, maxTotal int) func(*session.Record) error {
	return func(r *session.Record) error {
		if value == nil {
			delete(r.State, key)
			if len(r.State) == 0 {
				r.State = nil
			}
			return nil
		}
		if maxTotal > 0 {
			size := len(key) + len(value)
			for k, v := range r.State {
				if k != key {
					size += len(k) + len(v)
				}
			}
			if size > maxTotal {
				return &state.SizeError{Key: key, Size: size, Limit: maxTotal, Session: true}
			}
		}
		if r.State == nil {
			r.State = map[string]json.RawMessage{}
		}
		r.State[key] = value
		return nil
	}
}

// newHandle makes a handle owned by owner: it takes a place among the
// owner's live handles (MaxStateHandles), then makes the handle's record,
// which lives until the handle expires.
func (h *Handler) newHandle(ctx context.Context, owner string) (string, error) {
	now := time.Now()
	ttl := h.handleTTL()
	// Whole seconds, rounded up: the handle carries its expiry in seconds.
	exp := now.Add(ttl).Truncate(time.Second).Add(time.Second)
	hd := mintHandle(exp)
	if owner == "" && h.opts.AnonymousHandles == 0 {
		return "", errNoAnonymousHandles
	}
	if max := h.handleLimit(owner); max > 0 {
		if err := h.countHandle(ctx, owner, hd, exp, max); err != nil {
			return "", err
		}
	}
	rec := newStateRecord(stateRecordID(stateOfHandle, owner, hd))
	if err := h.store.Create(ctx, rec, exp.Sub(now)); err != nil {
		h.uncountHandle(owner, hd)
		return "", storeFailed(err)
	}
	return hd, nil
}

// countHandle adds hd to the owner's live handles, which it refuses when
// the owner has max of them already. The list is a record of its own,
// updated atomically: handle → expiry (Unix seconds).
func (h *Handler) countHandle(ctx context.Context, owner, hd string, exp time.Time, max int) error {
	id := stateRecordID(stateOfHandles, owner, "")
	// The list lives as long as its newest handle.
	ttl := time.Until(exp)
	add := func(r *session.Record) error {
		now := time.Now().Unix()
		for k, v := range r.State {
			var e int64
			if json.Unmarshal(v, &e) != nil || e <= now {
				delete(r.State, k)
			}
		}
		if len(r.State) >= max {
			who, option := "this caller holds", "MaxStateHandles"
			if owner == "" {
				who, option = "anonymous callers hold", "AnonymousHandles"
			}
			return fmt.Errorf("%w: %s %d live state handles, the limit (mcphttp.Options.%s); end one (c.EndHandle) or wait until one expires",
				state.ErrTooLarge, who, len(r.State), option)
		}
		if r.State == nil {
			r.State = map[string]json.RawMessage{}
		}
		r.State[hd] = json.RawMessage(fmt.Sprint(exp.Unix()))
		return nil
	}
	for range 3 {
		err := h.store.Update(ctx, id, ttl, add)
		if !errors.Is(err, session.ErrNotFound) {
			return stateWriteError(err)
		}
		rec := newStateRecord(id)
		if err := add(rec); err != nil {
			return err
		}
		err = h.store.Create(ctx, rec, ttl)
		if !errors.Is(err, session.ErrExists) {
			return stateWriteError(err)
		}
	}
	return fmt.Errorf("mcphttp: the list of the caller's handles kept appearing and vanishing; try again")
}

// handleLimit is how many live handles owner may hold ("": anonymous
// callers together); zero or less means they are not counted.
func (h *Handler) handleLimit(owner string) int {
	if owner == "" {
		return h.opts.AnonymousHandles
	}
	return limit(h.opts.MaxStateHandles, defaultMaxStateHandles)
}

// errNoAnonymousHandles refuses an anonymous caller a handle on a server
// that allows anonymous callers none: a bearer handle among callers that
// cannot be told apart is an allowance any one of them can exhaust.
var errNoAnonymousHandles = fmt.Errorf("%w: this server gives anonymous callers no state handles; "+
	"sign in, or the server allows them some with mcphttp.Options.AnonymousHandles", mcp.ErrNoCaller)

// uncountHandle removes hd from the owner's live handles (best effort:
// a handle left in the list expires from it).
func (h *Handler) uncountHandle(owner, hd string) {
	if h.handleLimit(owner) <= 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := h.store.Update(ctx, stateRecordID(stateOfHandles, owner, ""), h.handleTTL(), func(r *session.Record) error {
		delete(r.State, hd)
		return nil
	})
	if err != nil && !errors.Is(err, session.ErrNotFound) {
		h.log.Warn("mcp: removing an ended handle from its owner's list failed; it leaves the list when it expires", "error", err)
	}
}

// endHandle ends the handle s names: its record goes, and its place among
// the owner's handles.
func (h *Handler) endHandle(ctx context.Context, s engine.StateScope) error {
	if _, err := checkHandle(s.Handle, time.Now()); err != nil {
		return err
	}
	id := stateRecordID(stateOfHandle, s.Owner, s.Handle)
	_, err := h.store.Get(ctx, id)
	if errors.Is(err, session.ErrNotFound) {
		return unknownHandle(s.Handle)
	}
	if err != nil {
		return storeFailed(err)
	}
	if err := h.store.Delete(ctx, id); err != nil {
		return storeFailed(err)
	}
	h.uncountHandle(s.Owner, s.Handle)
	return nil
}

// GetState implements engine.State.
func (p *requestPeer) GetState(ctx context.Context, s engine.StateScope, key string) (json.RawMessage, bool, error) {
	if !s.Session {
		return p.c.h.getState(ctx, s, key)
	}
	if p.c.ephemeral {
		return nil, false, errNoSessionState
	}
	return p.c.getState(ctx, key)
}

// SetState implements engine.State.
func (p *requestPeer) SetState(ctx context.Context, s engine.StateScope, key string, value json.RawMessage) error {
	if !s.Session {
		return p.c.h.setState(ctx, s, key, value)
	}
	if p.c.ephemeral {
		return errNoSessionState
	}
	return p.c.setState(ctx, key, value)
}

// NewHandle implements engine.State.
func (p *requestPeer) NewHandle(ctx context.Context, owner string) (string, error) {
	return p.c.h.newHandle(ctx, owner)
}

// EndHandle implements engine.State.
func (p *requestPeer) EndHandle(ctx context.Context, s engine.StateScope) error {
	return p.c.h.endHandle(ctx, s)
}

// errNoSessionState is the session scope's error on a request without a
// session: it says what to use instead.
var errNoSessionState = fmt.Errorf("%w: this request has none (revision 2026-07-28 and stateless HTTP have no sessions); "+
	"keep the state for the caller (state.Caller) or under a handle (state.NewHandle, state.ForHandle)", mcp.ErrNoSession)

// getState returns the value of key in the stored record, as another
// replica may have written it.
func (c *sessionState) getState(ctx context.Context, key string) (json.RawMessage, bool, error) {
	rec, err := c.h.store.Get(ctx, c.sess.ID)
	if err != nil {
		return nil, false, c.stateError(err)
	}
	v, ok := rec.State[key]
	return v, ok, nil
}

// setState sets key to value with one atomic update of the stored record
// (Store.Update), so a concurrent write of another key is never lost;
// value nil deletes key.
func (c *sessionState) setState(ctx context.Context, key string, value json.RawMessage) error {
	maxValue, maxTotal := c.h.stateLimits()
	if value != nil && maxValue > 0 && len(value) > maxValue {
		return &state.SizeError{Key: key, Size: len(value), Limit: maxValue}
	}
	err := c.h.store.Update(ctx, c.sess.ID, c.h.sessionTTL(), setKey(key, value, maxTotal))
	if errors.Is(err, state.ErrTooLarge) {
		return err
	}
	if err != nil {
		return c.stateError(err)
	}
	return nil
}

// stateError words a store's failure for the tool.
func (c *sessionState) stateError(err error) error {
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("%w: the session ended or expired", mcp.ErrNoSession)
	}
	return fmt.Errorf("mcphttp: the session store failed: %w", err)
}

// limit is an option's value: def when zero, none (0) when negative.
func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
