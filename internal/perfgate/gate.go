package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tolerance is how much an operation may grow, in per cent of its recorded
// figure, before the gate fails.
const Tolerance = 3.0

// recordComment is written into the figures file, which JSON gives no
// other way to annotate.
const recordComment = "Instructions per operation counted by internal/perfgate under cachegrind " +
	"(make perf-gate compares, failing on a growth above tolerance_percent). " +
	"Re-record after an intended change, or a Go toolchain change, with `make perf-gate-record`, " +
	"and say in the commit why the figures moved."

// Figures is the content of perf/gate.json.
type Figures struct {
	Comment          string             `json:"comment"`
	GoVersion        string             `json:"go_version"`
	GOARCH           string             `json:"goarch"`
	Warmup           int                `json:"warmup"`
	Small            int                `json:"small"`
	Large            int                `json:"large"`
	TolerancePercent float64            `json:"tolerance_percent"`
	Instructions     map[string]float64 `json:"instructions"`
}

type config struct {
	Go, Valgrind         string
	Warmup, Small, Large int
	Jobs                 int
	Only                 []string
}

// gate measures every scenario and compares with (or records to) path.
// It reports whether the gate passed.
func gate(w io.Writer, path string, record bool, cfg config) (bool, error) {
	if cfg.Large <= cfg.Small || cfg.Small <= 0 {
		return false, fmt.Errorf("need 0 < -small < -large, have %d and %d", cfg.Small, cfg.Large)
	}
	if _, err := exec.LookPath(cfg.Valgrind); err != nil {
		return false, fmt.Errorf("%s not found (Debian: apt-get install valgrind): %w", cfg.Valgrind, err)
	}
	var recorded Figures
	if !record {
		b, err := os.ReadFile(path)
		if err != nil {
			return false, fmt.Errorf("%w (record the figures with make perf-gate-record)", err)
		}
		if err := json.Unmarshal(b, &recorded); err != nil {
			return false, fmt.Errorf("%s: %w", path, err)
		}
		if recorded.GOARCH != runtime.GOARCH {
			return false, fmt.Errorf("%s holds figures for %s, this is %s: instruction counts differ between architectures",
				path, recorded.GOARCH, runtime.GOARCH)
		}
		// The recorded run's parameters, so that the figures are comparable.
		cfg.Warmup, cfg.Small, cfg.Large = recorded.Warmup, recorded.Small, recorded.Large
	}
	names := make([]string, 0, len(scenarios))
	for _, s := range scenarios {
		if len(cfg.Only) == 0 || contains(cfg.Only, s.name) {
			names = append(names, s.name)
		}
	}
	start := time.Now()
	dir, err := os.MkdirTemp("", "perfgate-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	exe, err := buildChild(cfg.Go, dir)
	if err != nil {
		return false, err
	}
	goVersion, err := childGoVersion(cfg.Go)
	if err != nil {
		return false, err
	}
	measured, err := measureAll(cfg, exe, names)
	if err != nil {
		return false, err
	}
	fmt.Fprintf(w, "perf-gate: instructions per operation under cachegrind (%d warm-up, then %d and %d measured; %s, %s/%s; %.0fs)\n",
		cfg.Warmup, cfg.Small, cfg.Large, goVersion, runtime.GOOS, runtime.GOARCH, time.Since(start).Seconds())
	if record {
		f := Figures{Comment: recordComment, GoVersion: goVersion, GOARCH: runtime.GOARCH,
			Warmup: cfg.Warmup, Small: cfg.Small, Large: cfg.Large, TolerancePercent: Tolerance, Instructions: measured}
		if old, err := readFigures(path); err == nil && len(cfg.Only) > 0 {
			// A partial record keeps the other rows.
			for k, v := range old.Instructions {
				if _, ok := f.Instructions[k]; !ok {
					f.Instructions[k] = v
				}
			}
		}
		b, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return false, err
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			return false, err
		}
		report(w, compare(measured, measured, Tolerance))
		fmt.Fprintf(w, "recorded in %s\n", path)
		return true, nil
	}
	if recorded.GoVersion != goVersion {
		fmt.Fprintf(w, "note: recorded with %s, measured with %s; a toolchain change moves the figures (re-record with make perf-gate-record)\n",
			recorded.GoVersion, goVersion)
	}
	tol := recorded.TolerancePercent
	if tol <= 0 {
		tol = Tolerance
	}
	res := compare(recorded.Instructions, measured, tol)
	report(w, res)
	return res.ok(), nil
}

