package providers

import (
	"math"
	"net"
	"net/http"
	"net/netip"
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

// DefaultRefreshRateLimit is the default of Config.RefreshRateLimit:
// refreshes per login. A client refreshes about once an access token
// lifetime (an hour); this is hundreds of times that.
var DefaultRefreshRateLimit = RateLimit{PerMinute: 6, Burst: 12}

// maxLimiterAddrs bounds the addresses a limiter tracks: beyond it, the
// idle ones are dropped, and if none is idle new addresses share one
// bucket (an attacker with that many addresses limits only itself and
// other newcomers, never the records already stored).
const maxLimiterAddrs = 100_000

// wideFactor is how many times the per-address limit the bucket of a
// whole IPv6 /48 allows (see widePrefix).
const wideFactor = 4

// addrLimiter limits requests per client address and, for IPv6, per /48
// as well.
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
	// A bucket idle this long is full again: dropping it changes nothing
	// (a /48 bucket fills in the same time: rate and burst are both
	// wideFactor times the address's).
	idle := max(time.Minute, time.Duration(float64(l.Burst)/l.PerMinute*float64(time.Minute)))
	return &addrLimiter{lim: l, key: key, idle: idle, now: now, addrs: map[string]*addrBucket{}}
}

// allow takes a token of r's address, and of its /48 when it is an IPv6
// one (both or neither); when it reports false, wait is how long until a
// token is back, and addr the address refused (for the log).
func (a *addrLimiter) allow(r *http.Request) (ok bool, wait time.Duration, addr string) {
	if a == nil {
		return true, 0, ""
	}
	return a.allowKey(a.key(r))
}

// allowKey is allow for a key given (the client address, or another
// name of what is limited; "" is exempt).
func (a *addrLimiter) allowKey(k string) (ok bool, wait time.Duration, addr string) {
	if a == nil {
		return true, 0, ""
	}
	addr = k
	if k == "" {
		return true, 0, ""
	}
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	buckets := []*addrBucket{a.bucket(k, 1, now)}
	if wide := widePrefix(k); wide != "" {
		buckets = append(buckets, a.bucket(wide, wideFactor, now))
	}
	for _, ab := range buckets {
		if missing := 1 - ab.b.TokensAt(now); missing > 0 {
			wait = max(wait, time.Duration(missing/float64(ab.b.Limit())*float64(time.Second)))
		}
	}
	if wait > 0 {
		return false, wait, addr
	}
	for _, ab := range buckets {
		ab.b.AllowN(now, 1)
	}
	return true, 0, addr
}

// bucket returns the bucket of key (factor times the limit), made if
// new; a.mu is held.
func (a *addrLimiter) bucket(k string, factor int, now time.Time) *addrBucket {
	ab := a.addrs[k]
	if ab == nil {
		if len(a.addrs) >= maxLimiterAddrs {
			a.sweepLocked(now)
			if len(a.addrs) >= maxLimiterAddrs {
				k = "overflow/" + strconv.Itoa(factor)
				ab = a.addrs[k]
			}
		}
		if ab == nil {
			ab = &addrBucket{b: rate.NewLimiter(rate.Limit(a.lim.PerMinute*float64(factor)/60), a.lim.Burst*factor)}
			a.addrs[k] = ab
		}
		if !a.armed {
			a.armed = true
			time.AfterFunc(a.idle, a.sweep)
		}
	}
	ab.last = now
	return ab
}

// widePrefix is the IPv6 /48 of a client address key ("2001:db8:1::/48"
// for "2001:db8:1:2::/64" or an address in it), or "" for any other key.
//
// Why /48: a /64 is one network, which one host usually holds whole, so
// it is the per-address key; but an attacker can hold many. A /48 is
// what an end site is delegated at most (RFC 6177; RIR policies give one
// to an organisation, and tunnel brokers and some hosting providers give
// one to anyone for free): 65,536 /64s, which would be as many buckets.
// Prefixes wider than a /48 hold many unrelated sites (a /32 is an ISP),
// so they are not counted together. A residential ISP that delegates /56s
// puts up to 256 customers in one /48: they share wideFactor times the
// limit of one address, which is far above what users starting sign-ins
// ever need, while one attacker's /48 gets no more than wideFactor
// addresses' worth.
func widePrefix(key string) string {
	var a netip.Addr
	if pfx, err := netip.ParsePrefix(key); err == nil {
		a = pfx.Addr()
		if pfx.Bits() <= 48 {
			return ""
		}
	} else if a, err = netip.ParseAddr(key); err != nil {
		return ""
	}
	if !a.Is6() || a.Is4In6() {
		return ""
	}
	w, err := a.WithZone("").Prefix(48)
	if err != nil {
		return ""
	}
	return w.String()
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
// host usually holds whole). For an IPv6 key the limits also count the
// whole /48 it is in, at a few times the limit of one address, so that
// the 65,536 /64s of one site are not as many buckets. Behind a reverse proxy every request has the
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
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return host
	case ip.To4() != nil:
		return ip.To4().String() // ::ffff:192.0.2.1 is 192.0.2.1
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
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
