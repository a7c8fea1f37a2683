package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/stdio"
)

// TransportType names the transport [Start] serves; the values are the
// seed's transportType spellings.
type TransportType string

// The transports of [StartOptions].
const (
	TransportStdio      TransportType = "stdio"      // newline-delimited JSON-RPC on stdin and stdout
	TransportHTTPStream TransportType = "httpStream" // Streamable HTTP on Host:Port
)

// StartOptions configure [Start]. The zero value serves stdio.
type StartOptions struct {
	// TransportType is TransportStdio (the default, also for "") or
	// TransportHTTPStream.
	TransportType TransportType
	// Host to listen on (httpStream). Default 0.0.0.0. Clients may reach
	// the server by loopback names, by the address they connected to, and
	// by the names in Handler.Allow.Hosts (the DNS-rebinding check; see
	// [Options].Allow); Start adds the entries of the MCP_ALLOWED_HOSTS
	// environment variable (comma-separated, as "mcp.example.com,
	// *.tenants.example") and Host itself when it is a name.
	Host string
	// Port to listen on (httpStream). Default 8000; use -1 for any free port.
	Port int
	// Endpoint is the path of the MCP endpoint (httpStream). Default /mcp.
	Endpoint string
	// Handler configures the protocol engine (stateless, JSON responses,
	// limits, allowed origins).
	Handler *Options
	// Middleware wraps the MCP endpoint inside authentication, on every
	// transport (HTTP, stdio, embedded): a value it puts in the request
	// context reaches the tools, and the caller's auth data is already
	// there.
	Middleware []func(http.Handler) http.Handler
	// Header is added to every request of the stdio transport: the local
	// caller's credentials for the server's Authenticate hook (an
	// Authorization header, an API key), or what your middleware reads (a
	// tenant). Ignored by httpStream, whose clients send their own.
	Header http.Header
	// SessionAuth is the auth data of the local caller on stdio, for a
	// server without authentication: tools see it as Context.Session. It
	// is not a credential and skips no check: Start refuses it (with
	// [ErrSessionAuthWithAuth]) when the server has Options.Authenticate
	// or Options.Auth, whose check must run; give the caller's
	// credentials in Header instead.
	SessionAuth any
	// Stdin and Stdout of the stdio transport. Default os.Stdin, os.Stdout.
	Stdin  io.Reader
	Stdout io.Writer
	// ShutdownTimeout bounds Close. Default 10 s.
	ShutdownTimeout time.Duration
}

// StartMaxHeaderBytes bounds the request headers [Start]'s HTTP server
// reads (net/http's default is 1 MiB); larger ones get 431. 64 KiB holds
// any real Authorization header and cookie set.
const StartMaxHeaderBytes = 64 << 10

// Instance is a running server; Close stops it gracefully.
type Instance struct {
	handler    *Handler
	httpSrv    *http.Server
	listener   *drainListener
	fresh      freshConns         // accepted connections whose first request is not read yet
	cancel     context.CancelFunc // ends stdio, and in-flight HTTP work once the grace period is over
	baseCancel context.CancelFunc
	done       chan struct{}
	err        error
	timeout    time.Duration
	once       sync.Once
	stopErr    error // why the stop did not finish cleanly; set inside once
}

// Handler returns the protocol engine of the instance.
func (i *Instance) Handler() *Handler { return i.handler }

// Addr returns the address the HTTP transport listens on ("" for stdio).
func (i *Instance) Addr() string {
	if i.listener == nil {
		return ""
	}
	return i.listener.Addr().String()
}

// Wait blocks until the server has stopped and everything it was doing
// has ended: after a Close, a Shutdown or the end of Start's ctx, that is
// when the in-flight calls have finished (or the grace period has ended
// and they were cancelled); after the end of stdin, when the session's
// work has been cancelled and the handler closed. A program may exit as
// soon as Wait returns.
//
// Wait returns nil after a clean stop: stdin ended, or Close, Shutdown or
// ctx stopped the server and every call in flight finished in time. It
// returns an error wrapping [ErrShutdownTimeout] when the grace period
// ended first, and the transport's error when serving failed (the server
// is then stopped as Close would); over stdio, [stdio.ErrSessionEnded]
// when the engine ended the session (a client lost to pings with
// middleware.PingOptions.Stdio).
func (i *Instance) Wait() error {
	<-i.done
	// The serving loop has ended. If a Shutdown is under way, this waits
	// for it (sync.Once blocks until the first call returns); if the loop
	// ended by itself (end of stdin, a listener error), this stops the rest.
	_ = i.Close()
	if i.err != nil {
		return i.err
	}
	return i.stopErr
}

// ErrShutdownTimeout is wrapped by the error of [Instance.Shutdown],
// [Instance.Close] and [Instance.Wait] when the grace period ended before
// the calls in flight finished, so they were cancelled.
var ErrShutdownTimeout = errors.New("mcphttp: the shutdown grace period ended before the calls in flight finished; they were cancelled")

// Close stops the server gracefully: HTTP stops accepting, in-flight calls
// finish, open streams close, sessions end; stdio cancels work in flight.
// It waits at most StartOptions.ShutdownTimeout (10 s by default) for the
// calls in flight, and returns an error wrapping [ErrShutdownTimeout] when
// that was not enough.
func (i *Instance) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), i.timeout)
	defer cancel()
	return i.Shutdown(ctx)
}

