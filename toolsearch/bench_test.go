package toolsearch

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp"
)

// hub10k is a server of 10,017 tools: one server of Discord's and
// Blockfrost's operations (371 tools) mounted under 27 prefixes, as a
// hub of 27 servers lists them.
func hub10k(b testing.TB) *mcp.Server {
	child := mcp.NewServer(mcp.Options{Name: "apis", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	for _, c := range []string{"discord", "blockfrost"} {
		for _, t := range corpus(b, c) {
			// Only the top level of an input schema is searched:
			// registering that much keeps the set-up short (the server
			// compiles every schema) and the search's work the same.
			t.InputSchema = shallow(t.InputSchema)
			if err := child.Registry().AddRawTool(t, func(context.Context, *mcp.Context, json.RawMessage) (*mcp.ContentResult, error) {
				return nil, nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	hub := mcp.NewServer(mcp.Options{Name: "hub", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	for p := range 27 {
		hub.Mount(fmt.Sprintf("s%d", p), child, nil)
	}
	return hub
}

// catalog10k is the tools of hub10k.
func catalog10k(b testing.TB) []mcp.Tool { return hub10k(b).ListTools(context.Background(), nil) }

// cpuClock reports the process's CPU time (user and system), which a
// loaded machine inflates far less than wall time: each benchmark
// reports it per operation as cpu-ns/op.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs fn b.N times (b.Loop) and reports its CPU time per run.
func loop(b *testing.B, fn func(i int)) {
	var start time.Duration
	i := 0
	for b.Loop() {
		if i == 0 {
			start = cpuClock()
		}
		fn(i)
		i++
	}
	b.ReportMetric(float64(cpuClock()-start)/float64(max(i, 1)), "cpu-ns/op")
}

// heapOf reports the heap a value built by fn keeps, in MB.
func heapOf(fn func() any) (any, float64) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	v := fn()
	runtime.GC()
	runtime.ReadMemStats(&m1)
	return v, float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / 1e6
}

// BenchmarkQuery10k: one BM25 query (the query set's requests in turn)
// over an index of 10,000 tools, already built.
func BenchmarkQuery10k(b *testing.B) {
	tools := catalog10k(b)
	v, mb := heapOf(func() any { return newIndex().snapshot(tools) })
	s := v.(*snapshot)
	qs := make([][]string, len(querySet))
	for i, q := range querySet {
		qs[i] = queryTerms(q.Request)
	}
	loop(b, func(i int) { s.bm25(qs[i%len(qs)], 5) })
	b.ReportMetric(mb, "MB-index")
	runtime.KeepAlive(s)
}

// BenchmarkRegex10k: one keyword-alternation pattern over the same
// index.
func BenchmarkRegex10k(b *testing.B) {
	s := newIndex().snapshot(catalog10k(b))
	res := make([]string, len(querySet))
	for i, q := range querySet {
		res[i] = regexFor(q.Request)
	}
	loop(b, func(i int) {
		re, err := compilePattern(res[i%len(res)])
		if err != nil {
			b.Fatal(err)
		}
		s.regexSearch(context.Background(), re, 5, time.Minute)
	})
}

// BenchmarkSearchTool10k: the search tool's whole work for one call on a
// server of 10,000 tools: the caller's listing (ListTools), finding the
// snapshot of that list, the query and the result's encoding.
func BenchmarkSearchTool10k(b *testing.B) {
	srv := hub10k(b)
	s, err := New(srv, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, c := context.Background(), &mcp.Context{}
	if _, err := s.search(ctx, c, searchArgs{Query: "warm the index"}); err != nil {
		b.Fatal(err)
	}
	loop(b, func(i int) {
		if _, err := s.search(ctx, c, searchArgs{Query: querySet[i%len(querySet)].Request}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkListTools10k: the server's own listing of the same hub for
// one caller, which every search does first (and tools/list too): the
// part of BenchmarkSearchTool10k that is not the search's.
func BenchmarkListTools10k(b *testing.B) {
	srv := hub10k(b)
	ctx := context.Background()
	loop(b, func(int) { srv.ListTools(ctx, nil) })
}

// BenchmarkBuild10k: analysing 10,000 tools and indexing them, from
// nothing (the first search of a server).
func BenchmarkBuild10k(b *testing.B) {
	tools := catalog10k(b)
	loop(b, func(int) { newIndex().snapshot(tools) })
}

// BenchmarkRebuild10k: the first search after one tool of 10,000
// changed: the other tools' analysis is kept, the snapshot is rebuilt.
func BenchmarkRebuild10k(b *testing.B) {
	tools := catalog10k(b)
	x := newIndex()
	x.snapshot(tools)
	loop(b, func(i int) {
		tools[0].Description = fmt.Sprintf("changed %d", i)
		x.snapshot(tools)
	})
}

// shallow is s with only what the index reads: its properties' names,
// types and descriptions.
func shallow(s *jsonschema.Schema) *jsonschema.Schema {
	out := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}, PropertyOrder: s.PropertyOrder}
	for n, p := range s.Properties {
		out.Properties[n] = &jsonschema.Schema{Description: p.Description, Title: p.Title}
	}
	return out
}
