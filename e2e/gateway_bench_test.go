package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// BenchmarkTSUpstream: the cost of the gateway in front of a server in
// another language, its main use. The same client (package client, over
// loopback Streamable HTTP) calls the same tool (shout) of the same
// TypeScript SDK server (node/remote-server.mjs, a separate process):
// directly, and through a gateway served by this process. Besides ns/op
// it reports the CPU of the whole process tree per call: this process
// (client, and the gateway when there is one: getrusage) and the node
// server (/proc/PID/stat, in clock ticks of 10 ms: read it over
// thousands of calls).
func BenchmarkTSUpstream(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		url, pid := startRemoteProcess(b)
		benchTSCall(b, client.HTTP(url, nil), pid)
	})
	b.Run("gateway", func(b *testing.B) {
		url, pid := startRemoteProcess(b)
		g, err := proxy.New(context.Background(), proxy.Options{
			Upstream: func(*mcp.Context) client.Transport { return client.HTTP(url, nil) },
			Server:   mcp.Options{Logger: quiet()},
		})
		if err != nil {
			b.Fatal(err)
		}
		h := mcphttp.New(g.Server(), nil)
		ts := httptest.NewServer(h)
		b.Cleanup(func() {
			ts.Close()
			_ = h.Close()
			_ = g.Close()
		})
		benchTSCall(b, client.HTTP(ts.URL+"/", nil), pid)
	})
}

// benchTSCall connects through tr and calls shout b.N times, reporting
// the CPU per call of this process and of the node process pid.
func benchTSCall(b *testing.B, tr client.Transport, pid int) {
	ctx := context.Background()
	c, err := client.Connect(ctx, tr, &client.Options{Logger: quiet()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	args := json.RawMessage(`{"text":"hello"}`)
	call := func() {
		res, err := c.CallTool(ctx, "shout", args, nil)
		if err != nil || res.IsError || res.Text() != "HELLO" {
			b.Fatal(err, res)
		}
	}
	for range 50 { // warm up: the JIT of node, the connections
		call()
	}
	b.ReportAllocs()
	b.ResetTimer()
	self0, node0 := selfCPU(), procCPU(b, pid)
	for b.Loop() {
		call()
	}
	b.StopTimer()
	self, node := selfCPU()-self0, procCPU(b, pid)-node0
	n := float64(b.N)
	b.ReportMetric(float64(self.Nanoseconds())/n, "go-cpu-ns/op")
	b.ReportMetric(float64(node.Nanoseconds())/n, "node-cpu-ns/op")
	b.ReportMetric(float64((self+node).Nanoseconds())/n, "cpu-ns/op")
}

// selfCPU is the user and system CPU time of this process.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the user and system CPU time of process pid, from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 10 ms).
func procCPU(b *testing.B, pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	s := string(raw)
	// The command name, field 2, is in parentheses and may hold spaces.
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var utime, stime int64
	if _, err := fmt.Sscan(f[11], &utime); err != nil {
		b.Fatal(err)
	}
	if _, err := fmt.Sscan(f[12], &stime); err != nil {
		b.Fatal(err)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
