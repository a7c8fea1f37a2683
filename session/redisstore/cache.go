package redisstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpchain/mcp/session"
)

// CacheOptions configure the local cache of a [Store] (Options.Cache).
// The zero value is usable.
//
// With the cache, the store keeps in the process a copy of each session
// record it read or wrote, with the bytes it read. Touch serves the copy
// without asking Redis while the copy is younger than the lease (MaxStale,
// or a quarter of the session TTL when that is shorter), and asks Redis
// (GETEX, which also restarts the key's expiry) when it is older, so a
// session in use costs Redis one round trip per lease instead of one per
// request. Update is a compare-and-set of the cached bytes in one Lua
// script (one round trip instead of three), and skips the write when the
// record did not change. Every Update and Delete publishes the session ID
// on a channel every cached store of the same prefix subscribes to, and a
// store drops its copy when it hears another store's message.
//
// What another replica sees: a record changed or deleted on one replica is
// seen on another as soon as the invalidation message arrives (a few
// milliseconds on one network; TestCacheSeesOtherReplicas measures it),
// and never later than the lease, even when messages are lost: a copy is
// never served once it is older than the lease. While the store is not
// subscribed (at start, after a broken connection, Redis down) it serves
// no copy at all. The idle expiry of a session counts from the last
// request that reached Redis, so a session may expire up to one lease
// earlier than its TTL after its last request.
type CacheOptions struct {
	// MaxStale is the lease: the longest time a copy is served without
	// Redis confirming it. Default 1 s.
	MaxStale time.Duration
	// MaxEntries bounds the number of copies kept; when it is reached,
	// older copies are dropped. Default 100,000.
	MaxEntries int
}

// The defaults of [CacheOptions].
const (
	DefaultCacheMaxStale   = time.Second
	DefaultCacheMaxEntries = 100_000
)

// cached is one session's copy: the record as decoded from raw, the
// stored bytes, and when Redis last confirmed them.
type cached struct {
	rec     *session.Record
	raw     []byte
	checked time.Time
}

// stripes is how many invalidation counters a cache keeps: a read that
// raced an invalidation of its session (the counter moved while it waited
// for Redis) does not store what it read.
const stripes = 64

// cache is the local cache of a Store; see CacheOptions.
type cache struct {
	maxStale time.Duration
	max      int
	origin   string // this cache's tag on the messages it publishes
	channel  string
	seed     maphash.Seed

	live atomic.Bool // subscribed: copies may be served
	seq  [stripes]atomic.Uint64

	mu sync.Mutex
	m  map[string]*cached

	ps   *redis.PubSub
	stop chan struct{} // closed by close, before the subscription is
	done chan struct{} // closed when listen returns
}

func newCache(c redis.UniversalClient, channel string, o CacheOptions) *cache {
	if o.MaxStale <= 0 {
		o.MaxStale = DefaultCacheMaxStale
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultCacheMaxEntries
	}
	var tag [8]byte
	_, _ = rand.Read(tag[:])
	k := &cache{
		maxStale: o.MaxStale, max: o.MaxEntries, origin: hex.EncodeToString(tag[:]),
		channel: channel, seed: maphash.MakeSeed(),
		m: map[string]*cached{}, stop: make(chan struct{}), done: make(chan struct{}),
	}
	// The subscription is made here, its confirmation read by the loop:
	// New does not wait for Redis, and until the confirmation the cache
	// serves nothing.
	k.ps = c.Subscribe(context.Background(), k.channel)
	go k.listen()
	return k
}

// listen applies invalidations until the subscription is closed. Every
// (re)subscription empties the cache first: messages sent while it was
// not subscribed are lost.
func (k *cache) listen() {
	defer close(k.done)
	ctx := context.Background()
	for {
		msg, err := k.ps.Receive(ctx)
		if err != nil {
			k.live.Store(false)
			k.clear()
			// go-redis reconnects and subscribes again on the next
			// Receive; do not spin while Redis is away. ErrClosed: the
			// caller closed the client under the store.
			select {
			case <-k.stop:
				return
			default:
			}
			if errors.Is(err, redis.ErrClosed) {
				return
			}
			select {
			case <-time.After(100 * time.Millisecond):
			case <-k.stop:
				return
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				k.clear()
				k.live.Store(true)
			}
		case *redis.Message:
			origin, id, ok := strings.Cut(m.Payload, " ")
			if ok && origin != k.origin {
				k.drop(id)
			}
		}
	}
}

// close ends the subscription and waits for listen to return.
func (k *cache) close() error {
	close(k.stop)
	err := k.ps.Close()
	<-k.done
	return err
}

func (k *cache) stripe(id string) *atomic.Uint64 {
	return &k.seq[maphash.String(k.seed, id)%stripes]
}

func (k *cache) clear() {
	k.mu.Lock()
	clear(k.m)
	k.mu.Unlock()
	for i := range k.seq {
		k.seq[i].Add(1)
	}
}

