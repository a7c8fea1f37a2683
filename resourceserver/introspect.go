package resourceserver

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
)

// introspector verifies tokens with an RFC 7662 introspection endpoint.
// Answers are cached by token hash: positive ones for CacheTTL (never
// past exp), refusals (inactive, another audience…) for a short time in a
// cache of their own, so garbage cannot evict good answers. Requests
// with one token at once share one call, and one limiter bounds all
// calls, so a flood of garbage tokens is not a flood of calls.
type introspector struct {
	cfg    IntrospectionConfig
	v      *Verifier
	cache  *answerCache // positive answers
	neg    *answerCache // refusals
	negTTL time.Duration
	limit  *bucket // nil: no limit

	mu    sync.Mutex
	calls map[[32]byte]*introCall
}

type introCall struct {
	done chan struct{}
	s    *Session
	err  error
}

const (
	defaultIntroRate  = 20
	negativeTTL       = 10 * time.Second
	introspectTimeout = 10 * time.Second
)

func newIntrospector(cfg IntrospectionConfig, v *Verifier) (*introspector, error) {
	if u, err := url.Parse(cfg.Endpoint); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("resourceserver: the introspection endpoint %q is not an absolute http(s) URL", cfg.Endpoint)
	}
	if cfg.CacheSize == 0 {
		cfg.CacheSize = 1000
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = time.Minute
	}
	if cfg.CacheTTL < 0 {
		return nil, errors.New("resourceserver: Config.Introspection.CacheTTL is negative")
	}
	if cfg.RateLimit == 0 {
		cfg.RateLimit = defaultIntroRate
	}
	in := &introspector{cfg: cfg, v: v, cache: newAnswerCache(cfg.CacheSize, v.cfg.Now),
		neg: newAnswerCache(cfg.CacheSize, v.cfg.Now), negTTL: min(cfg.CacheTTL, negativeTTL),
		calls: map[[32]byte]*introCall{}}
	if cfg.RateLimit > 0 {
		in.limit = newBucket(cfg.RateLimit, max(cfg.RateLimit, 1), v.cfg.Now)
	}
	return in, nil
}

func (in *introspector) verify(ctx context.Context, tok string) (*Session, error) {
	key := tokenKey(tok)
	if e, ok := in.cache.get(key); ok {
		return e.s, nil
	}
	if e, ok := in.neg.get(key); ok {
		return nil, e.err
	}
	in.mu.Lock()
	if c := in.calls[key]; c != nil {
		in.mu.Unlock()
		select {
		case <-c.done:
			return c.s, c.err
		case <-ctx.Done():
			return nil, in.v.unavailable("waiting for the introspection endpoint", ctx.Err())
		}
	}
	if in.limit != nil && !in.limit.take() {
		in.mu.Unlock()
		return nil, in.v.unavailable("calling the introspection endpoint",
			fmt.Errorf("more than %g calls per second (Config.Introspection.RateLimit)", in.cfg.RateLimit))
	}
	c := &introCall{done: make(chan struct{})}
	in.calls[key] = c
	in.mu.Unlock()

	// The call is shared by the requests waiting for it: it is not
	// cancelled with the one that started it.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), introspectTimeout)
	c.s, c.err = in.introspect(cctx, key, tok)
	cancel()

	in.mu.Lock()
	delete(in.calls, key)
	in.mu.Unlock()
	close(c.done)
	return c.s, c.err
}

// introspect asks the endpoint about tok and caches the answer: a
// session until CacheTTL or exp, a refusal for negTTL, an outage not at
// all.
func (in *introspector) introspect(ctx context.Context, key [32]byte, tok string) (*Session, error) {
	c, err := in.ask(ctx, tok)
	if err == nil {
		var s *Session
		if s, err = in.v.checkClaims(c); err == nil {
			until := in.v.cfg.Now().Add(in.cfg.CacheTTL)
			if s.Expiry.Before(until) {
				until = s.Expiry
			}
			in.cache.put(key, cached{s: s}, until)
			return s, nil
		}
	}
	if errors.Is(err, mcp.ErrInvalidToken) {
		in.neg.put(key, cached{err: err}, in.v.cfg.Now().Add(in.negTTL))
	}
	return nil, err
}

