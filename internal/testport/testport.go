// Package testport hands out loopback TCP ports to tests that start a
// server as a process of its own and must name its port on the command line
// (redis-server, an example binary whose issuer URL holds its port).
//
// Asking the kernel for port 0 and closing the listener before the server
// binds is racy where tests run in parallel: the kernel gives outgoing
// connections ports from the same ephemeral range (32768-60999 on Linux), so
// any client connection may take the port in between. Ports from here come
// from a range below it, are checked free on 127.0.0.1 and are not handed out
// twice by one process; tests in other processes pick at random over
// thousands of ports.
package testport

import (
	"errors"
	"math/rand/v2"
	"net"
	"strconv"
	"sync"
)

// The range ports are handed out from.
const (
	low  = 10000
	high = 22000
)

var (
	mu   sync.Mutex
	used = map[int]bool{}
)

// ErrNoPort is returned when no free port was found.
var ErrNoPort = errors.New("testport: no free port on 127.0.0.1")

// Free returns a port free on 127.0.0.1 just now.
func Free() (int, error) { return freeIn(low, high) }

// freeIn picks at random in [lo, hi) and gives up after four tries per
// port of the range.
func freeIn(lo, hi int) (int, error) {
	mu.Lock()
	defer mu.Unlock()
	// From a random start, every port of the range once: random enough to
	// keep concurrent test binaries apart, and a free port is always found.
	start := rand.IntN(hi - lo)
	for i := range hi - lo {
		p := lo + (start+i)%(hi-lo)
		if used[p] || !bindable(p) {
			continue
		}
		used[p] = true
		return p, nil
	}
	return 0, ErrNoPort
}

func bindable(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}
