// Command benchchart draws the peer harness's results as one SVG: a panel
// per measure (throughput at 16 clients, CPU per call, session churn,
// stdio calls, memory with 1,000 sessions), a bar per server, each the
// median of the run's repetitions. It reads the raw JSON lines that
// ../shared/bench/run.sh writes (one object per server and repetition),
// so the chart is regenerated from data, never drawn by hand:
//
//	go run ./internal/benchchart -in perf/harness.jsonl -out docs/bench.svg
//
// (make bench-chart). The output depends only on the input.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	in := flag.String("in", "perf/harness.jsonl", "the harness's raw results (JSON lines)")
	out := flag.String("out", "docs/bench.svg", "the SVG to write")
	title := flag.String("title", "", "the chart's title (default: the input's file name)")
	flag.Parse()
	if err := run(*in, *out, *title); err != nil {
		fmt.Fprintln(os.Stderr, "benchchart:", err)
		os.Exit(1)
	}
}

func run(in, out, title string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := readResults(f)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if title == "" {
		title = "MCP servers under the peer harness (" + filepath.Base(in) + ")"
	}
	return os.WriteFile(out, render(title, summarize(rows)), 0o644)
}
