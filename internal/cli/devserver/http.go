package devserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// httpServer runs the server as an HTTP server (it listens where
// Config.URL says) and, with Config.ProxyAddr, a reverse proxy in front
// of it that logs every JSON-RPC request and holds requests while the
// server restarts.
type httpServer struct {
	cfg      Config
	log      *logger
	upstream *url.URL

	mu    sync.Mutex
	cmd   *exec.Cmd
	exit  chan struct{}
	gen   int
	ready chan struct{} // closed once the current server accepts connections

	srv *http.Server
}

func newHTTPServer(ctx context.Context, cfg Config, log *logger) (*httpServer, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--http %q: want the server's MCP URL, like http://127.0.0.1:8000/mcp", cfg.URL)
	}
	h := &httpServer{cfg: cfg, log: log, upstream: u, ready: make(chan struct{})}
	if cfg.ProxyAddr == "" {
		log.event("the server's URL is %s (add --proxy-port to log its requests)", u)
		return h, nil
	}
	ln, err := net.Listen("tcp", cfg.ProxyAddr)
	if err != nil {
		return nil, fmt.Errorf("--proxy-port: %w", err)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
			r.Out.Host = u.Host
		},
		FlushInterval:  -1, // pass SSE events on at once
		ModifyResponse: h.watchResponse,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			h.log.event("proxy: %s %s: %v", r.Method, r.URL.Path, err)
			http.Error(w, "mcpchain dev: the server is not reachable: "+err.Error(), http.StatusBadGateway)
		},
	}
	h.srv = &http.Server{Handler: h.hold(proxy), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = h.srv.Serve(ln) }()
	pu := *u
	pu.Host = ln.Addr().String()
	pu.Scheme = "http"
	log.event("proxy at %s → %s (requests are logged)", pu.String(), u)
	if cfg.Ready != nil {
		cfg.Ready(pu.String())
	}
	_ = ctx
	return h, nil
}

// hold waits (up to 30 s) for the server to be ready, so that a request
// sent during a restart reaches the new server instead of failing, and
// records each JSON-RPC request of a POST for the log.
func (h *httpServer) hold(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		ready := h.ready
		h.mu.Unlock()
		select {
		case <-ready:
		case <-time.After(30 * time.Second):
		case <-r.Context().Done():
			return
		}
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
			if err == nil {
				r.Body = io.NopCloser(bytes.NewReader(body))
				r.ContentLength = int64(len(body))
				reqs := map[string]*pending{}
				for _, e := range messages(body) {
					if e.isRequest() {
						reqs[idKey(e.ID)] = &pending{method: e.Method, name: e.name(), start: time.Now()}
					}
				}
				if len(reqs) > 0 {
					r = r.WithContext(context.WithValue(r.Context(), pendingKey{}, reqs))
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

type pendingKey struct{}

// messages reads a POST body: one message or a batch.
func messages(b []byte) []envelope {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var raws []json.RawMessage
		if json.Unmarshal(b, &raws) != nil {
			return nil
		}
		var out []envelope
		for _, r := range raws {
			if e, ok := parse(r); ok {
				out = append(out, e)
			}
		}
		return out
	}
	if e, ok := parse(b); ok {
		return []envelope{e}
	}
	return nil
}

// watchResponse logs the answers to the request's JSON-RPC requests as
// they pass: a JSON body, or the events of an SSE stream.
func (h *httpServer) watchResponse(resp *http.Response) error {
	reqs, _ := resp.Request.Context().Value(pendingKey{}).(map[string]*pending)
	if len(reqs) == 0 {
		return nil
	}
	if resp.StatusCode >= 300 {
		for _, p := range reqs {
			h.log.request(p.method, p.name, fmt.Sprintf("http %d", resp.StatusCode), time.Since(p.start))
		}
		return nil
	}
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		resp.Body = &sseTap{rc: resp.Body, log: h.log, reqs: reqs}
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return err
	}
	for _, e := range messages(body) {
		if p, ok := reqs[idKey(e.ID)]; ok && e.isResponse() {
			h.log.request(p.method, p.name, e.status(), time.Since(p.start))
		}
	}
	return nil
}

// sseTap reads an SSE stream as it passes and logs each answer to a
// pending request found in its data lines.
type sseTap struct {
	rc   io.ReadCloser
	log  *logger
	reqs map[string]*pending
	buf  []byte
	data bytes.Buffer
	mu   sync.Mutex
}

func (t *sseTap) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.mu.Lock()
	t.buf = append(t.buf, p[:n]...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimRight(string(t.buf[:i]), "\r")
		t.buf = t.buf[i+1:]
		switch {
		case strings.HasPrefix(line, "data:"):
			t.data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "":
			if e, ok := parse(t.data.Bytes()); ok && e.isResponse() {
				if p, ok := t.reqs[idKey(e.ID)]; ok {
					delete(t.reqs, idKey(e.ID))
					t.log.request(p.method, p.name, e.status(), time.Since(p.start))
				}
			}
			t.data.Reset()
		}
	}
	t.mu.Unlock()
	return n, err
}

func (t *sseTap) Close() error { return t.rc.Close() }

func (h *httpServer) restart(ctx context.Context, bin string) error {
	start := time.Now()
	h.mu.Lock()
	old, oldExit := h.cmd, h.exit
	if old != nil {
		h.ready = make(chan struct{}) // hold new requests until the new server is up
	}
	h.mu.Unlock()
	if old != nil {
		stopProcess(old, oldExit)
	}
	h.gen++
	cmd := exec.Command(bin, h.cfg.Args...)
	cmd.Dir = h.cfg.Dir
	cmd.Stdout = h.cfg.Stderr
	cmd.Stderr = h.cfg.Stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	exit := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exit) }()
	h.mu.Lock()
	h.cmd, h.exit = cmd, exit
	h.mu.Unlock()
	if err := waitListening(ctx, h.upstream.Host, exit); err != nil {
		return fmt.Errorf("server %d: %w", h.gen, err)
	}
	h.mu.Lock()
	select {
	case <-h.ready:
	default:
		close(h.ready)
	}
	h.mu.Unlock()
	ended := ""
	if old != nil {
		ended = "; the sessions of the previous server have ended (clients initialize again)"
	}
	h.log.event("server %d listening at %s (%s)%s", h.gen, h.upstream, round(time.Since(start)), ended)
	return nil
}

// waitListening waits until something accepts connections at host.
func waitListening(ctx context.Context, host string, exit <-chan struct{}) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", host, time.Second)
		if err == nil {
			_ = c.Close()
			return nil
		}
		select {
		case <-exit:
			return fmt.Errorf("exited before it listened at %s", host)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not listening at %s after 30 s", host)
		}
	}
}

func (h *httpServer) stop() {
	h.mu.Lock()
	cmd, exit := h.cmd, h.exit
	h.cmd = nil
	h.mu.Unlock()
	if cmd != nil {
		stopProcess(cmd, exit)
	}
	if h.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = h.srv.Shutdown(ctx)
		_ = h.srv.Close()
	}
}

func (h *httpServer) ended() <-chan struct{} { return nil }

func (h *httpServer) firstBuilt() {}
