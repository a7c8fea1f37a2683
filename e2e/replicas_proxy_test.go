package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundRobin is a reverse proxy that sends every request to the next
// replica: the worst case for sessions, since no two requests of a client
// in a row land on the same process.
//
// It fails over the way a deployment's balancer must (nginx's
// proxy_next_upstream error, HAProxy's redispatch): a request whose
// connection to a replica cannot be opened (the dial fails: connection
// refused, the process is gone) reached nothing, so it is sent to the next
// replica, and the replica is skipped for downFor. A request that reached a
// replica is never sent again, since a tools/call is not idempotent: if the
// replica dies before answering, the client gets 502 (no response header
// yet) or its stream is cut (the proxy aborts the client connection); either
// is a definite error.
//
// Each request has its own connection to its replica (no keep-alive
// pool), so a dead replica is always met at the dial.
//
// Request bodies are read whole before the request is sent on (they are
// small: the server's limit is 4 MiB). That is what makes the retries
// possible, and it is required anyway: net/http's HTTP/1 server closes a
// request's body once the handler starts its response, and the outbound
// Transport, having copied Content-Length bytes of a streamed body, reads it
// once more to check its end. When the replica answers fast (a resumable
// stream's headers and priming event come as soon as the request is
// parsed) that read comes after the close, fails with "http: invalid Read
// on closed Body", and the Transport drops the connection to the replica:
// the answer already streaming is cut ("ReverseProxy read error during body
// copy: use of closed network connection") and the client sees a stream
// that ended after an event ID without its response. The official Go SDK
// client with MaxRetries -1 then fails its whole session ("failed to
// reconnect ... connection aborted after 0 attempts"). That was the flake
// of the 200-client test with -resumable (about 1 run in 2 to 5): the test's
// proxy, not the server or the client (golang/go#40747); the test
// TestProxyKeepsStreamWhenBodyClosed pins it.
type roundRobin struct {
	targets   []*url.URL
	n         atomic.Int64   // requests received
	hits      []atomic.Int64 // requests sent to each replica, failovers included
	inflight  []atomic.Int64 // POSTs in flight to each replica
	downUntil []atomic.Int64 // UnixNano until which a replica is skipped
	failovers atomic.Int64   // requests sent on after a failed dial
	proxies   []*httputil.ReverseProxy
}

// downFor is how long a replica whose dial failed is left out of the rotation.
const downFor = 5 * time.Second

// dialFailedKey is the context key of the *bool the proxy's error handler
// sets when the dial to a replica failed.
type dialFailedKey struct{}

