package proxy

import (
	"context"
	"io"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/mcpjson"
	"github.com/mcpchain/mcp/mcphttp"
)

// StdioOptions configure [ServeStdio].
type StdioOptions struct {
	// Gateway configures the gateway between the stdio client and the
	// upstream; its Upstream is set by ServeStdio.
	Gateway Options
	// DrainTimeout bounds how long, once the input ends, the requests
	// read and not yet answered may run on: their answers are written
	// before ServeStdio returns (a client that writes a tools/call and
	// closes stdin gets the result). Default 5 s; negative: the end of
	// the input cancels them at once.
	DrainTimeout time.Duration
}

// ServeStdio is the bridge: it serves the MCP client on in and out (a
// desktop client that speaks only stdio) against the server upstream
// reaches (a remote server over client.HTTP, whose credentials are the
// transport's own), through a [Gateway] with one upstream session
// (Options.SingleSession). It returns when in ends (nil), once the
// requests in flight are answered (StdioOptions.DrainTimeout),
// ctx ends, or the session ends, after closing the upstream session.
// opts may be nil.
func ServeStdio(ctx context.Context, upstream client.Transport, in io.Reader, out io.Writer, opts *StdioOptions) error {
	var o StdioOptions
	if opts != nil {
		o = *opts
	}
	o.Gateway.Upstream = func(*mcp.Context) client.Transport { return upstream }
	o.Gateway.SingleSession = true // one stdio session: one upstream session
	g, err := New(ctx, o.Gateway)
	if err != nil {
		return err
	}
	defer g.Close()
	return serveStdio(ctx, g.Server(), in, out, o.DrainTimeout)
}

// ServeConfigStdio is the bridge for every server of an mcp.json: it
// serves the MCP client on in and out against each enabled server of
// cfg, through a [ConfigGateway] (tool "search" of server "docs" is
// "docs_search"), each gateway with one upstream session
// (Options.SingleSession). opts.Gateway configures every server's
// gateway but its Upstream (the server's own transport) and Server,
// whose options configure the server that mounts them; DrainTimeout is
// as for [ServeStdio]. Starting is all or nothing, as for
// [NewConfigGateway]. It returns as ServeStdio does, after closing every
// upstream session. opts may be nil.
func ServeConfigStdio(ctx context.Context, cfg *mcpjson.Config, in io.Reader, out io.Writer, opts *StdioOptions) error {
	var o StdioOptions
	if opts != nil {
		o = *opts
	}
	gopts := o.Gateway
	gopts.SingleSession = true // one stdio session: one upstream session per server
	gopts.Upstream = nil
	server := gopts.Server
	gopts.Server = mcp.Options{}
	cg, err := NewConfigGateway(ctx, cfg, &ConfigOptions{Server: server, Gateway: gopts})
	if err != nil {
		return err
	}
	defer cg.Close()
	return serveStdio(ctx, cg.Server(), in, out, o.DrainTimeout)
}

// serveStdio serves srv to the stdio client on in and out, holding the
// end of the input back for the requests in flight (see
// StdioOptions.DrainTimeout).
func serveStdio(ctx context.Context, srv *mcp.Server, in io.Reader, out io.Writer, drainTimeout time.Duration) error {
	if drainTimeout == 0 {
		drainTimeout = defaultDrainTimeout
	}
	d := newDrain(in, out, drainTimeout)
	inst, err := mcphttp.Start(ctx, srv, &mcphttp.StartOptions{TransportType: mcphttp.TransportStdio, Stdin: d, Stdout: d})
	if err != nil {
		return err
	}
	return inst.Wait()
}