func (k *cache) drop(id string) {
	k.stripe(id).Add(1)
	k.mu.Lock()
	delete(k.m, id)
	k.mu.Unlock()
}

// lease is how long a copy of a record kept with ttl may be served.
func (k *cache) lease(ttl time.Duration) time.Duration {
	if ttl > 0 && ttl/4 < k.maxStale {
		return ttl / 4
	}
	return k.maxStale
}

// get returns id's copy, if there is one and the cache is live.
func (k *cache) get(id string) *cached {
	if !k.live.Load() {
		return nil
	}
	k.mu.Lock()
	e := k.m[id]
	k.mu.Unlock()
	return e
}

// put stores a copy read or written when the stripe counter of id was
// seq, unless an invalidation came in between.
func (k *cache) put(id string, seq uint64, e *cached) {
	if !k.live.Load() {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stripe(id).Load() != seq {
		return
	}
	if _, ok := k.m[id]; !ok && len(k.m) >= k.max {
		k.evictLocked()
	}
	k.m[id] = e
}

// evictLocked makes room: it drops an eighth of the copies, the ones map
// iteration meets first (an arbitrary choice, as good as any without
// tracking use, and free of per-read bookkeeping).
func (k *cache) evictLocked() {
	n := max(len(k.m)/8, 1)
	for id := range k.m {
		delete(k.m, id)
		if n--; n == 0 {
			return
		}
	}
}

// casScript replaces the record at KEYS[1] when it still holds ARGV[1]:
// it returns 1 when it wrote ARGV[2] (with a TTL of ARGV[3] ms, none when
// 0) and published ARGV[5] on ARGV[4]; the current value when another
// writer changed it; false when the key is gone.
var casScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
if cur ~= ARGV[1] then return cur end
if tonumber(ARGV[3]) > 0 then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`)

// touchCached is Store.Touch with the cache.
func (s *Store) touchCached(ctx context.Context, id string, ttl time.Duration) (*session.Record, error) {
	if e := s.cache.get(id); e != nil && time.Since(e.checked) < s.cache.lease(ttl) {
		return e.rec.Clone(), nil
	}
	seq := s.cache.stripe(id).Load()
	now := time.Now()
	b, err := s.getex(ctx, id, ttl)
	if errors.Is(err, session.ErrNotFound) {
		s.cache.drop(id)
	}
	if err != nil {
		return nil, err
	}
	rec, err := decode(b)
	if err != nil {
		return nil, err
	}
	s.cache.put(id, seq, &cached{rec: rec, raw: b, checked: now})
	return rec.Clone(), nil
}

// updateCached is Store.Update with the cache: compare-and-set against
// the cached bytes (read first when there is no copy), again against the
// current bytes when another writer got there first.
func (s *Store) updateCached(ctx context.Context, id string, ttl time.Duration, fn func(*session.Record) error) error {
	key := s.key(id)
	seq := s.cache.stripe(id).Load()
	var raw []byte
	var checked time.Time
	if e := s.cache.get(id); e != nil {
		raw, checked = e.raw, e.checked
	} else {
		checked = time.Now()
		b, err := s.c.Get(ctx, key).Bytes()
		if errors.Is(err, redis.Nil) {
			return session.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("redisstore: redis GET: %w", err)
		}
		raw = b
	}
	for range s.tries {
		rec, err := decode(raw)
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
		rec.ID = id
		nb, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("redisstore: encoding session %s: %w", id, err)
		}
		if bytes.Equal(nb, raw) && time.Since(checked) < s.cache.lease(ttl) {
			// Nothing changed, and Redis renewed the expiry within the
			// lease, as a Touch would have.
			return nil
		}
		now := time.Now()
		res, err := casScript.Run(ctx, s.c, []string{key}, raw, nb, max(ttl, 0).Milliseconds(),
			s.cache.channel, s.message(id)).Result()
		if errors.Is(err, redis.Nil) {
			s.cache.drop(id)
			return session.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("redisstore: updating session %s: %w", id, err)
		}
		switch v := res.(type) {
		case int64:
			s.cache.put(id, seq, &cached{rec: rec, raw: nb, checked: now})
			return nil
		case string:
			raw, checked, seq = []byte(v), now, s.cache.stripe(id).Load()
		default:
			return fmt.Errorf("redisstore: updating session %s: unexpected reply %T", id, res)
		}
	}
	return fmt.Errorf("redisstore: updating session %s lost the race with other writers %d times", id, s.tries)
}

// delScript deletes KEYS[1] and publishes ARGV[2] on ARGV[1], in that
// order and on the key's node, in one round trip: a store that hears the
// message and reads the key again finds it gone. (A pipeline of DEL and
// PUBLISH would send them to different nodes of a cluster.)
var delScript = redis.NewScript(`
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return 1
`)
