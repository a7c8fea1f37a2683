//go:build unix

package mcphttp

import (
	"net"
	"os"
	"syscall"
)

// takeQueued accepts, without waiting, every connection in ln's accept
// queue, and returns them. It uses the socket directly (Control does not
// take the read lock the server's blocked Accept holds); a connection the
// server's own Accept takes meanwhile is served as usual.
func takeQueued(ln net.Listener) []net.Conn {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	var fds []int
	_ = rc.Control(func(fd uintptr) {
		for {
			// ForkLock: the new descriptor must not leak into a process
			// started between the accept and CloseOnExec.
			syscall.ForkLock.RLock()
			nfd, _, err := syscall.Accept(int(fd))
			if err == nil {
				syscall.CloseOnExec(nfd)
			}
			syscall.ForkLock.RUnlock()
			switch err {
			case nil:
				fds = append(fds, nfd)
			case syscall.EINTR, syscall.ECONNABORTED:
			default: // EAGAIN: the queue is empty (the socket does not block)
				return
			}
		}
	})
	conns := make([]net.Conn, 0, len(fds))
	for _, nfd := range fds {
		f := os.NewFile(uintptr(nfd), "queued")
		c, err := net.FileConn(f) // a duplicate, set to non-blocking
		_ = f.Close()
		if err == nil {
			conns = append(conns, c)
		}
	}
	return conns
}
