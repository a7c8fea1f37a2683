// Command perfgate is the deterministic performance gate (`make perf-gate`):
// it counts the instructions of a stateful, a stateless and a stdio
// tools/call and of a session churn operation in process, of a stateful
// and a stateless tools/call over loopback HTTP, and of the same plain call
// on a server with every optional feature registered (the "full" rows: in
// process, over stdio and over loopback; full.go), under valgrind's
// cachegrind, and compares them with the figures recorded in
// perf/gate.json.
//
// Each operation runs in a child process (this same binary with -measure)
// under `valgrind --tool=cachegrind --cache-sim=no`, twice: once with
// -small and once with -large measured operations after the same warm-up.
// The difference of the two totals divided by the difference of the counts
// is the cost of one operation, with start-up, warm-up and exit cancelled
// out. The child runs with GOMAXPROCS=1 (goroutines take turns in one
// order), GOGC=off (no collection, whose timing is not repeatable; the
// allocations themselves are still counted), and
// GODEBUG=cpu.all=off,asyncpreemptoff=1 (the runtime and standard library
// take their baseline code paths whatever the CPU offers, and no signal
// preempts a goroutine at a time-dependent point).
//
// Usage:
//
//	perfgate -gate perf/gate.json           # measure and compare (exit 1 on a regression)
//	perfgate -gate perf/gate.json -record   # measure and write the figures
//	perfgate -build DIR                     # only build the measured binary into DIR
//	perfgate -measure stateful -n 200       # one measured run (what valgrind runs)
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
)

// childGODEBUG are the settings a measured run needs; the child refuses to
// run without them, so a figure is never taken on other code paths.
var childGODEBUG = []string{"cpu.all=off", "asyncpreemptoff=1", "memprofilerate=0"}

func main() {
	var (
		measure  = flag.String("measure", "", "run this scenario's operations (the child process)")
		n        = flag.Int("n", 0, "with -measure: measured operations")
		warmup   = flag.Int("warmup", 200, "operations before the measured ones")
		gatePath = flag.String("gate", "", "the recorded figures (perf/gate.json)")
		record   = flag.Bool("record", false, "write the measured figures to -gate instead of comparing")
		small    = flag.Int("small", 200, "measured operations of the first run")
		large    = flag.Int("large", 2200, "measured operations of the second run")
		jobs     = flag.Int("jobs", 2, "valgrind runs at once")
		valgrind = flag.String("valgrind", "valgrind", "the valgrind command")
		goCmd    = flag.String("go", "go", "the go command that builds the measured binary")
		only     = flag.String("only", "", "comma-separated scenarios (default all)")
		build    = flag.String("build", "", "only build the measured binary into this directory (to run cachegrind on it by hand)")
	)
	flag.Parse()
	if *build != "" {
		if err := os.MkdirAll(*build, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "perfgate:", err)
			os.Exit(1)
		}
		exe, err := buildChild(*goCmd, *build)
		if err != nil {
			fmt.Fprintln(os.Stderr, "perfgate:", err)
			os.Exit(1)
		}
		fmt.Println(exe)
		return
	}
	if *measure != "" {
		if err := child(*measure, *warmup, *n); err != nil {
			fmt.Fprintln(os.Stderr, "perfgate:", err)
			os.Exit(1)
		}
		return
	}
	if *gatePath == "" {
		fmt.Fprintln(os.Stderr, "perfgate: -gate or -measure is required")
		flag.Usage()
		os.Exit(2)
	}
	cfg := config{Go: *goCmd, Valgrind: *valgrind, Warmup: *warmup, Small: *small, Large: *large, Jobs: *jobs}
	if *only != "" {
		cfg.Only = strings.Split(*only, ",")
	}
	ok, err := gate(os.Stdout, *gatePath, *record, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfgate:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// child runs one scenario under the settings the figures assume.
func child(name string, warmup, n int) error {
	s, ok := findScenario(name)
	if !ok {
		return fmt.Errorf("no scenario %q", name)
	}
	if n <= 0 {
		return fmt.Errorf("-n must be positive")
	}
	if err := checkChildEnv(os.Getenv, runtime.GOMAXPROCS(0)); err != nil {
		return err
	}
	return run(s, warmup, n)
}

// checkChildEnv reports what is missing from the child's settings.
func checkChildEnv(getenv func(string) string, procs int) error {
	var missing []string
	if procs != 1 {
		missing = append(missing, "GOMAXPROCS=1")
	}
	if getenv("GOGC") != "off" {
		missing = append(missing, "GOGC=off")
	}
	have := strings.Split(getenv("GODEBUG"), ",")
	for _, want := range childGODEBUG {
		found := false
		for _, h := range have {
			found = found || h == want
		}
		if !found {
			missing = append(missing, "GODEBUG "+want)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("a measured run needs %s", strings.Join(missing, ", "))
	}
	return nil
}
