package testport

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFreeHandsOutDistinctBindablePorts(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p, err := Free()
		require.NoError(t, err)
		require.GreaterOrEqual(t, p, low)
		require.Less(t, p, 32768, "below the kernel's ephemeral range")
		require.False(t, seen[p], "port %d handed out twice", p)
		seen[p] = true
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		require.NoError(t, err, "port %d must be bindable", p)
		require.NoError(t, l.Close())
	}
}

func TestFreeSkipsTakenPorts(t *testing.T) {
	// x is held by a listener and x+1 is free: the system picks x, and
	// another process may hold x+1 at that moment, so try a few.
	var x int
	for range 20 {
		held, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer held.Close()
		if x = held.Addr().(*net.TCPAddr).Port; bindable(x + 1) {
			break
		}
	}

	// [x, x+2): x is taken by a listener, so x+1 is the only answer.
	p, err := freeIn(x, x+2)
	require.NoError(t, err)
	require.Equal(t, x+1, p)
	// x+1 is now handed out, x still taken: nothing is left.
	_, err = freeIn(x, x+2)
	require.ErrorIs(t, err, ErrNoPort)
}
