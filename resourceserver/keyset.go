package resourceserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// keySet is the issuer's JWKS. It is fetched on first use and fetched
// again when a token does not verify with the keys held, which is how a
// provider's key rotation is followed. Every fetch, whatever caused it (a
// key id not yet seen, a published key id with a bad signature, a token
// that names no key, the first use, a retry after an outage), draws on one
// budget: fetchBurst at once, then one per fetchInterval. A flood of
// forged tokens therefore costs the provider one request per interval,
// and a key the provider adds is picked up within one interval. Callers
// that meet a fetch in flight wait for it instead of starting another.
type keySet struct {
	url string
	hc  *http.Client
	now func() time.Time

	mu       sync.Mutex
	keys     []jose.JSONWebKey
	gen      int // count of successful fetches: keys changed
	tokens   float64
	counted  time.Time // when tokens were last refilled
	inflight *fetchCall
}

type fetchCall struct {
	done chan struct{}
	err  error
}

const (
	fetchBurst    = 2
	fetchInterval = 15 * time.Second
	fetchTimeout  = 10 * time.Second
	maxKeys       = 100
)

// Errors of keySet.verify; anything else is an outage (keysUnavailable or
// a context error).
var (
	errUnknownKey = errors.New("the token names a key id the issuer's key set does not list")
	errBadSig     = errors.New("the signature does not verify with the issuer's keys")
)

func newKeySet(url string, hc *http.Client, now func() time.Time) *keySet {
	return &keySet{url: url, hc: hc, now: now, tokens: fetchBurst}
}

// verify checks the one signature of jws with the issuer's keys and
// returns the payload.
func (s *keySet) verify(ctx context.Context, jws *jose.JSONWebSignature) ([]byte, error) {
	h := jws.Signatures[0].Header
	s.mu.Lock()
	keys, gen := s.keys, s.gen
	s.mu.Unlock()
	if gen > 0 {
		if p, err := try(jws, keys, h.KeyID, h.Algorithm); err == nil {
			return p, nil
		}
	}
	keys, err := s.refresh(ctx, gen)
	switch {
	case errors.Is(err, errThrottled):
		if gen == 0 {
			// No key set was ever read: the provider is down (or was,
			// and the retry waits for the budget).
			return nil, &keysUnavailable{fmt.Errorf("GET %s: no key set read yet, and the next fetch is throttled", s.url)}
		}
	case err != nil:
		return nil, err
	default:
		if p, err := try(jws, keys, h.KeyID, h.Algorithm); err == nil {
			return p, nil
		}
	}
	if h.KeyID != "" && !hasKid(keys, h.KeyID) {
		return nil, errUnknownKey
	}
	return nil, errBadSig
}

var errThrottled = errors.New("key set refetch throttled")

// refresh returns keys newer than generation gen: those another caller
// fetched meanwhile, those of the fetch in flight, or those of a new
// fetch if the budget allows one (errThrottled, with the keys held,
// otherwise).
func (s *keySet) refresh(ctx context.Context, gen int) ([]jose.JSONWebKey, error) {
	s.mu.Lock()
	if s.gen != gen {
		keys := s.keys
		s.mu.Unlock()
		return keys, nil
	}
	if c := s.inflight; c != nil {
		s.mu.Unlock()
		select {
		case <-c.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.keys, c.err
	}
	now := s.now()
	if !s.counted.IsZero() {
		s.tokens = min(fetchBurst, s.tokens+now.Sub(s.counted).Seconds()/fetchInterval.Seconds())
	}
	s.counted = now
	if s.tokens < 1 {
		keys := s.keys
		s.mu.Unlock()
		return keys, errThrottled
	}
	s.tokens--
	c := &fetchCall{done: make(chan struct{})}
	s.inflight = c
	s.mu.Unlock()

	// The fetch is shared by every caller waiting for it: it is not
	// cancelled with the request that started it.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	keys, err := s.fetch(fctx)
	cancel()

	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.keys, s.gen = keys, s.gen+1
	}
	c.err = err
	s.inflight = nil
	close(c.done)
	return s.keys, err
}

// fetch reads the JWKS document. Keys that do not parse, private or
// symmetric keys and keys for encryption (use "enc") are left out, so
// one odd key does not cost the others; at most maxKeys are kept.
func (s *keySet) fetch(ctx context.Context) ([]jose.JSONWebKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, &keysUnavailable{err}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := s.hc.Do(req)
	if err != nil {
		var ku *keysUnavailable
		if errors.As(err, &ku) {
			return nil, ku
		}
		return nil, &keysUnavailable{err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataLen+1))
	if err != nil {
		return nil, &keysUnavailable{err}
	}
	if len(body) > maxMetadataLen {
		return nil, &keysUnavailable{fmt.Errorf("GET %s: the key set exceeds %d bytes", s.url, maxMetadataLen)}
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(body, &set); err != nil || set.Keys == nil {
		return nil, &keysUnavailable{fmt.Errorf("GET %s: not a JWKS document (a JSON object with keys)", s.url)}
	}
	keys := make([]jose.JSONWebKey, 0, min(len(set.Keys), maxKeys))
	for _, raw := range set.Keys {
		if len(keys) == maxKeys {
			break
		}
		var k jose.JSONWebKey
		if k.UnmarshalJSON(raw) != nil || !k.Valid() || !k.IsPublic() || (k.Use != "" && k.Use != "sig") {
			continue
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// try verifies jws with the keys that fit its kid (every key when it
// names none) and alg.
func try(jws *jose.JSONWebSignature, keys []jose.JSONWebKey, kid, alg string) ([]byte, error) {
	for i := range keys {
		k := &keys[i]
		if (kid != "" && k.KeyID != kid) || (k.Algorithm != "" && k.Algorithm != alg) {
			continue
		}
		if p, err := jws.Verify(k); err == nil {
			return p, nil
		}
	}
	return nil, errBadSig
}

func hasKid(keys []jose.JSONWebKey, kid string) bool {
	for _, k := range keys {
		if k.KeyID == kid {
			return true
		}
	}
	return false
}
