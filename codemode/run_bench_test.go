package codemode

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
)

// cpuClock reports the process's CPU time (user and system), which a
// loaded machine inflates far less than wall time: the benchmarks report
// it per operation as cpu-ns/op.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// CPUClock is cpuClock for the package's external tests.
var CPUClock = cpuClock

// BenchmarkRun is the sandbox's own cost for a script of one call, the
// tool answered at once: parsing, guarding, compiling and running it.
func BenchmarkRun(b *testing.B) {
	r := &Runner{name: DefaultTool, maxSteps: defaultMaxSteps, timeout: time.Second, maxCalls: 5, maxOut: 4096, maxAlloc: defaultMaxAllocBytes,
		programs: newProgramCache(programCacheSize)}
	res := &mcp.ContentResult{StructuredContent: json.RawMessage(`{"sum":3}`)}
	call := func(context.Context, string, json.RawMessage) (any, error) { return res, nil }
	b.ReportAllocs()
	var start time.Duration
	n := 0
	for b.Loop() {
		if n == 0 {
			start = cpuClock()
		}
		if out := r.run(context.Background(), "result = call('add', {'a': 1, 'b': 2})", call); out.IsError {
			b.Fatal(out.Text())
		}
		n++
	}
	b.ReportMetric(float64(cpuClock()-start)/float64(max(n, 1)), "cpu-ns/op")
}
