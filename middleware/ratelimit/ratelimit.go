// Package ratelimit refuses the requests of an MCP caller over its limits
// with token buckets (golang.org/x/time/rate). It is a package of its own
// so that a server without rate limits does not link the limiter:
// importing it is the choice.
package ratelimit

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
)

// CodeRateLimited is the JSON-RPC error code of a request refused by
// the middleware of [New] (in the implementation-defined server error range).
const CodeRateLimited = -32029

// Limit is a token bucket: Rate requests per second on average, Burst at
// once. The zero Limit means no limit.
type Limit struct {
	Rate  rate.Limit
	Burst int
}

// PerMinute is a Limit of n requests a minute with a burst of burst.
func PerMinute(n, burst int) Limit { return Limit{Rate: rate.Limit(float64(n) / 60), Burst: burst} }

func (l Limit) unlimited() bool { return l.Rate == 0 && l.Burst == 0 || l.Rate == rate.Inf }

// Options configure [New].
type Options struct {
	// ToolCalls limits each caller's tools/call requests.
	ToolCalls Limit
	// Other limits each caller's other requests (lists, reads, prompts,
	// initialize, …), counted apart from tools/call.
	Other Limit
	// Key names the caller a request counts against. The default
	// ([DefaultKey]) is the non-empty subject of the auth data
	// (mcp.Subject), else the remote address's host (an IPv6 address by
	// its /64), else "local" (stdio and embedded sessions, which all share
	// one bucket). Requests with the same key
	// share buckets; return "" to exempt a request.
	Key func(r *http.Request, c *mcp.Call) string
	// IdleTimeout is how long the buckets of a caller that sends nothing
	// are kept; they are dropped afterwards, so memory stays bounded by
	// the callers of the last IdleTimeout. Default: the time an empty
	// bucket takes to refill (a dropped bucket comes back full), at least
	// a minute.
	IdleTimeout time.Duration
}

// New returns a middleware that refuses requests over a caller's limits:
// every JSON-RPC request (on every transport, each request of a batch)
// takes a token of its caller's bucket for tools/call or for the rest,
// per [Options]. A refused request gets a JSON-RPC error with code
// [CodeRateLimited] and data {"retryAfter": seconds} (whole seconds until
// a token is back); when it is the whole HTTP answer, that is a 429 with a
// Retry-After header. Notifications and responses are not limited.
//
// Place it after the authentication middleware so that the default key
// sees the caller's subject. Buckets of idle callers are dropped after
// Options.IdleTimeout by a sweep that a timer runs only while there are
// buckets, so no goroutine outlives the last caller.
func New(opts Options) func(http.Handler) http.Handler {
	rl := newRateLimiter(opts, time.Now)
	return rl.middleware
}

type rateLimiter struct {
	opts   Options
	now    func() time.Time
	seed   maphash.Seed
	ic     mcp.Interceptor // rl.intercept, made once
	shards [64]rateShard
}

type rateShard struct {
	mu      sync.Mutex
	callers map[string]*callerBuckets
	armed   bool // a sweep is scheduled
}

type callerBuckets struct {
	tools, other *rate.Limiter
	last         time.Time
}

func newRateLimiter(opts Options, now func() time.Time) *rateLimiter {
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = time.Minute
		for _, l := range []Limit{opts.ToolCalls, opts.Other} {
			if !l.unlimited() && l.Rate > 0 {
				opts.IdleTimeout = max(opts.IdleTimeout, time.Duration(float64(l.Burst)/float64(l.Rate)*float64(time.Second)))
			}
		}
	}
	rl := &rateLimiter{opts: opts, now: now, seed: maphash.MakeSeed()}
	rl.ic = rl.intercept
	for i := range rl.shards {
		rl.shards[i].callers = make(map[string]*callerBuckets)
	}
	return rl
}

func (rl *rateLimiter) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(mcp.WithInterceptor(r.Context(), rl.ic)))
	})
}

func (rl *rateLimiter) intercept(next mcp.CallHandler) mcp.CallHandler {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		if c.ID != nil { // notifications are not limited
			if err := rl.check(c.Request, c); err != nil {
				return nil, err
			}
		}
		return next(ctx, c)
	}
}

