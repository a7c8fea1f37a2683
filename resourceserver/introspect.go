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
)

// introspector verifies tokens with an RFC 7662 introspection endpoint,
// keeping positive answers in a bounded cache.
type introspector struct {
	cfg   IntrospectionConfig
	v     *Verifier
	cache *answerCache
}

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
	return &introspector{cfg: cfg, v: v, cache: newAnswerCache(cfg.CacheSize, v.cfg.Now)}, nil
}

func (in *introspector) verify(ctx context.Context, tok string) (*Session, error) {
	key := tokenKey(tok)
	if s, ok := in.cache.get(key); ok {
		return s, nil
	}
	c, err := in.ask(ctx, tok)
	if err != nil {
		return nil, err
	}
	s, err := in.v.checkClaims(c)
	if err != nil {
		return nil, err
	}
	until := in.v.cfg.Now().Add(in.cfg.CacheTTL)
	if s.Expiry.Before(until) {
		until = s.Expiry
	}
	in.cache.put(key, s, until)
	return s, nil
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
	if tt, ok := c.all["token_type"].(string); ok && tt != "" && !strings.EqualFold(tt, "Bearer") &&
		!strings.EqualFold(tt, "access_token") && !strings.HasSuffix(tt, ":access_token") {
		return nil, in.v.refuse("the token is not an access token", "introspection: token_type "+tt)
	}
	return c, nil
}

// answerCache is a size- and time-bounded cache of sessions keyed by
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
	s     *Session
	until time.Time
}

func newAnswerCache(size int, now func() time.Time) *answerCache {
	return &answerCache{size: size, now: now, ll: list.New(), m: map[[32]byte]*list.Element{}}
}

func (c *answerCache) get(k [32]byte) (*Session, bool) {
	if c.size <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.until) {
		c.ll.Remove(el)
		delete(c.m, k)
		return nil, false
	}
	c.ll.MoveToFront(el)
	return e.s, true
}

func (c *answerCache) put(k [32]byte, s *Session, until time.Time) {
	if c.size <= 0 || !c.now().Before(until) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.m[k]; ok {
		el.Value = &cacheEntry{k, s, until}
		c.ll.MoveToFront(el)
		return
	}
	c.m[k] = c.ll.PushFront(&cacheEntry{k, s, until})
	for c.ll.Len() > c.size {
		old := c.ll.Back()
		c.ll.Remove(old)
		delete(c.m, old.Value.(*cacheEntry).key)
	}
}