// ask posts the token to the endpoint and decodes the answer; an
// inactive token is refused here.
func (in *introspector) ask(ctx context.Context, tok string) (*claims, error) {
	form := url.Values{"token": {tok}, "token_type_hint": {"access_token"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.cfg.Endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, in.v.unavailable("building the introspection request", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if in.cfg.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(in.cfg.ClientID), url.QueryEscape(in.cfg.ClientSecret))
	}
	resp, err := in.v.hc.Do(req)
	if err != nil {
		return nil, in.v.unavailable("calling the introspection endpoint", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, in.v.unavailable("calling the introspection endpoint",
			fmt.Errorf("%s answered %s (check Config.Introspection.ClientID and ClientSecret)", in.cfg.Endpoint, resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxClaimsLen+1))
	if err != nil {
		return nil, in.v.unavailable("reading the introspection answer", err)
	}
	return in.decode(body)
}

// decode reads an introspection answer (RFC 7662 §2.2): active must be
// the JSON true; everything else is the token's claims.
func (in *introspector) decode(body []byte) (*claims, error) {
	c, err := parseClaims(body)
	if err != nil {
		return nil, in.v.unavailable("decoding the introspection answer", err)
	}
	if active, _ := c.all["active"].(bool); !active {
		return nil, in.v.refuse("the access token is not active (expired, revoked or unknown)", "introspection: active is not true")
	}
	if c.Iss == "" {
		// RFC 7662 makes iss optional; the endpoint is the issuer's own.
		c.Iss = in.v.cfg.Issuer
	}
	tt, _ := c.all["token_type"].(string)
	if tt != "" && !strings.EqualFold(tt, "Bearer") && !strings.EqualFold(tt, "DPoP") &&
		!strings.EqualFold(tt, "access_token") && !strings.HasSuffix(tt, ":access_token") {
		return nil, in.v.refuse("the token is not an access token", "introspection: token_type "+tt)
	}
	if strings.EqualFold(tt, "DPoP") && c.Jkt == "" {
		// RFC 9449 §6.2: the answer for a DPoP token names its key; one
		// that does not leaves nothing to check the proof against.
		return nil, in.v.refuse("the token is a DPoP token whose key the authorization server does not name",
			"introspection: token_type DPoP without cnf.jkt")
	}
	return c, nil
}

// cached is an answer: a session, or the refusal.
type cached struct {
	s   *Session
	err error
}

// answerCache is a size- and time-bounded cache of answers keyed by
// token hash: least recently used out first, each entry gone at its own
// deadline (never later than the token's exp).
type answerCache struct {
	size int
	now  func() time.Time
	mu   sync.Mutex
	ll   *list.List
	m    map[[32]byte]*list.Element
}

type cacheEntry struct {
	key   [32]byte
	a     cached
	until time.Time
}

func newAnswerCache(size int, now func() time.Time) *answerCache {
	return &answerCache{size: size, now: now, ll: list.New(), m: map[[32]byte]*list.Element{}}
}

func (c *answerCache) get(k [32]byte) (cached, bool) {
	if c.size <= 0 {
		return cached{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		return cached{}, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.until) {
		c.ll.Remove(el)
		delete(c.m, k)
		return cached{}, false
	}
	c.ll.MoveToFront(el)
	return e.a, true
}

func (c *answerCache) put(k [32]byte, a cached, until time.Time) {
	if c.size <= 0 || !c.now().Before(until) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		el.Value = &cacheEntry{k, a, until}
		c.ll.MoveToFront(el)
		return
	}
	c.m[k] = c.ll.PushFront(&cacheEntry{k, a, until})
	for c.ll.Len() > c.size {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.m, old.Value.(*cacheEntry).key)
	}
}

// bucket is a token bucket: rate tokens a second, at most burst held.
type bucket struct {
	rate, burst float64
	now         func() time.Time
	mu          sync.Mutex
	tokens      float64
	last        time.Time
}

func newBucket(rate, burst float64, now func() time.Time) *bucket {
	return &bucket{rate: rate, burst: burst, now: now, tokens: burst}
}

// take reports whether a token was there, and takes it.
func (b *bucket) take() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if !b.last.IsZero() && now.After(b.last) {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	if b.last.IsZero() || now.After(b.last) {
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