func readFigures(path string) (Figures, error) {
	var f Figures
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &f)
	}
	return f, err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// row is one scenario's verdict.
type row struct {
	Name               string
	Recorded, Measured float64 // Recorded is 0 when there is no figure
	ChangePercent      float64
	Fail               string // why the row fails, or ""
}

// result is the whole comparison.
type result struct {
	Rows []row
	// Clauses are the verdicts of clauses, one per pair of rows that was
	// measured.
	Clauses []clause
}

// clause is one pair's verdict: row A costs at most Plus instructions
// more than row B.
type clause struct {
	A, B  string // the rows
	Plus  float64
	CostA float64
	CostB float64
	OK    bool
}

// FeatureAllowance is how many instructions more than the same call on the
// minimal server a plain call may cost on a server with every feature
// registered (the "full" rows). What it pays for is what is in force for
// the calling session: the server's Disable rule and the session's own
// tool and rule, which every lookup consults (visibility.go), about 760
// instructions. Everything else the server registers must cost the call
// nothing. An allowance in instructions rather than a ratio holds as the
// engine's own path gets faster.
const FeatureAllowance = 1000

// clauses are the pairs of rows the gate compares in the same run, so
// that re-recording the figures cannot hide what they judge: a stateless
// call costs at most a stateful one, in process and over
// loopback; and a plain call costs what it costs on the minimal server,
// within FeatureAllowance, whatever else the server registers,
// in process, over stdio and over loopback.
var clauses = []clause{
	{A: "stateless", B: "stateful"},
	{A: "stateless-http", B: "stateful-http"},
	{A: "full", B: "stateful", Plus: FeatureAllowance},
	{A: "full-stdio", B: "stdio", Plus: FeatureAllowance},
	{A: "full-http", B: "stateful-http", Plus: FeatureAllowance},
}

func (r result) ok() bool {
	for _, x := range r.Rows {
		if x.Fail != "" {
			return false
		}
	}
	for _, c := range r.Clauses {
		if !c.OK {
			return false
		}
	}
	return true
}

// compare judges measured against recorded: a row fails when it grew by
// more than tol per cent or has no recorded figure, and a clause fails
// when its row A costs more than Plus instructions above its row B.
func compare(recorded, measured map[string]float64, tol float64) result {
	var res result
	for _, s := range scenarios {
		m, ok := measured[s.name]
		if !ok {
			continue
		}
		x := row{Name: s.name, Measured: m}
		rec, ok := recorded[s.name]
		switch {
		case !ok || rec <= 0:
			x.Fail = "no recorded figure (make perf-gate-record)"
		default:
			x.Recorded = rec
			x.ChangePercent = (m - rec) / rec * 100
			if x.ChangePercent > tol {
				x.Fail = fmt.Sprintf("grew by more than %.3g%%", tol)
			}
		}
		res.Rows = append(res.Rows, x)
	}
	for _, c := range clauses {
		a, ok1 := measured[c.A]
		b, ok2 := measured[c.B]
		if ok1 && ok2 {
			c.CostA, c.CostB, c.OK = a, b, a <= b+c.Plus
			res.Clauses = append(res.Clauses, c)
		}
	}
	return res
}

// report prints every figure and its change, either way.
func report(w io.Writer, res result) {
	fmt.Fprintf(w, "%-14s %10s %10s %9s  %s\n", "operation", "recorded", "now", "change", "verdict")
	for _, x := range res.Rows {
		verdict, rec, change := "ok", "-", "-"
		if x.Recorded > 0 {
			rec = strconv.FormatFloat(x.Recorded, 'f', 0, 64)
			change = fmt.Sprintf("%+.2f%%", x.ChangePercent)
		}
		if x.Fail != "" {
			verdict = "FAIL: " + x.Fail
		}
		fmt.Fprintf(w, "%-14s %10s %10.0f %9s  %s\n", x.Name, rec, x.Measured, change, verdict)
	}
	for _, c := range res.Clauses {
		verdict := "ok"
		if !c.OK {
			verdict = "FAIL"
		}
		bound := ""
		if c.Plus != 0 {
			bound = fmt.Sprintf(" + %.0f", c.Plus)
		}
		fmt.Fprintf(w, "%s <= %s%s: %.0f vs %.0f instructions per call (%.3fx): %s\n",
			c.A, c.B, bound, c.CostA, c.CostB, c.CostA/c.CostB, verdict)
	}
}

