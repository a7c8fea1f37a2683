package mcphttp

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpchain/mcp"
)

// The environment variables [Run] reads; MCP_ALLOWED_HOSTS, which [Start]
// reads, completes them.
const (
	envTransport = "MCP_TRANSPORT"
	envHost      = "MCP_HOST"
	envPort      = "MCP_PORT"
)

// Run serves srv until it is stopped, the whole main of a server in one
// call:
//
//	if err := mcphttp.Run(context.Background(), srv, nil); err != nil {
//		log.Fatal(err)
//	}
//
// It serves stdio unless the environment says otherwise:
// MCP_TRANSPORT=http (or httpStream) serves Streamable HTTP on MCP_HOST
// (default 0.0.0.0) and MCP_PORT (default 8000), and MCP_ALLOWED_HOSTS
// names the hosts clients may reach it by, as with [Start]. A field set
// in opts wins over its variable; what opts leaves zero the environment
// fills. An unknown MCP_TRANSPORT or a MCP_PORT that is not a port number
// is an error, returned before anything is served.
//
// SIGINT or SIGTERM stops the server gracefully, as [Instance.Close]
// does: the listener closes and the calls in flight finish (for at most
// opts.ShutdownTimeout, 10 s by default). The signals are released at
// that moment, so a second one ends the process at once. The end of ctx
// stops the server the same way, and the end of stdin ends a stdio
// server.
//
// Run returns nil after a clean stop, and otherwise what [Instance.Wait]
// returns: an error wrapping [ErrShutdownTimeout] when the grace period
// ran out, the transport's error when serving failed.
func Run(ctx context.Context, srv *mcp.Server, opts *StartOptions) error {
	o, err := runOptions(opts, os.Getenv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Release the signals as soon as the first one (or the end of ctx)
	// starts the graceful stop: a second signal then takes its default
	// action and ends the process without waiting for the drain.
	context.AfterFunc(ctx, stop)
	inst, err := Start(ctx, srv, &o)
	if err != nil {
		return err
	}
	return inst.Wait()
}

// runOptions is opts completed from the environment (getenv reads it):
// the transport, host and port opts leaves zero.
func runOptions(opts *StartOptions, getenv func(string) string) (StartOptions, error) {
	var o StartOptions
	if opts != nil {
		o = *opts
	}
	if o.TransportType == "" {
		switch v := strings.TrimSpace(getenv(envTransport)); {
		case v == "", strings.EqualFold(v, string(TransportStdio)):
			o.TransportType = TransportStdio
		case strings.EqualFold(v, "http"), strings.EqualFold(v, string(TransportHTTPStream)):
			o.TransportType = TransportHTTPStream
		default:
			return o, fmt.Errorf("mcphttp: %s=%q is not a transport: want stdio or http", envTransport, v)
		}
	}
	if o.Host == "" {
		o.Host = strings.TrimSpace(getenv(envHost))
	}
	if v := strings.TrimSpace(getenv(envPort)); o.Port == 0 && v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			return o, fmt.Errorf("mcphttp: %s=%q is not a port number (0 to 65535; 0 picks a free port)", envPort, v)
		}
		if p == 0 {
			p = -1 // StartOptions' "any free port"
		}
		o.Port = p
	}
	return o, nil
}
