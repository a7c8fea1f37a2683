package providers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrNotFound is returned by a [TokenStorage] for a key that is absent or
// expired.
var ErrNotFound = errors.New("providers: key not found")

// ErrStorageFull is returned by [MemoryStorage] when it holds its maximum
// number of entries (a flood of client registrations, say).
var ErrStorageFull = errors.New("providers: token storage is full")

// TokenStorage is where the OAuth proxy keeps its state: registered
// clients, transactions, authorization codes, refresh tokens and the
// (encrypted) upstream grants. Values are opaque bytes; the proxy encrypts
// what is sensitive before Put and stores codes and refresh tokens only as
// hashes. Several server instances sharing one storage (Redis) share their
// logins.
//
// Implementations must be safe for concurrent use and must never return an
// expired value. Take must be atomic: of any number of concurrent callers
// (on any instance) at most one gets the value. Run package storagetest
// against an implementation to check it.
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
	// MaxEntries caps the number of entries; Put of a new key beyond it
	// fails with ErrStorageFull. Default: 100 000.
	MaxEntries int
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
// instances; use [RedisStorage] for that.
type MemoryStorage struct {
	now  func() time.Time
	max  int
	mu   sync.Mutex
	m    map[string]memEntry
	stop chan struct{}
	done chan struct{}
	once sync.Once
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
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &MemoryStorage{now: opts.Now, max: opts.MaxEntries, m: map[string]memEntry{},
		stop: make(chan struct{}), done: make(chan struct{})}
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
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, e := range s.m {
		if e.expired(now) {
			delete(s.m, k)
		}
	}
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
	if _, ok := s.m[key]; !ok && len(s.m) >= s.max {
		return ErrStorageFull
	}
	s.m[key] = s.entry(key, ttl, val)
	return nil
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
	if !ok && len(s.m) >= s.max {
		return false, ErrStorageFull
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
	delete(s.m, key)
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
	delete(s.m, key)
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