// measureAll runs the two valgrind runs of every scenario, cfg.Jobs at a
// time, and returns instructions per operation by scenario.
func measureAll(cfg config, exe string, names []string) (map[string]float64, error) {
	type job struct {
		name string
		n    int
	}
	var list []job
	for _, name := range names {
		list = append(list, job{name, cfg.Small}, job{name, cfg.Large})
	}
	totals := make([]uint64, len(list))
	errs := make([]error, len(list))
	sem := make(chan struct{}, max(cfg.Jobs, 1))
	var wg sync.WaitGroup
	for i, j := range list {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			totals[i], errs[i] = instructions(cfg.Valgrind, exe, j.name, cfg.Warmup, j.n)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := make(map[string]float64, len(names))
	for i := 0; i < len(list); i += 2 {
		a, b := totals[i], totals[i+1]
		if b <= a {
			return nil, fmt.Errorf("%s: %d operations counted %d instructions, %d counted %d", list[i].name,
				list[i].n, a, list[i+1].n, b)
		}
		per := float64(b-a) / float64(list[i+1].n-list[i].n)
		out[list[i].name] = math.Round(per*10) / 10
	}
	return out, nil
}

// runtimePatch is one textual change to a file of the Go runtime for the
// measured binary.
type runtimePatch struct {
	file     string // under $GOROOT/src
	old, new string
	count    int // occurrences of old the file must have
}

// runtimePatches take the runtime's random choices out of the measured
// code. Unpatched, a row moved by up to 1.5% from run to run:
//
//   - A type assertion or type switch on an interface caches, at its call
//     site, what it found for a dynamic type, but only on a random 1 in
//     1,024 slow-path calls (fewer as the cache grows). How many 100-odd
//     instruction slow calls fall into the measured operations was a
//     matter of chance; patched, a site caches a type on its first miss,
//     during the warm-up, and the measured operations run the cached path
//     a long-running server settles into.
//   - A map's hash seed, drawn from the random state of the thread that
//     makes the map, is a constant: how many keys a lookup compares
//     follows the hash, and which thread a goroutine runs on (the runtime
//     starts one more or one fewer depending on timing) moved the counts
//     by 0.1%. The global seed, from which the threads' random states
//     derive, is fixed too.
//   - sysmon, the runtime's monitor thread, wakes on wall-clock time (every
//     20 µs to 10 ms) to poll the network, retake processors from system
//     calls and ask a goroutine that has run for 10 ms to yield. Under
//     valgrind a measured loop runs for seconds, so what sysmon did in it
//     followed the host's speed; patched, it is not started. The measured
//     program needs none of it: it makes no blocking system call, and the
//     loopback rows' sockets have their data when the peer's write
//     returns, so a goroutine waiting on one is woken by the scheduler's
//     own poll.
//
// Nothing else of the runtime changes.
var runtimePatches = []runtimePatch{
	{"runtime/iface.go", "if cheaprand()&1023 != 0 {", "if false {", 2},
	{"runtime/iface.go", "if cheaprand()&uint32(oldC.Mask) != 0 {", "if false {", 2},
	{"runtime/proc.go", "\tif haveSysmon {\n", "\tif false {\n", 1},
	{"internal/runtime/maps/map.go", "m.seed = uintptr(rand())", "m.seed = uintptr(0x9e3779b9)", 4},
	{"runtime/rand.go", "\tglobalRand.state.Init(*seed)\n",
		"\t*seed = [32]byte{'m', 'c', 'p', 'c', 'h', 'a', 'i', 'n', '-', 'p', 'e', 'r', 'f', 'g', 'a', 't', 'e'}\n" +
			"\tglobalRand.state.Init(*seed)\n", 1},
}

// buildChild builds this package into dir for the measured runs: with
// runtimePatches applied (as a go build -overlay), for GOAMD64=v1 and
// without cgo, so that the code measured is the same on every machine.
// goCmd builds it with its own toolchain (GOTOOLCHAIN=local, whatever
// go.mod asks): the overlay patches that toolchain's runtime, and the
// recorded figures belong to one Go release. The gate itself may be built
// by another (make perf-gate builds it with the toolchain of every other
// tier, whose compiled packages it then shares).
func buildChild(goCmd, dir string) (string, error) {
	root, err := goSrc(goCmd)
	if err != nil {
		return "", err
	}
	patched := map[string]string{} // file under root -> its patched text
	for _, p := range runtimePatches {
		src, ok := patched[p.file]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.file)))
			if err != nil {
				return "", err
			}
			src = string(b)
		}
		if n := strings.Count(src, p.old); n != p.count {
			return "", fmt.Errorf("$GOROOT/src/%s has %d of %q, not %d: the gate's runtime patches need updating for this Go version",
				p.file, n, strings.TrimSpace(p.old), p.count)
		}
		patched[p.file] = strings.ReplaceAll(src, p.old, p.new)
	}
	replace := map[string]string{}
	for file, src := range patched {
		dst := filepath.Join(dir, strings.ReplaceAll(file, "/", "_"))
		if err := os.WriteFile(dst, []byte(src), 0o644); err != nil {
			return "", err
		}
		replace[filepath.Join(root, filepath.FromSlash(file))] = dst
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlayPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
		return "", err
	}
	exe := filepath.Join(dir, "perfgate-child")
	cmd := exec.Command(goCmd, "build", "-trimpath", "-overlay", overlayPath, "-o", exe, "github.com/mcpchain/mcp/internal/perfgate")
	cmd.Env = append(localGoEnviron(), "GOAMD64=v1", "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the measured binary: %w\n%s", err, out)
	}
	return exe, nil
}

