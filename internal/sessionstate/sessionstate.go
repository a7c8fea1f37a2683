// Package sessionstate is the MCP engine's working copy of a session: a
// [Session] is what the client said at initialize and what it changed
// since, safe for concurrent use, made from and written back to the
// session.Record of a session.Store. Users never see it: a store deals in
// records only.
package sessionstate

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/session"
)

// Session is the state of one MCP session. Its methods are safe for
// concurrent use.
type Session struct {
	// ID is the Mcp-Session-Id.
	ID string
	// Created is when initialize made the session.
	Created time.Time

	mu              sync.Mutex
	protocolVersion string
	client          mcp.Implementation
	caps            *mcp.ClientCapabilities // nil: none declared (initialize's {}); a pointer keeps an idle session in its size class
	logLevel        mcp.LogLevel
	initialized     bool
	auth            any
	subs            map[string]bool
	lastSeen        time.Time
}

// New returns a session with a fresh ID.
func New(now time.Time) *Session {
	return &Session{ID: session.NewID(), Created: now, lastSeen: now}
}

// Init records what the client sent in initialize, and the auth data the
// session is bound to.
func (s *Session) Init(version string, client mcp.Implementation, caps mcp.ClientCapabilities, auth any) {
	var cp *mcp.ClientCapabilities
	if caps.Roots != nil || caps.Sampling != nil || caps.Elicitation != nil || len(caps.Experimental) > 0 || len(caps.Extensions) > 0 {
		c := caps // moved to the heap here only, not on every Init
		cp = &c
	}
	s.mu.Lock()
	s.protocolVersion, s.client, s.caps, s.auth = version, client, cp, auth
	s.mu.Unlock()
}

// SetInitialized marks notifications/initialized as received.
func (s *Session) SetInitialized() { s.mu.Lock(); s.initialized = true; s.mu.Unlock() }

// Initialized reports whether notifications/initialized was received.
func (s *Session) Initialized() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.initialized }

// ProtocolVersion is the negotiated revision.
func (s *Session) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protocolVersion
}

// Client is the clientInfo of initialize.
func (s *Session) Client() mcp.Implementation { s.mu.Lock(); defer s.mu.Unlock(); return s.client }

// Capabilities are the client's declared capabilities.
func (s *Session) Capabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.caps == nil {
		return mcp.ClientCapabilities{}
	}
	return *s.caps
}

// Auth is the auth data the session was created with.
func (s *Session) Auth() any { s.mu.Lock(); defer s.mu.Unlock(); return s.auth }

// SetLogLevel records the minimum level of logging/setLevel.
func (s *Session) SetLogLevel(l mcp.LogLevel) { s.mu.Lock(); s.logLevel = l; s.mu.Unlock() }

// LogLevel is the minimum level; "" means every level.
func (s *Session) LogLevel() mcp.LogLevel { s.mu.Lock(); defer s.mu.Unlock(); return s.logLevel }

// Subscribe records a resources/subscribe.
func (s *Session) Subscribe(uri string) {
	s.mu.Lock()
	if s.subs == nil {
		s.subs = map[string]bool{}
	}
	s.subs[uri] = true
	s.mu.Unlock()
}

// Unsubscribe records a resources/unsubscribe.
func (s *Session) Unsubscribe(uri string) { s.mu.Lock(); delete(s.subs, uri); s.mu.Unlock() }

// Subscribed reports whether the client subscribed to uri.
func (s *Session) Subscribed(uri string) bool { s.mu.Lock(); defer s.mu.Unlock(); return s.subs[uri] }

// Touch records activity at now.
func (s *Session) Touch(now time.Time) { s.mu.Lock(); s.lastSeen = now; s.mu.Unlock() }

// LastSeen is the time of the last activity.
func (s *Session) LastSeen() time.Time { s.mu.Lock(); defer s.mu.Unlock(); return s.lastSeen }

// FromRecord returns the working copy of a stored session; auth is the
// auth data of the caller that is using it (the record is [Adoptable] by
// it).
func FromRecord(rec *session.Record, auth any) *Session {
	s := &Session{ID: rec.ID, Created: rec.Created, lastSeen: rec.LastSeen, auth: auth}
	s.Init(rec.ProtocolVersion, rec.Client, rec.Capabilities, auth)
	s.Apply(rec)
	return s
}

// Apply refreshes what other replicas may have changed: the log level,
// the subscriptions and the initialized flag.
func (s *Session) Apply(rec *session.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.logLevel = rec.LogLevel
	s.initialized = s.initialized || rec.Initialized
	s.subs = nil
	for _, u := range rec.Subscriptions {
		if s.subs == nil {
			s.subs = map[string]bool{}
		}
		s.subs[u] = true
	}
}

// Record returns the session as stored data.
func (s *Session) Record() *session.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Built as a copy: the capabilities deep (cloneCaps), the
	// subscriptions fresh.
	rec := &session.Record{ID: s.ID, ProtocolVersion: s.protocolVersion, Client: s.client, Capabilities: cloneCaps(s.caps),
		LogLevel: s.logLevel, Initialized: s.initialized, Identity: Identity(s.auth),
		Created: s.Created, LastSeen: s.lastSeen}
	for u := range s.subs {
		rec.Subscriptions = append(rec.Subscriptions, u)
	}
	slices.Sort(rec.Subscriptions)
	return rec
}

// Opaque is the stored [Identity] of a session bound to auth data
// without a subject: no caller matches it on another replica ([Adoptable]),
// since no encoding of such a value is known to tell its users apart.
const Opaque = "opaque"

// Identity is the stored form of the auth data a session is bound to, by
// the identity rule (package internal/identity): "" for none (anonymous),
// the caller's key ("sub:" and the subject) for auth data with a subject,
// else [Opaque].
func Identity(auth any) string {
	if key, ok := identity.Key(auth); ok {
		return key
	}
	if auth == nil {
		return ""
	}
	return Opaque
}

// Adoptable reports whether a caller with auth data auth may take up a
// session that another replica stored with identity stored: an anonymous
// caller an anonymous session, a caller with a subject a session of that
// subject. Auth data without a subject adopts nothing, not even a session
// it made itself: such a session is served by the replica that made it.
func Adoptable(stored string, auth any) bool {
	switch identity.Of(auth) {
	case identity.Anonymous:
		return stored == ""
	case identity.Subject:
		key, _ := identity.Key(auth)
		return stored == key
	}
	return false
}

// cloneCaps copies capabilities, as session.Record.Clone does: its own
// Roots and its own top-level Experimental and Extensions maps (the values
// inside are shared; capabilities are never modified after initialize).
// nil is none declared.
func cloneCaps(p *mcp.ClientCapabilities) mcp.ClientCapabilities {
	if p == nil {
		return mcp.ClientCapabilities{}
	}
	c := *p
	if c.Roots != nil {
		roots := *c.Roots
		c.Roots = &roots
	}
	c.Experimental = maps.Clone(c.Experimental)
	c.Extensions = maps.Clone(c.Extensions)
	return c
}
