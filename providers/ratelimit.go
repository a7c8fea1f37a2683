package providers

import (
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimit is a token bucket per client address: PerMinute requests a
// minute on average, Burst at once. The zero value means the default of
// the endpoint it limits; a negative PerMinute turns the limit off.
type RateLimit struct {
	PerMinute float64
	Burst     int
}

// Default limits per client address of the endpoints anyone may call
// without logging in. A real client registers once and starts a login or
// two; a flood from one address is cut to a trickle.
var (
	DefaultRegisterRateLimit  = RateLimit{PerMinute: 10, Burst: 20}
	DefaultAuthorizeRateLimit = RateLimit{PerMinute: 30, Burst: 30}
)

// maxLimiterAddrs bounds the addresses a limiter tracks: beyond it, the
// idle ones are dropped, and if none is idle new addresses share one
// bucket (an attacker with that many addresses limits only itself and
// other newcomers, never the records already stored).
const maxLimiterAddrs = 100_000

// addrLimiter limits requests per client address.
type addrLimiter struct {
	lim   RateLimit
	key   func(*http.Request) string
	idle  time.Duration
	now   func() time.Time
	mu    sync.Mutex
	addrs map[string]*addrBucket
	armed bool
}

type addrBucket struct {
	b    *rate.Limiter
	last time.Time
}

func newAddrLimiter(l, def RateLimit, key func(*http.Request) string, now func() time.Time) *addrLimiter {
	if l.PerMinute == 0 && l.Burst == 0 {
		l = def
	}
	if l.PerMinute < 0 {
		return nil
	}
	if l.Burst <= 0 {
		l.Burst = 1
	}
	if key == nil {
		key = ClientAddress
	}
	// A bucket idle this long is full again: dropping it changes nothing.
	idle := max(time.Minute, time.Duration(float64(l.Burst)/l.PerMinute*float64(time.Minute)))
	return &addrLimiter{lim: l, key: key, idle: idle, now: now, addrs: map[string]*addrBucket{}}
}

// allow takes a token of r's address; when it reports false, wait is how
// long until a token is back, and addr the address refused (for the log).
func (a *addrLimiter) allow(r *http.Request) (ok bool, wait time.Duration, addr string) {
	if a == nil {
		return true, 0, ""
	}
	k := a.key(r)
	addr = k
	if k == "" {
		return true, 0, ""
	}
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	ab := a.addrs[k]
	if ab == nil {
		if len(a.addrs) >= maxLimiterAddrs {
			a.sweepLocked(now)
			if len(a.addrs) >= maxLimiterAddrs {
				k = "overflow"
				ab = a.addrs[k]
			}
		}
		if ab == nil {
			ab = &addrBucket{b: rate.NewLimiter(rate.Limit(a.lim.PerMinute/60), a.lim.Burst)}
			a.addrs[k] = ab
		}
		if !a.armed {
			a.armed = true
			time.AfterFunc(a.idle, a.sweep)
		}
	}
	ab.last = now
	if ab.b.AllowN(now, 1) {
		return true, 0, addr
	}
	missing := 1 - ab.b.TokensAt(now)
	return false, time.Duration(missing / float64(ab.b.Limit()) * float64(time.Second)), addr
}

func (a *addrLimiter) sweep() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sweepLocked(a.now())
	if len(a.addrs) == 0 {
		a.addrs = map[string]*addrBucket{} // a map never shrinks: let the old one go
		a.armed = false
		return
	}
	time.AfterFunc(a.idle, a.sweep)
}

func (a *addrLimiter) sweepLocked(now time.Time) {
	for k, ab := range a.addrs {
		if now.Sub(ab.last) >= a.idle {
			delete(a.addrs, k)
		}
	}
}

// refuse answers a rate-limited request: 429 with Retry-After.
func refuse(w http.ResponseWriter, wait time.Duration, json bool) {
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	const desc = "too many requests from this address; retry later"
	if json {
		oauthError(w, http.StatusTooManyRequests, "temporarily_unavailable", desc)
		return
	}
	http.Error(w, desc, http.StatusTooManyRequests)
}

// ClientAddress is the default key of the proxy's rate limits: the host
// of the request's remote address, an IPv6 address by its /64 (which one
// host usually holds whole). Behind a reverse proxy every request has the
// proxy's address: set Config.ClientAddress to read the address it
// forwards. A request without a remote host counts as "unknown".
func ClientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if host == "" {
		return "unknown" // never "", which would exempt the request
	}
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return host
}

// ForwardedClientAddress returns a Config.ClientAddress for a server
// behind a reverse proxy on the same host: for a request from a loopback
// address (the proxy) it reads the last address of header (the one the
// proxy appended to X-Forwarded-For, say), and otherwise, or when the
// header holds no address, it is ClientAddress. A client cannot choose
// its key by sending the header itself: only the proxy's last entry is
// read, and only from loopback.
func ForwardedClientAddress(header string) func(*http.Request) string {
	return func(r *http.Request) string {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return ClientAddress(r)
		}
		vals := r.Header.Values(header)
		if len(vals) == 0 {
			return ClientAddress(r)
		}
		last := vals[len(vals)-1]
		if i := strings.LastIndexByte(last, ','); i >= 0 {
			last = last[i+1:]
		}
		last = strings.TrimSpace(last)
		if net.ParseIP(last) == nil {
			return ClientAddress(r)
		}
		return ClientAddress(&http.Request{RemoteAddr: net.JoinHostPort(last, "0")})
	}
}
