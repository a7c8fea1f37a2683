package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/justinas/alice"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/discovery"
	"github.com/mcpchain/mcp/middleware"
	"github.com/mcpchain/mcp/stdio"
)

// Transport types of [StartOptions].
const (
	TransportStdio      = "stdio"
	TransportHTTPStream = "httpStream"
)

// StartOptions configure [Start]. The zero value serves stdio.
type StartOptions struct {
	// TransportType is "stdio" (default) or "httpStream".
	TransportType string
	// Host to listen on (httpStream). Default 0.0.0.0.
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
	// context reaches the tools.
	Middleware []alice.Constructor
	// SessionAuth is the auth data of the local caller on stdio, where no
	// Authenticate hook runs.
	SessionAuth any
	// Stdin and Stdout of the stdio transport. Default os.Stdin, os.Stdout.
	Stdin  io.Reader
	Stdout io.Writer
	// ShutdownTimeout bounds Close. Default 10 s.
	ShutdownTimeout time.Duration
}

// Instance is a running server; Close stops it gracefully.
type Instance struct {
	handler    *Handler
	httpSrv    *http.Server
	listener   net.Listener
	cancel     context.CancelFunc // ends stdio, and in-flight HTTP work once the grace period is over
	baseCancel context.CancelFunc
	done       chan struct{}
	err        error
	timeout    time.Duration
	once       sync.Once
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

// Wait blocks until the server stops, and returns why (nil when stdin
// ended or Close was called).
func (i *Instance) Wait() error { <-i.done; return i.err }

// Close stops the server gracefully: HTTP stops accepting, in-flight calls
// finish, open streams close, sessions end; stdio cancels work in flight.
func (i *Instance) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), i.timeout)
	defer cancel()
	return i.Shutdown(ctx)
}

// Shutdown is Close with a caller-chosen deadline: the listener stops at
// once, open GET streams are told to retry (and closed) so clients
// reconnect elsewhere, and in-flight calls run to completion. When ctx
// ends first, the calls still running are cancelled and their connections
// closed, and ctx's error is returned.
func (i *Instance) Shutdown(ctx context.Context) error {
	var err error
	i.once.Do(func() {
		if i.httpSrv != nil {
			i.handler.drain()
			err = i.httpSrv.Shutdown(ctx)
			if err != nil {
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
	h := New(srv, o.Handler)
	ctx, cancel := context.WithCancel(ctx)
	inst := &Instance{handler: h, cancel: cancel, done: make(chan struct{}), timeout: o.ShutdownTimeout}
	switch o.TransportType {
	case "", TransportStdio:
		in, out := o.Stdin, o.Stdout
		if in == nil {
			in = os.Stdin
		}
		if out == nil {
			out = os.Stdout
		}
		chain := alice.New(middleware.Recover(srv.Logger()), middleware.WithAuth(o.SessionAuth)).Append(o.Middleware...)
		go func() {
			defer close(inst.done)
			inst.err = stdio.Serve(ctx, chain.Then(h), in, out, nil)
			h.inputEnded(inst.err)
			if errors.Is(inst.err, context.Canceled) {
				inst.err = nil
			}
		}()
		return inst, nil
	case TransportHTTPStream:
	default:
		cancel()
		return nil, fmt.Errorf("mcphttp: unknown transport %q (want %q or %q)", o.TransportType, TransportStdio, TransportHTTPStream)
	}
	if o.Host == "" {
		o.Host = "0.0.0.0"
	}
	switch {
	case o.Port == 0:
		o.Port = 8000
	case o.Port < 0:
		o.Port = 0
	}
	mux := NewMux(h, &MuxOptions{Endpoint: o.Endpoint, Middleware: o.Middleware})
	ln, err := net.Listen("tcp", net.JoinHostPort(o.Host, strconv.Itoa(o.Port)))
	if err != nil {
		cancel()
		_ = h.Close()
		return nil, fmt.Errorf("mcphttp: listen: %w", err)
	}
	inst.listener = ln
	// Requests must outlive ctx during a graceful shutdown: their base
	// context is cancelled only when the grace period is over.
	base, baseCancel := context.WithCancel(context.WithoutCancel(ctx))
	inst.baseCancel = baseCancel
	inst.httpSrv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return base },
	}
	srv.Logger().Info("MCP server listening", "url", "http://"+ln.Addr().String()+endpointOr(o.Endpoint), "server", srv.Options().Name)
	go func() {
		defer close(inst.done)
		err := inst.httpSrv.Serve(ln)
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

func endpointOr(e string) string {
	if e == "" {
		return "/mcp"
	}
	return e
}

// MuxOptions configure [NewMux].
type MuxOptions struct {
	// Endpoint is the path of the MCP endpoint. Default /mcp.
	Endpoint string
	// Middleware wraps the MCP endpoint (inside authentication).
	Middleware []alice.Constructor
}

// NewMux assembles the HTTP side of a server on one ServeMux: the MCP
// endpoint behind recovery and authentication, the health endpoint, the
// server's custom routes (authenticated unless public), the OAuth
// discovery documents when Options.OAuth is enabled, and the routes of the
// auth provider. Its patterns are paths from its own root, so it mounts
// under a prefix with http.StripPrefix:
//
//	parent.Handle("/api/", http.StripPrefix("/api", mcphttp.NewMux(h, nil)))
//
// Custom routes added with AddRoute after NewMux returned are served too,
// from their first request on (a late route whose pattern conflicts with
// a mounted one is logged and not served).
func NewMux(h *Handler, opts *MuxOptions) *http.ServeMux {
	var o MuxOptions
	if opts != nil {
		o = *opts
	}
	ep := endpointOr(o.Endpoint)
	srv := h.Server()
	so := srv.Options()
	log := srv.Logger()
	base := alice.New(middleware.Recover(log))
	authed := base
	if fn := authFunc(so); fn != nil {
		authed = base.Append(middleware.Authenticate(fn, ""))
	}
	mux := http.NewServeMux()
	mux.Handle(ep, authed.Append(o.Middleware...).Then(h))
	if ho := so.Health; ho == nil || !ho.Disabled {
		path, msg, status := "/health", "ok", http.StatusOK
		if ho != nil {
			if ho.Path != "" {
				path = ho.Path
			}
			if ho.Message != "" {
				msg = ho.Message
			}
			if ho.Status != 0 {
				status = ho.Status
			}
		}
		health := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(status)
			if r.Method != http.MethodHead {
				_, _ = io.WriteString(w, msg)
			}
		})
		mux.Handle("GET "+path, base.Then(health))
	}
	mountRoutes(mux, srv, base, authed)
	discovery.Mount(mux, so.OAuth)
	if so.Auth != nil && so.Authenticate == nil {
		so.Auth.Mount(mux)
	}
	return mux
}

func authFunc(o mcp.Options) mcp.AuthFunc {
	switch {
	case o.Authenticate != nil:
		return o.Authenticate
	case o.Auth != nil:
		return o.Auth.Authenticate
	}
	return nil
}

// WriteJSON writes v as a JSON response with the given status: the helper
// for custom routes.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
