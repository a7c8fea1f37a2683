package providers

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestAddrLimiter(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	now.Store(time.Unix(1000, 0).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	a := newAddrLimiter(RateLimit{PerMinute: 60, Burst: 2}, DefaultRegisterRateLimit, nil, clock)
	req := func(addr string) *http.Request { return &http.Request{RemoteAddr: addr, Header: http.Header{}} }
	for i := range 2 {
		ok, _, _ := a.allow(req("192.0.2.1:5000"))
		assert.True(t, ok, "burst %d", i)
	}
	ok, wait, addr := a.allow(req("192.0.2.1:5001"))
	assert.False(t, ok, "the same host on another port shares the bucket")
	assert.Equal(t, "192.0.2.1", addr)
	assert.InDelta(t, time.Second.Seconds(), wait.Seconds(), 0.01, "one a second: a token is back in a second")
	ok, _, _ = a.allow(req("192.0.2.2:5000"))
	assert.True(t, ok, "another address has its own bucket")
	ok, _, addr = a.allow(req("[2001:db8::1]:1"))
	assert.True(t, ok)
	assert.Equal(t, "2001:db8::/64", addr, "an IPv6 address counts by its /64")
	ok, _, _ = a.allow(req("[2001:db8::2]:1"))
	assert.True(t, ok)
	ok, _, _ = a.allow(req("[2001:db8::3]:1"))
	assert.False(t, ok, "the /64 shares one bucket")
	now.Add(int64(time.Second))
	ok, _, _ = a.allow(req("192.0.2.1:5000"))
	assert.True(t, ok, "refilled")

	a.mu.Lock()
	n := len(a.addrs)
	a.mu.Unlock()
	assert.Equal(t, 4, n, "two IPv4 addresses, a /64 and its /48")
	now.Add(int64(a.idle))
	a.sweep()
	a.mu.Lock()
	n = len(a.addrs)
	a.mu.Unlock()
	assert.Equal(t, 0, n, "idle buckets are dropped")

	assert.Nil(t, newAddrLimiter(RateLimit{PerMinute: -1}, DefaultRegisterRateLimit, nil, clock), "off")
	ok, _, _ = (*addrLimiter)(nil).allow(req("192.0.2.1:1"))
	assert.True(t, ok)
	d := newAddrLimiter(RateLimit{}, DefaultRegisterRateLimit, nil, clock)
	assert.Equal(t, DefaultRegisterRateLimit, d.lim, "the zero value is the default")
}

// Issue 31, hole 2: an IPv6 site's 65,536 /64s are not as many buckets:
// its /48 has one too, at wideFactor times the limit of one address.
func TestAddrLimiterCountsAWholeIPv6Site(t *testing.T) {
	t.Parallel()
	var now atomic.Int64
	now.Store(time.Unix(1000, 0).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	a := newAddrLimiter(RateLimit{PerMinute: 60, Burst: 2}, DefaultAuthorizeRateLimit, nil, clock)
	req := func(addr string) *http.Request { return &http.Request{RemoteAddr: addr, Header: http.Header{}} }
	allowed := 0
	var wait time.Duration
	for n := range 100 {
		// Each request from another /64 of 2001:db8:1::/48.
		ok, w, _ := a.allow(req(fmt.Sprintf("[2001:db8:1:%x::1]:443", n)))
		if ok {
			allowed++
		} else {
			wait = w
		}
	}
	assert.Equal(t, 2*wideFactor, allowed, "the /48 has the burst of %d addresses", wideFactor)
	assert.InDelta(t, (time.Second / wideFactor).Seconds(), wait.Seconds(), 0.01, "its tokens come back %d times as fast", wideFactor)
	ok, _, _ := a.allow(req("[2001:db8:2::1]:443"))
	assert.True(t, ok, "another /48 has its own bucket")
	ok, _, _ = a.allow(req("192.0.2.1:443"))
	assert.True(t, ok, "IPv4 addresses count alone")
	// A refused /48 takes no token of the /64 either.
	now.Add(int64(time.Second / wideFactor))
	ok, _, _ = a.allow(req("[2001:db8:1:ffff::1]:443"))
	assert.True(t, ok, "a token of the /48 is back")

	for key, want := range map[string]string{
		"2001:db8:1:2::/64":   "2001:db8:1::/48",
		"2001:db8:1:2::7":     "2001:db8:1::/48",
		"fe80::1%eth0":        "fe80::/48",
		"2001:db8::/48":       "",
		"2001:db8::/32":       "",
		"192.0.2.1":           "",
		"::ffff:192.0.2.1":    "",
		"unknown":             "",
		"tenant:2001:db8::1":  "",
		"2001:db8:1:2::/64/x": "",
	} {
		assert.Equal(t, want, widePrefix(key), key)
	}
}

func TestForwardedClientAddress(t *testing.T) {
	t.Parallel()
	key := ForwardedClientAddress("X-Forwarded-For")
	for _, tt := range []struct {
		remote, xff, want string
	}{
		{"127.0.0.1:4000", "203.0.113.9", "203.0.113.9"},
		{"127.0.0.1:4000", "198.51.100.1, 203.0.113.9", "203.0.113.9"}, // the proxy's entry is the last
		{"127.0.0.1:4000", "", "127.0.0.1"},
		{"127.0.0.1:4000", "not-an-ip", "127.0.0.1"},
		{"[::1]:4000", "2001:db8::7", "2001:db8::/64"},
		{"192.0.2.5:4000", "203.0.113.9", "192.0.2.5"},          // not from the proxy: the header is ignored
		{"127.0.0.1:4000", "::ffff:203.0.113.9", "203.0.113.9"}, // an IPv4-mapped address is the IPv4 one
	} {
		r := &http.Request{RemoteAddr: tt.remote, Header: http.Header{}}
		if tt.xff != "" {
			r.Header.Set("X-Forwarded-For", tt.xff)
		}
		assert.Equal(t, tt.want, key(r), "%s %q", tt.remote, tt.xff)
	}
}
