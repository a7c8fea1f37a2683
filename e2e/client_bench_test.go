package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchClient is one connected client of BenchmarkClientCPU: call makes
// one tools/call of add {a:1,b:2} and returns the result's text.
type benchClient struct {
	call  func(ctx context.Context) (string, error)
	close func()
}

// benchArgs are add's arguments, the same Go value for every client.
var benchArgs = map[string]any{"a": 1, "b": 2}

// BenchmarkClientCPU: the client's own cost. mcpchain's client (package
// client), go-sdk's and mcp-go's call tool add of the same server, an
// examples/everything process built without the race detector, over
// Streamable HTTP on loopback and over stdio (the client starts the
// process), at revisions 2025-11-25 and 2026-07-28, one call after the
// other after a warm-up. The server is another process, so this
// process's CPU (getrusage: user+sys) is the client's: client-cpu-µs/op
// is that CPU per call, calls/s the rate. `make bench-client` runs it.
func BenchmarkClientCPU(b *testing.B) {
	bin := benchServerBinary(b)
	for _, tr := range []string{"http", "stdio"} {
		b.Run(tr, func(b *testing.B) {
			url := ""
			if tr == "http" {
				url = startHTTPServerBin(b, bin, nil).url
			}
			for _, rev := range []string{"2025-11-25", "2026-07-28"} {
				b.Run(rev, func(b *testing.B) {
					for _, name := range []string{"mcpchain", "go-sdk", "mcp-go"} {
						b.Run(name, func(b *testing.B) {
							benchClientCalls(b, connectBenchClient(b, name, rev, bin, url), rev)
						})
					}
				})
			}
		})
	}
}

// benchClientCalls warms c up, then calls add b.N times, reporting this
// process's CPU per call and the calls per second.
func benchClientCalls(b *testing.B, c benchClient, rev string) {
	defer c.close()
	ctx := context.Background()
	call := func() {
		text, err := c.call(ctx)
		if err != nil || text != "3" {
			b.Fatalf("add(1, 2) at %s = %q, %v", rev, text, err)
		}
	}
	for range 200 { // warm up: connections, buffers, the server's caches
		call()
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := selfCPU()
	for b.Loop() {
		call()
	}
	b.StopTimer()
	cpu := selfCPU() - cpu0
	n := float64(b.N)
	b.ReportMetric(float64(cpu.Nanoseconds())/n/1e3, "client-cpu-µs/op")
	b.ReportMetric(n/b.Elapsed().Seconds(), "calls/s")
}

// connectBenchClient connects the client named name at revision rev: over
// stdio to a new process of bin when url is empty, else to url.
func connectBenchClient(b *testing.B, name, rev, bin, url string) benchClient {
	ctx := context.Background()
	switch name {
	case "mcpchain":
		var tr client.Transport
		if url == "" {
			tr = client.Command(exec.Command(bin))
		} else {
			tr = client.HTTP(url, nil)
		}
		c, err := client.Connect(ctx, tr, &client.Options{Logger: quiet(), ProtocolVersion: mcp.Version(rev)})
		if err != nil {
			b.Fatal(err)
		}
		checkRevision(b, string(c.ProtocolVersion()), rev)
		return benchClient{
			call: func(ctx context.Context) (string, error) {
				res, err := c.CallTool(ctx, "add", benchArgs, nil)
				if err != nil {
					return "", err
				}
				return res.Text(), nil
			},
			close: func() { _ = c.Close() },
		}
	case "go-sdk":
		var tr gosdk.Transport
		if url == "" {
			tr = &gosdk.CommandTransport{Command: exec.Command(bin)}
		} else {
			tr = &gosdk.StreamableClientTransport{Endpoint: url}
		}
		c := gosdk.NewClient(&gosdk.Implementation{Name: "bench", Version: "1.0.0"}, nil)
		s, err := c.Connect(ctx, tr, &gosdk.ClientSessionOptions{ProtocolVersion: rev})
		if err != nil {
			b.Fatal(err)
		}
		checkRevision(b, s.InitializeResult().ProtocolVersion, rev)
		return benchClient{
			call: func(ctx context.Context) (string, error) {
				res, err := s.CallTool(ctx, &gosdk.CallToolParams{Name: "add", Arguments: benchArgs})
				if err != nil {
					return "", err
				}
				if res.IsError || len(res.Content) != 1 {
					return "", fmt.Errorf("result %+v", res)
				}
				tc, _ := res.Content[0].(*gosdk.TextContent)
				if tc == nil {
					return "", fmt.Errorf("content %T", res.Content[0])
				}
				return tc.Text, nil
			},
			close: func() { _ = s.Close() },
		}
	case "mcp-go":
		var tr mcpgotransport.Interface
		if url == "" {
			tr = mcpgotransport.NewStdio(bin, nil)
		} else {
			h, err := mcpgotransport.NewStreamableHTTP(url)
			if err != nil {
				b.Fatal(err)
			}
			tr = h
		}
		c := mcpgoclient.NewClient(tr, mcpgoclient.WithProtocolVersion(rev))
		if err := c.Start(ctx); err != nil {
			b.Fatal(err)
		}
		init, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
			ProtocolVersion: rev, ClientInfo: mcpgo.Implementation{Name: "bench", Version: "1.0.0"}}})
		if err != nil {
			_ = c.Close()
			b.Fatal(err)
		}
		checkRevision(b, init.ProtocolVersion, rev)
		return benchClient{
			call: func(ctx context.Context) (string, error) {
				res, err := c.CallTool(ctx, mcpgo.CallToolRequest{Params: mcpgo.CallToolParams{Name: "add", Arguments: benchArgs}})
				if err != nil {
					return "", err
				}
				if res.IsError || len(res.Content) != 1 {
					return "", fmt.Errorf("result %+v", res)
				}
				tc, ok := res.Content[0].(mcpgo.TextContent)
				if !ok {
					return "", fmt.Errorf("content %T", res.Content[0])
				}
				return tc.Text, nil
			},
			close: func() { _ = c.Close() },
		}
	}
	b.Fatalf("no client %q", name)
	return benchClient{}
}

// checkRevision fails b unless the client negotiated want: a client that
// fell back to another revision would be measured under the wrong name.
func checkRevision(b *testing.B, got, want string) {
	b.Helper()
	if got != want {
		b.Fatalf("negotiated revision %q, want %q", got, want)
	}
}

var benchServer struct {
	once sync.Once
	bin  string
	err  error
}

// benchServerBinary is examples/everything built without the race
// detector (the race-enabled build of the other tests would slow the
// server and so the rate), once; E2E_BENCH_SERVER_BIN names a prebuilt
// one instead.
func benchServerBinary(b *testing.B) string {
	b.Helper()
	if bin := os.Getenv("E2E_BENCH_SERVER_BIN"); bin != "" {
		return bin
	}
	benchServer.once.Do(func() {
		root, err := filepath.Abs("..")
		if err != nil {
			benchServer.err = err
			return
		}
		bin := filepath.Join(binDir, "everything-norace")
		cmd := exec.Command("go", "build", "-o", bin, "./examples/everything")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			benchServer.err = fmt.Errorf("go build ./examples/everything: %v\n%s", err, strings.TrimSpace(string(out)))
			return
		}
		benchServer.bin = bin
	})
	if benchServer.err != nil {
		b.Fatal(benchServer.err)
	}
	return benchServer.bin
}