func newRoundRobin(t *testing.T, endpoints ...string) *roundRobin {
	t.Helper()
	// A connection per request, as nginx's default upstream: then a dead
	// replica is always met at the dial (refused), before anything was
	// written. A pooled connection to a replica that has just died would
	// take a request and fail it after writing it, which the proxy cannot
	// tell from a replica that died running it: 502, not a retry.
	tr := &http.Transport{DisableKeepAlives: true, DialContext: (&net.Dialer{Timeout: 2 * time.Second}).DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	rr := &roundRobin{
		hits:      make([]atomic.Int64, len(endpoints)),
		inflight:  make([]atomic.Int64, len(endpoints)),
		downUntil: make([]atomic.Int64, len(endpoints)),
	}
	for _, e := range endpoints {
		u, err := url.Parse(e)
		require.NoError(t, err)
		rr.targets = append(rr.targets, u)
		replica := strconv.Itoa(len(rr.proxies))
		rr.proxies = append(rr.proxies, &httputil.ReverseProxy{Transport: tr, FlushInterval: -1,
			// "read error during body copy" for every stream cut by a kill.
			ErrorLog: log.New(io.Discard, "", 0),
			Rewrite:  func(pr *httputil.ProxyRequest) { pr.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host}) },
			ModifyResponse: func(r *http.Response) error {
				r.Header.Set("X-Replica", replica) // which replica answered, for the test
				return nil
			},
			ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
				var op *net.OpError
				if errors.As(err, &op) && op.Op == "dial" {
					*r.Context().Value(dialFailedKey{}).(*bool) = true // sent on by ServeHTTP
					return
				}
				http.Error(w, "replica "+replica+": "+err.Error(), http.StatusBadGateway)
			}})
	}
	return rr
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4<<20))
	if err != nil {
		http.Error(w, "proxy: reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	first := rr.n.Add(1) - 1
	now := time.Now().UnixNano()
	for k := range len(rr.targets) {
		i := int((first + int64(k)) % int64(len(rr.targets)))
		if rr.downUntil[i].Load() > now && k < len(rr.targets)-1 {
			continue
		}
		dialFailed := false
		out := r.Clone(context.WithValue(r.Context(), dialFailedKey{}, &dialFailed))
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		if rr.serve(i, w, out); !dialFailed {
			return
		}
		rr.downUntil[i].Store(time.Now().Add(downFor).UnixNano())
		rr.failovers.Add(1)
	}
	http.Error(w, "proxy: no replica reachable", http.StatusBadGateway)
}

// serve sends r to replica i, counting it.
func (rr *roundRobin) serve(i int, w http.ResponseWriter, r *http.Request) {
	rr.hits[i].Add(1)
	if r.Method == http.MethodPost {
		rr.inflight[i].Add(1)
		defer rr.inflight[i].Add(-1) // also when the proxy aborts a cut stream (it panics)
	}
	rr.proxies[i].ServeHTTP(w, r)
}

// TestProxyKeepsStreamWhenBodyClosed pins the cause of the Go SDK client's
// 1-in-5 failure behind the test proxy with -resumable (see roundRobin).
// The backend reads the request, flushes a priming event, and sends the
// response 100 ms later, as a resumable MCP answer does. The proxy's
// inbound request behaves as net/http's HTTP/1 server makes it: its body
// is closed once the response starts, and here its end (EOF) comes 50 ms
// after its bytes, so that the Transport's check for the end of a streamed
// body comes after the close every time rather than now and then. A proxy
// that streams the body into the outbound request loses its connection to
// the backend and cuts the answer after the priming event; the roundRobin
// reads the body first and relays the whole answer.
func TestProxyKeepsStreamWhenBodyClosed(t *testing.T) {
	const msg = `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "id: s_0\ndata: \n\n")
		_ = http.NewResponseController(w).Flush()
		time.Sleep(100 * time.Millisecond)
		_, _ = fmt.Fprintf(w, "id: s_1\ndata: %s\n\n", body)
	}))
	t.Cleanup(backend.Close)
	rr := newRoundRobin(t, backend.URL)
	for _, tt := range []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request)
	}{
		{"roundRobin", rr.ServeHTTP},
		// The proxy as it was: the inbound body streamed into the outbound
		// request. It must fail here, or the test shows nothing.
		{"streamed body", func(w http.ResponseWriter, r *http.Request) {
			dialFailed := false
			rr.serve(0, w, r.WithContext(context.WithValue(r.Context(), dialFailedKey{}, &dialFailed)))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := &closableBody{data: []byte(msg), eofDelay: 50 * time.Millisecond}
			req := httptest.NewRequestWithContext(testContext(t, 5*time.Second), http.MethodPost, "/mcp", body)
			req.ContentLength = int64(len(msg))
			rec := &closingRecorder{ResponseRecorder: httptest.NewRecorder(), body: body}
			tt.serve(rec, req)
			want := "id: s_0\ndata: \n\nid: s_1\ndata: " + msg + "\n\n"
			if tt.name == "streamed body" {
				assert.Equal(t, "id: s_0\ndata: \n\n", rec.Body.String(), "the streamed body's proxy cuts the answer")
				return
			}
			assert.Equal(t, want, rec.Body.String())
		})
	}
}

// closableBody is a request body whose bytes come at once and whose end
// comes eofDelay later; once closed, reads fail as net/http's do.
type closableBody struct {
	data     []byte
	off      int
	eofDelay time.Duration
	closed   atomic.Bool
}

func (b *closableBody) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errors.New("http: invalid Read on closed Body")
	}
	if b.off < len(b.data) {
		n := copy(p, b.data[b.off:])
		b.off += n
		return n, nil
	}
	time.Sleep(b.eofDelay)
	if b.closed.Load() {
		return 0, errors.New("http: invalid Read on closed Body")
	}
	return 0, io.EOF
}

func (b *closableBody) Close() error {
	b.closed.Store(true)
	return nil
}

// closingRecorder closes the request body when the response starts, as
// net/http's HTTP/1 server does (it drains and closes what the handler has
// not read once the response header is written).
type closingRecorder struct {
	*httptest.ResponseRecorder
	body *closableBody
}

func (r *closingRecorder) WriteHeader(code int) {
	r.body.closed.Store(true)
	r.ResponseRecorder.WriteHeader(code)
}

func (r *closingRecorder) Write(p []byte) (int, error) {
	r.body.closed.Store(true)
	return r.ResponseRecorder.Write(p)
}