// goSrc is the source directory of goCmd's own standard library.
func goSrc(goCmd string) (string, error) {
	goroot, err := localGoEnv(goCmd, "GOROOT")
	if err != nil {
		return "", err
	}
	return filepath.Join(goroot, "src"), nil
}

// childGoVersion is the Go release buildChild builds with ("go1.26.8").
func childGoVersion(goCmd string) (string, error) {
	return localGoEnv(goCmd, "GOVERSION")
}

// localGoEnv is the value of one go env variable of goCmd's own
// toolchain.
func localGoEnv(goCmd, name string) (string, error) {
	cmd := exec.Command(goCmd, "env", name)
	cmd.Env = localGoEnviron()
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s env %s: %w", goCmd, name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// localGoEnviron is the environment in which a go command runs its own
// toolchain: GOTOOLCHAIN=local, and no GOROOT (a go that switched
// toolchains sets GOROOT to the new one's for the programs it starts).
func localGoEnviron() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "GOROOT=") || strings.HasPrefix(kv, "GOTOOLCHAIN=")
	})
	return append(env, "GOTOOLCHAIN=local")
}

// childEnv is the environment of a measured run: the caller's, with the
// settings the figures assume in place of any the caller had.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOMAXPROCS", "GOGC", "GODEBUG", "GOMEMLIMIT", "GOTRACEBACK":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GOMAXPROCS=1", "GOGC=off", "GODEBUG="+strings.Join(childGODEBUG, ","))
}

// instructions runs one child under cachegrind and returns the
// instructions it executed in user space.
func instructions(valgrind, exe, name string, warmup, n int) (uint64, error) {
	out, err := os.CreateTemp("", "perfgate-*.cg")
	if err != nil {
		return 0, err
	}
	_ = out.Close()
	defer os.Remove(out.Name())
	cmd := exec.Command(valgrind, "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file="+out.Name(),
		exe, "-measure", name, "-warmup", strconv.Itoa(warmup), "-n", strconv.Itoa(n))
	cmd.Env = childEnv()
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s -n %d under valgrind: %w\n%s", name, n, err, stderr.String())
	}
	f, err := os.Open(out.Name())
	if err != nil {
		return 0, err
	}
	defer f.Close()
	total, err := parseSummary(f)
	if err != nil {
		return 0, fmt.Errorf("%s -n %d: %w", name, n, err)
	}
	return total, nil
}

// parseSummary reads the Ir total from a cachegrind output file's
// "summary:" line (its first event is Ir, the only one with
// --cache-sim=no).
func parseSummary(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var events string
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "events:"); ok {
			events = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "summary:"); ok {
			if first, _, _ := strings.Cut(events, " "); first != "Ir" {
				return 0, fmt.Errorf("cachegrind output counts %q, not Ir first", events)
			}
			fields := strings.Fields(v)
			if len(fields) == 0 {
				return 0, fmt.Errorf("empty summary line")
			}
			return strconv.ParseUint(fields[0], 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no summary line in the cachegrind output")
}