func (rl *rateLimiter) check(r *http.Request, c *mcp.Call) error {
	tools := c.Method == "tools/call"
	lim := rl.opts.Other
	if tools {
		lim = rl.opts.ToolCalls
	}
	if lim.unlimited() {
		return nil
	}
	key := rl.key(r, c)
	if key == "" {
		return nil
	}
	now := rl.now()
	sh := &rl.shards[maphash.String(rl.seed, key)%uint64(len(rl.shards))]
	sh.mu.Lock()
	cb := sh.callers[key]
	if cb == nil {
		cb = &callerBuckets{}
		sh.callers[key] = cb
		if !sh.armed {
			sh.armed = true
			time.AfterFunc(rl.opts.IdleTimeout, func() { rl.sweep(sh) })
		}
	}
	cb.last = now
	b := &cb.other
	if tools {
		b = &cb.tools
	}
	if *b == nil {
		*b = rate.NewLimiter(lim.Rate, lim.Burst)
	}
	ok := (*b).AllowN(now, 1)
	var wait time.Duration
	if !ok {
		wait = untilToken(*b, now)
	}
	sh.mu.Unlock()
	if ok {
		return nil
	}
	what := "requests"
	if tools {
		what = "tools/call"
	}
	return newRateLimitError(what, wait)
}

// untilToken is how long until bucket b holds a whole token again.
func untilToken(b *rate.Limiter, now time.Time) time.Duration {
	if b.Limit() <= 0 {
		return time.Duration(math.MaxInt64)
	}
	missing := 1 - b.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / float64(b.Limit()) * float64(time.Second))
}

// sweep drops the buckets of the shard's callers idle for IdleTimeout,
// and schedules itself again while any remain.
func (rl *rateLimiter) sweep(sh *rateShard) {
	cutoff := rl.now().Add(-rl.opts.IdleTimeout)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	for k, cb := range sh.callers {
		if !cb.last.After(cutoff) {
			delete(sh.callers, k)
		}
	}
	if len(sh.callers) == 0 {
		sh.callers = make(map[string]*callerBuckets) // a map never shrinks: let the old one go
		sh.armed = false
		return
	}
	time.AfterFunc(rl.opts.IdleTimeout, func() { rl.sweep(sh) })
}

// callers counts the callers holding buckets.
func (rl *rateLimiter) callers() int {
	n := 0
	for i := range rl.shards {
		sh := &rl.shards[i]
		sh.mu.Lock()
		n += len(sh.callers)
		sh.mu.Unlock()
	}
	return n
}

func (rl *rateLimiter) key(r *http.Request, c *mcp.Call) string {
	if rl.opts.Key != nil {
		return rl.opts.Key(r, c)
	}
	return DefaultKey(r, c)
}

// DefaultKey is the caller key [New] uses without Options.Key, by the
// identity rule of every caller comparison in mcpchain: "sub:" and the
// subject of auth data with a non-empty subject (mcp.Subject), else
// "addr:" and the remote host (an IPv6 address by its /64, which one host
// usually holds whole), else "local" for a request without a network
// connection (stdio, embedded). Auth data without a subject has no key of
// its own: its caller counts by address, as an anonymous one does.
func DefaultKey(r *http.Request, c *mcp.Call) string {
	if key, ok := identity.Key(c.Auth); ok {
		return key
	}
	if r.Context().Value(http.LocalAddrContextKey) == nil || r.RemoteAddr == "" {
		return "local"
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.To4() == nil {
		return "addr:" + ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return "addr:" + host
}

// Data is the data of a [CodeRateLimited] error.
type Data struct {
	// RetryAfter is the number of seconds to wait before a new request
	// can succeed (at least 1).
	RetryAfter int64 `json:"retryAfter"`
}

// rateLimitError is a refused request: a JSON-RPC error (mcp.Error),
// which over HTTP goes out as 429 with Retry-After (mcp.HTTPStatusError).
type rateLimitError struct {
	err    *mcp.Error
	header http.Header
}

func newRateLimitError(what string, wait time.Duration) *rateLimitError {
	secs := max(int64(math.Ceil(wait.Seconds())), 1)
	if wait == time.Duration(math.MaxInt64) {
		secs = math.MaxInt32
	}
	return &rateLimitError{
		err: &mcp.Error{
			Code:    CodeRateLimited,
			Message: fmt.Sprintf("Too Many Requests: the rate limit for %s is exceeded; retry after %d s", what, secs),
			Data:    Data{RetryAfter: secs},
		},
		header: http.Header{"Retry-After": {strconv.FormatInt(secs, 10)}},
	}
}

func (e *rateLimitError) Error() string           { return e.err.Error() }
func (e *rateLimitError) Unwrap() error           { return e.err }
func (e *rateLimitError) HTTPStatus() int         { return http.StatusTooManyRequests }
func (e *rateLimitError) HTTPHeader() http.Header { return e.header }
