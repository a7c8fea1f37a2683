package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Loopback is the redirect listener of a command-line program (RFC 8252
// §7.3): an HTTP server on 127.0.0.1 at a port the system picks, which
// takes the authorization server's redirect of the one authorization
// under way and answers the browser that it may close the window.
type Loopback struct {
	ln   net.Listener
	srv  *http.Server
	path string

	mu      sync.Mutex
	pending chan url.Values // the authorization under way's; nil when none
}

// ListenLoopback starts a Loopback whose redirect URL has path (default
// "/callback").
func ListenLoopback(path string) (*Loopback, error) {
	if path == "" {
		path = "/callback"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	l := &Loopback{ln: ln, path: path}
	l.srv = &http.Server{Handler: http.HandlerFunc(l.serve), ReadHeaderTimeout: 10 * time.Second}
	go l.srv.Serve(ln) //nolint:errcheck // ends with Close
	return l, nil
}

// RedirectURL is the URL to register and to put in Config.RedirectURL.
func (l *Loopback) RedirectURL() string {
	return fmt.Sprintf("http://%s%s", l.ln.Addr(), l.path)
}

func (l *Loopback) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != l.path || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	l.mu.Lock()
	ch := l.pending
	l.pending = nil // one redirect per authorization
	l.mu.Unlock()
	if ch == nil {
		http.Error(w, "No authorization is under way.", http.StatusBadRequest)
		return
	}
	ch <- r.URL.Query()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<!doctype html><title>Authorized</title><p>You may close this window.</p>")
}

// Authorize returns the AuthorizeFunc that hands each authorization URL
// to open (which starts a browser, or prints the URL) and waits up to
// timeout for the redirect.
func (l *Loopback) Authorize(open func(authURL string) error, timeout time.Duration) AuthorizeFunc {
	return func(ctx context.Context, authURL string) (url.Values, error) {
		ch := make(chan url.Values, 1)
		l.mu.Lock()
		if l.pending != nil {
			l.mu.Unlock()
			return nil, errors.New("another authorization is under way")
		}
		l.pending = ch
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			if l.pending == ch {
				l.pending = nil
			}
			l.mu.Unlock()
		}()
		if err := open(authURL); err != nil {
			return nil, err
		}
		t := time.NewTimer(timeout)
		defer t.Stop()
		select {
		case q := <-ch:
			return q, nil
		case <-t.C:
			return nil, fmt.Errorf("no redirect to %s within %v", l.RedirectURL(), timeout)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close stops the listener.
func (l *Loopback) Close() error { return l.srv.Close() }
