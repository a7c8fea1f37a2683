package providers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ErrNotFound is returned by a [TokenStorage] for a key that is absent or
// expired.
var ErrNotFound = errors.New("providers: key not found")

// ErrStorageFull is returned by a [TokenStorage] when it holds its maximum
// number of entries, or of client registrations (a flood of them, say).
var ErrStorageFull = errors.New("providers: token storage is full")

// ClientKeyPrefix starts the storage keys of client registrations. A
// [TokenStorage] counts them against a quota of their own (MaxClients), so
// that anonymous registrations can never take the room of the codes,
// refresh tokens and grants of users who log in.
const ClientKeyPrefix = "client:"

// TransactionKeyPrefix starts the storage keys of authorizations in
// progress (the transaction an /oauth/authorize request starts, which
// lives until the upstream callback takes it, 10 minutes at most). Anyone
// can start one without logging in, so a [TokenStorage] counts them
// against a quota of their own (MaxTransactions), apart from client
// registrations and from the records of logins: a flood of them can
// refuse new authorizations, never the refresh or code exchange of a user.
const TransactionKeyPrefix = "txn:"

// Record kinds a storage counts apart: logins (codes, refresh tokens,
// grants and the rest), client registrations, transactions.
const (
	kindLogin = iota
	kindClient
	kindTxn
	kinds
)

func keyKind(key string) int {
	switch {
	case strings.HasPrefix(key, ClientKeyPrefix):
		return kindClient
	case strings.HasPrefix(key, TransactionKeyPrefix):
		return kindTxn
	}
	return kindLogin
}

// TokenStorage is where the OAuth proxy keeps its state: registered
// clients, transactions, authorization codes, refresh tokens and the
// (encrypted) upstream grants. Values are opaque bytes; the proxy encrypts
// what is sensitive before Put and stores codes and refresh tokens only as
// hashes. Several server instances sharing one storage (Redis) share their
// logins.
//
// Implementations must be safe for concurrent use and must never return an
// expired value. Take, Swap, Update and PutIfAbsent must be atomic: of any
// number of concurrent callers (on any instance) at most one Take gets the
// value, each Swap gets the value the one before it stored, and an Update
// never brings back a key deleted before it. Keys starting with
// [ClientKeyPrefix], and those starting with [TransactionKeyPrefix],
// should each be counted against a quota of their own, apart from all
// other keys (Put of a new one beyond it fails with ErrStorageFull): they
// are the records anyone can create without logging in. Run package
// storagetest against an implementation to check it.
type TokenStorage interface {
	// Put stores val under key; ttl 0 means no expiry.
	Put(ctx context.Context, key string, val []byte, ttl time.Duration) error
	// PutIfAbsent stores val only if key is absent (or expired) and reports
	// whether it did.
	PutIfAbsent(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error)
	// Get returns the value of key, or an error wrapping ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Take atomically returns and deletes the value of key, or returns an
	// error wrapping ErrNotFound.
	Take(ctx context.Context, key string) ([]byte, error)
	// Swap atomically replaces the value (and TTL) of a present key and
	// returns the value it replaced; an absent key is left absent and an
	// error wrapping ErrNotFound is returned. The proxy marks a code or
	// refresh token used this way, so that of two concurrent uses one
	// gets the record and the other the mark.
	Swap(ctx context.Context, key string, val []byte, ttl time.Duration) ([]byte, error)
	// Update stores val only if key is present (SET … XX) and reports
	// whether it did: a record deleted meanwhile (a revoked login) is
	// never written back.
	Update(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error)
	// Delete removes key; deleting an absent key is not an error.
	Delete(ctx context.Context, key string) error
	// Close releases what the storage holds (goroutines, connections).
	Close() error
}

// MemoryStorageOptions configure a [MemoryStorage]. The zero value is
// usable.
type MemoryStorageOptions struct {
	// CleanupInterval is how often expired entries are purged. Default: 1
	// minute. Expired entries are never returned in between.
	CleanupInterval time.Duration
	// MaxEntries caps the number of entries other than client
	// registrations and transactions: the records of logins. Put of a new
	// key beyond it fails with ErrStorageFull. Default: 100 000.
	MaxEntries int
	// MaxClients caps the number of client registrations (keys starting
	// with ClientKeyPrefix), counted apart from MaxEntries. Default:
	// 10 000.
	MaxClients int
	// MaxTransactions caps the number of authorizations in progress (keys
	// starting with TransactionKeyPrefix), counted apart from MaxEntries
	// and MaxClients. Default: 10 000.
	MaxTransactions int
	// Now is the clock. Default: time.Now.
	Now func() time.Time
}

type memEntry struct {
	val []byte
	exp time.Time // zero: never
}

// MemoryStorage is the default [TokenStorage]: a map in this process, with
// per-key TTL and a background goroutine that purges expired entries until
// Close. Its state does not survive a restart and is not shared between
// instances; use package providers/redisstorage for that.
type MemoryStorage struct {
	now    func() time.Time
	max    [kinds]int // the cap of each kind of record (keyKind)
	mu     sync.Mutex
	m      map[string]memEntry
	count  [kinds]int       // entries of m of each kind
	purged [kinds]time.Time // last purge of expired entries made because the cap of a kind was reached
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
}

