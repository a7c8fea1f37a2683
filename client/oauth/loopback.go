package oauth

import (
	"context"
	"crypto/subtle"
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
// under way and answers the browser that it may close the window. It
// takes only the redirect that carries the state of the authorization
// under way: any other request to the redirect path (a local process, a
// web page that found the port) is answered 400 and changes nothing.
type Loopback struct {
	ln   net.Listener
	srv  *http.Server
	path string

	mu      sync.Mutex
	pending *waiting // the authorization under way; nil when none
}

// waiting is an authorization under way: the state its URL sent, and
// where its redirect goes.
type waiting struct {
	state string
	ch    chan url.Values
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
	q := r.URL.Query()
	l.mu.Lock()
	p := l.pending
	ok := p != nil && subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(p.state)) == 1
	if ok {
		l.pending = nil // one redirect per authorization
	}
	l.mu.Unlock()
	switch {
	case p == nil:
		http.Error(w, "No authorization is under way.", http.StatusBadRequest)
		return
	case !ok:
		http.Error(w, "This redirect's state is not the one of the authorization under way: it is ignored.", http.StatusBadRequest)
		return
	}
	p.ch <- q
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, "<!doctype html><title>Authorized</title><p>You may close this window.</p>")
}

// Authorize returns the AuthorizeFunc that hands each authorization URL
// to open (which starts a browser, or prints the URL) and waits up to
// timeout for the redirect that carries the URL's state. An
// authorization URL without a state is refused.
func (l *Loopback) Authorize(open func(authURL string) error, timeout time.Duration) AuthorizeFunc {
	return func(ctx context.Context, authURL string) (url.Values, error) {
		u, err := url.Parse(authURL)
		if err != nil || u.Query().Get("state") == "" {
			return nil, errors.New("the authorization URL has no state: the redirect could not be told from a forged one")
		}
		p := &waiting{state: u.Query().Get("state"), ch: make(chan url.Values, 1)}
		l.mu.Lock()
		if l.pending != nil {
			l.mu.Unlock()
			return nil, errors.New("another authorization is under way")
		}
		l.pending = p
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			if l.pending == p {
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
		case q := <-p.ch:
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
