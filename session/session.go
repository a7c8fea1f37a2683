// Package session defines where an MCP server keeps what outlives one
// request: the [Store] of session records (the Mcp-Session-Id a
// Streamable HTTP server hands out on initialize, and what the client
// said then), the [EventStore] of resumable streams, the [TaskStore] of
// tasks and the [Relay] that carries answers between replicas, each with
// an in-process implementation ([MemoryStore], [MemoryEventStore],
// [MemoryRelay]).
//
// The memory implementations serve one replica. Package
// session/redisstore implements the interfaces on Redis, so that several
// replicas share sessions; another backend implements them the same way
// and checks itself with the contract tests of package session/storetest.
package session

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
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