// NewMemoryStorage returns a running MemoryStorage. Call Close to stop its
// cleanup goroutine.
func NewMemoryStorage(o *MemoryStorageOptions) *MemoryStorage {
	var opts MemoryStorageOptions
	if o != nil {
		opts = *o
	}
	if opts.CleanupInterval <= 0 {
		opts.CleanupInterval = time.Minute
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = 100_000
	}
	if opts.MaxClients <= 0 {
		opts.MaxClients = 10_000
	}
	if opts.MaxTransactions <= 0 {
		opts.MaxTransactions = 10_000
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &MemoryStorage{now: opts.Now, max: [kinds]int{opts.MaxEntries, opts.MaxClients, opts.MaxTransactions},
		m: map[string]memEntry{}, stop: make(chan struct{}), done: make(chan struct{})}
	go s.janitor(opts.CleanupInterval)
	return s
}

func (s *MemoryStorage) janitor(every time.Duration) {
	defer close(s.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.Cleanup()
		}
	}
}

// Cleanup removes every expired entry now. The background goroutine calls
// it periodically.
func (s *MemoryStorage) Cleanup() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.purge(s.now())
}

// purge removes the expired entries; s.mu is held.
func (s *MemoryStorage) purge(now time.Time) {
	for k, e := range s.m {
		if e.expired(now) {
			s.del(k)
		}
	}
}

// del removes key; s.mu is held.
func (s *MemoryStorage) del(key string) {
	if _, ok := s.m[key]; ok {
		delete(s.m, key)
		s.count[keyKind(key)]--
	}
}

// set stores e under key unless key is new and the cap of its kind is
// reached (then, at most once a second, expired entries are purged
// first); s.mu is held.
func (s *MemoryStorage) set(key string, e memEntry) error {
	if _, ok := s.m[key]; !ok {
		k := keyKind(key)
		if s.count[k] >= s.max[k] {
			if now := s.now(); now.Sub(s.purged[k]) >= time.Second {
				s.purged[k] = now
				s.purge(now)
			}
			if s.count[k] >= s.max[k] {
				return ErrStorageFull
			}
		}
		s.count[k]++
	}
	s.m[key] = e
	return nil
}

// Len returns the number of entries held, expired ones included until the
// next cleanup.
func (s *MemoryStorage) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

func (e memEntry) expired(now time.Time) bool { return !e.exp.IsZero() && !now.Before(e.exp) }

func (s *MemoryStorage) entry(key string, ttl time.Duration, val []byte) memEntry {
	e := memEntry{val: append([]byte(nil), val...)}
	if ttl > 0 {
		e.exp = s.now().Add(ttl)
	}
	return e
}

// Put implements [TokenStorage].
func (s *MemoryStorage) Put(ctx context.Context, key string, val []byte, ttl time.Duration) error {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set(key, s.entry(key, ttl, val))
}

// PutIfAbsent implements [TokenStorage].
func (s *MemoryStorage) PutIfAbsent(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	if ok && !e.expired(s.now()) {
		return false, nil
	}
	if err := s.set(key, s.entry(key, ttl, val)); err != nil {
		return false, err
	}
	return true, nil
}

// Swap implements [TokenStorage].
func (s *MemoryStorage) Swap(ctx context.Context, key string, val []byte, ttl time.Duration) ([]byte, error) {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	if !ok || e.expired(s.now()) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	s.m[key] = s.entry(key, ttl, val)
	return e.val, nil
}

// Update implements [TokenStorage].
func (s *MemoryStorage) Update(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	if err := checkArgs(ctx, key, ttl); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	if !ok || e.expired(s.now()) {
		return false, nil
	}
	s.m[key] = s.entry(key, ttl, val)
	return true, nil
}

// Get implements [TokenStorage].
func (s *MemoryStorage) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkArgs(ctx, key, 0); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	if !ok || e.expired(s.now()) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return append([]byte(nil), e.val...), nil
}

// Take implements [TokenStorage].
func (s *MemoryStorage) Take(ctx context.Context, key string) ([]byte, error) {
	if err := checkArgs(ctx, key, 0); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	s.del(key)
	if !ok || e.expired(s.now()) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
	}
	return e.val, nil
}

// Delete implements [TokenStorage].
func (s *MemoryStorage) Delete(ctx context.Context, key string) error {
	if err := checkArgs(ctx, key, 0); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.del(key)
	return nil
}

// Close stops the cleanup goroutine and waits for it. It is safe to call
// more than once.
func (s *MemoryStorage) Close() error {
	s.once.Do(func() { close(s.stop) })
	<-s.done
	return nil
}

func checkArgs(ctx context.Context, key string, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if key == "" {
		return errors.New("providers: empty storage key")
	}
	if ttl < 0 {
		return fmt.Errorf("providers: negative TTL %v for key %s", ttl, key)
	}
	return nil
}
