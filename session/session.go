// Package session issues and looks up MCP sessions: the Mcp-Session-Id a
// Streamable HTTP server hands out on initialize, and the state it keeps
// for each (protocol version, client info and capabilities, log level,
// resource subscriptions, the auth data it is bound to).
//
// A [Store] holds each session's [Record], plain serialisable data with an
// idle expiry (TTL): [MemoryStore] is the in-process default, and
// the Redis store of package session/redisstore shares sessions between
// replicas. A [Session] is a
// process's working copy of a record; what changes on it is written back
// with [Store.Update].
package session

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
)

// Errors returned by stores.
var (
	// ErrNotFound: no session has that ID (never issued, ended or expired).
	ErrNotFound = errors.New("session: not found")
)

// NewID returns a new session ID: 128 random bits, URL-safe base64, so
// every character is visible ASCII (0x21–0x7E) as the spec requires.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// MaxIDLen is the longest session ID [ValidID] accepts. IDs this package
// issues are 22 characters; the limit bounds what a client can make a
// server look up.
const MaxIDLen = 256

// ValidID reports whether id is a well-formed session ID: 1 to [MaxIDLen]
// characters, each visible ASCII (0x21 to 0x7E), as the MCP transport
// specification requires. It is the one check of session IDs: the
// SessionID middleware and the engine both use it.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > MaxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return false
		}
	}
	return true
}

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
	caps            mcp.ClientCapabilities
	logLevel        mcp.LogLevel
	initialized     bool
	auth            any
	subs            map[string]bool
	lastSeen        time.Time
}

// New returns a session with a fresh ID.
func New(now time.Time) *Session {
	return &Session{ID: NewID(), Created: now, lastSeen: now}
}

// Init records what the client sent in initialize, and the auth data the
// session is bound to.
func (s *Session) Init(version string, client mcp.Implementation, caps mcp.ClientCapabilities, auth any) {
	s.mu.Lock()
	s.protocolVersion, s.client, s.caps, s.auth = version, client, caps, auth
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
	return s.caps
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
// auth data of the caller that is using it (its [Identity] matched the
// record's).
func FromRecord(rec *Record, auth any) *Session {
	s := &Session{ID: rec.ID, Created: rec.Created, lastSeen: rec.LastSeen, auth: auth}
	s.Init(rec.ProtocolVersion, rec.Client, rec.Capabilities, auth)
	s.Apply(rec)
	return s
}

// Apply refreshes what other replicas may have changed: the log level,
// the subscriptions and the initialized flag.
func (s *Session) Apply(rec *Record) {
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
func (s *Session) Record() *Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	// Built as a copy: the capabilities deep (cloneCaps), the
	// subscriptions fresh.
	rec := &Record{ID: s.ID, ProtocolVersion: s.protocolVersion, Client: s.client, Capabilities: cloneCaps(s.caps),
		LogLevel: s.logLevel, Initialized: s.initialized, Identity: Identity(s.auth),
		Created: s.Created, LastSeen: s.lastSeen}
	for u := range s.subs {
		rec.Subscriptions = append(rec.Subscriptions, u)
	}
	slices.Sort(rec.Subscriptions)
	return rec
}
