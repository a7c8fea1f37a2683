//go:build !unix

package mcphttp

import "net"

// takeQueued takes nothing where the accept queue cannot be read without
// waiting: the connections in it are reset when the listener closes.
func takeQueued(net.Listener) []net.Conn { return nil }