// Shutdown is Close with a caller-chosen deadline: the listener stops at
// once, open GET streams are told to retry (and closed) so clients
// reconnect elsewhere, and in-flight calls run to completion. When ctx
// ends first, the calls still running are cancelled and their connections
// closed, and an error wrapping both [ErrShutdownTimeout] and ctx's error
// is returned. Only the first call of Shutdown or Close stops the server;
// later calls return nil at once, and [Instance.Wait] reports the result.
func (i *Instance) Shutdown(ctx context.Context) error {
	var err error
	i.once.Do(func() {
		if i.httpSrv != nil {
			i.handler.drain()
			// Refuse new connections, and let the accepted ones (those of
			// the accept queue too) deliver their first request before
			// net/http's shutdown would drop it.
			_ = i.listener.Close()
			i.listener.waitHanded(ctx)
			i.fresh.wait(ctx)
			if err = i.httpSrv.Shutdown(ctx); err != nil {
				err = fmt.Errorf("%w: %w", ErrShutdownTimeout, err)
				i.baseCancel()
				_ = i.httpSrv.Close()
			}
		}
		i.cancel()
		<-i.done
		if i.baseCancel != nil {
			i.baseCancel()
		}
		_ = i.handler.Close()
		i.stopErr = err
	})
	return err
}

// Start serves srv on the chosen transport and returns at once; Wait
// blocks until it stops. ctx ends the server too.
func Start(ctx context.Context, srv *mcp.Server, opts *StartOptions) (*Instance, error) {
	var o StartOptions
	if opts != nil {
		o = *opts
	}
	if o.ShutdownTimeout <= 0 {
		o.ShutdownTimeout = 10 * time.Second
	}
	if err := checkSessionAuth(srv, o.SessionAuth, "StartOptions.SessionAuth"); err != nil {
		return nil, err
	}
	hopts := o.Handler
	if o.TransportType == TransportHTTPStream {
		if hopts == nil {
			hopts = &Options{}
		}
		hopts = allowHosts(hopts, startHosts(o.Host, os.Getenv))
	}
	h := New(srv, hopts)
	ctx, cancel := context.WithCancel(ctx)
	inst := &Instance{handler: h, cancel: cancel, done: make(chan struct{}), timeout: o.ShutdownTimeout}
	switch o.TransportType {
	case "", TransportStdio:
		go inst.serveStdio(ctx, &o)
		return inst, nil
	case TransportHTTPStream:
	default:
		cancel()
		return nil, fmt.Errorf("mcphttp: unknown transport %q (want %q or %q)", o.TransportType, TransportStdio, TransportHTTPStream)
	}
	mux := NewMux(h, &MuxOptions{Endpoint: o.Endpoint, Middleware: o.Middleware})
	ln, err := net.Listen("tcp", listenAddress(o.Host, o.Port))
	if err != nil {
		cancel()
		_ = h.Close()
		return nil, fmt.Errorf("mcphttp: listen: %w", err)
	}
	inst.listener = &drainListener{Listener: ln}
	// Requests must outlive ctx during a graceful shutdown: their base
	// context is cancelled only when the grace period is over.
	base, baseCancel := context.WithCancel(context.WithoutCancel(ctx))
	inst.baseCancel = baseCancel
	// No ReadTimeout or WriteTimeout: they would cut SSE streams. A POST
	// body has its own deadline (Options.BodyReadTimeout); headers have
	// ReadHeaderTimeout and MaxHeaderBytes.
	inst.httpSrv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    StartMaxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	inst.fresh.install(inst.httpSrv)
	srv.Logger().Info("MCP server listening", "url", "http://"+ln.Addr().String()+endpointOr(o.Endpoint), "server", opsOf(srv).Options().Name)
	go func() {
		defer close(inst.done)
		err := inst.httpSrv.Serve(inst.listener)
		if !errors.Is(err, http.ErrServerClosed) {
			inst.err = err
		}
	}()
	go func() {
		<-ctx.Done()
		_ = inst.Close()
	}()
	return inst, nil
}

// serveStdio serves the instance on o's stdin and stdout (the process's
// when unset) until the input ends or ctx does, which is no error.
func (inst *Instance) serveStdio(ctx context.Context, o *StartOptions) {
	defer close(inst.done)
	h := inst.handler
	in, out := o.Stdin, o.Stdout
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	inst.err = stdio.Serve(ctx, localChain(h, o.SessionAuth, o.Middleware).Then(h), in, out, &stdio.Options{Header: o.Header, MaxDepth: h.opts.MaxDepth})
	h.inputEnded(inst.err)
	if errors.Is(inst.err, context.Canceled) {
		inst.err = nil
	}
}

// listenAddress is the address Start listens on for host and port:
// every interface when host is "", port 8000 when it is 0, any free
// port when it is negative.
func listenAddress(host string, port int) string {
	if host == "" {
		host = "0.0.0.0"
	}
	switch {
	case port == 0:
		port = 8000
	case port < 0:
		port = 0
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

func endpointOr(e string) string {
	if e == "" {
		return "/mcp"
	}
	return e
}
