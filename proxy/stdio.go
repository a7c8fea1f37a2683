package proxy

import (
	"context"
	"io"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
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
	if o.DrainTimeout == 0 {
		o.DrainTimeout = defaultDrainTimeout
	}
	d := newDrain(in, out, o.DrainTimeout)
	inst, err := mcphttp.Start(ctx, g.Server(), &mcphttp.StartOptions{TransportType: mcphttp.TransportStdio, Stdin: d, Stdout: d})
	if err != nil {
		return err
	}
	return inst.Wait()
}
