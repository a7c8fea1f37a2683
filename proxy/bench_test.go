package proxy_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// benchUpstream serves a server with one echo tool over loopback HTTP.
func benchUpstream(b *testing.B) string {
	srv := mcp.NewServer(mcp.Options{Name: "bench-upstream", Version: "1.0.0", Logger: quiet})
	mcp.AddTool(srv, mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		return in.Text, nil
	})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	b.Cleanup(func() {
		_ = h.Close()
		ts.Close()
	})
	return ts.URL
}

// benchCall calls echo through c b.N times.
func benchCall(b *testing.B, c *client.Client) {
	ctx := context.Background()
	args := json.RawMessage(`{"text":"hello"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := c.CallTool(ctx, "echo", args, nil)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkDirect: a tools/call from a client to the upstream over
// loopback HTTP, the baseline of BenchmarkGateway.
func BenchmarkDirect(b *testing.B) {
	c, err := client.Connect(context.Background(), client.HTTP(benchUpstream(b)+"/", nil), &client.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	benchCall(b, c)
}

// BenchmarkGateway: the same tools/call through the gateway (loopback
// HTTP in, loopback HTTP out): the client's request, the gateway's
// chain, and its own call upstream.
func BenchmarkGateway(b *testing.B) {
	up := benchUpstream(b) + "/"
	g, err := proxy.New(context.Background(), proxy.Options{
		Upstream: func(*mcp.Context) client.Transport { return client.HTTP(up, nil) },
		Server:   mcp.Options{Logger: quiet},
	})
	if err != nil {
		b.Fatal(err)
	}
	h := mcphttp.New(g.Server(), nil)
	ts := httptest.NewServer(h)
	defer func() {
		ts.Close()
		_ = h.Close()
		_ = g.Close()
	}()
	c, err := client.Connect(context.Background(), client.HTTP(ts.URL+"/", nil), &client.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	benchCall(b, c)
}
