package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every scenario answers correctly when run natively: the measured
// operations are the ones the gate names.
func TestScenariosRun(t *testing.T) {
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) {
			if err := run(s, 3, 5); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	rec := map[string]float64{"stateful": 1000, "stateless": 900, "stdio": 2000, "churn": 5000}
	tests := []struct {
		name     string
		measured map[string]float64
		ok       bool
		fails    []string // rows expected to fail
		clause   string
	}{
		{"equal", rec, true, nil, "ok"},
		{"faster", map[string]float64{"stateful": 900, "stateless": 800, "stdio": 1500, "churn": 4000}, true, nil, "ok"},
		{"within 3%", map[string]float64{"stateful": 1030, "stateless": 927, "stdio": 2059, "churn": 5149}, true, nil, "ok"},
		{"one grows 3.1%", map[string]float64{"stateful": 1031, "stateless": 900, "stdio": 2000, "churn": 5000}, false, []string{"stateful"}, "ok"},
		{"churn grows", map[string]float64{"stateful": 1000, "stateless": 900, "stdio": 2000, "churn": 6000}, false, []string{"churn"}, "ok"},
		{"stateless above stateful", map[string]float64{"stateful": 910, "stateless": 920, "stdio": 2000, "churn": 5000}, false, nil, "fail"},
		{"unrecorded row", map[string]float64{"stateful": 1000, "stateless": 900, "stdio": 2000, "churn": 5000, "extra": 1}, true, nil, "ok"},
		{"only stdio", map[string]float64{"stdio": 2000}, true, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := compare(rec, tt.measured, Tolerance)
			if res.ok() != tt.ok {
				t.Errorf("ok() = %v, want %v: %+v", res.ok(), tt.ok, res)
			}
			var fails []string
			for _, r := range res.Rows {
				if r.Fail != "" {
					fails = append(fails, r.Name)
				}
			}
			if strings.Join(fails, ",") != strings.Join(tt.fails, ",") {
				t.Errorf("failing rows %v, want %v", fails, tt.fails)
			}
			clause := ""
			for _, c := range res.Clauses {
				if c.A == "stateless" {
					clause = map[bool]string{true: "ok", false: "fail"}[c.OK]
				}
			}
			if clause != tt.clause {
				t.Errorf("clause %q, want %q", clause, tt.clause)
			}
			var out bytes.Buffer
			report(&out, res)
			for _, r := range res.Rows {
				if !strings.Contains(out.String(), r.Name) {
					t.Errorf("report lacks %s:\n%s", r.Name, out.String())
				}
			}
		})
	}
}

// Each clause (stateless at most stateful; a plain call on the full
// server within FeatureAllowance of the minimal one) is judged on its
// own.
func TestCompareClauses(t *testing.T) {
	rec := map[string]float64{"stateful": 100, "stateless": 90, "stateful-http": 200, "stateless-http": 180,
		"stdio": 100, "full": 1100, "full-stdio": 1100, "full-http": 1100}
	tests := []struct {
		name     string
		measured map[string]float64
		ok       []bool // the verdicts, in process then over loopback
	}{
		{"both hold", map[string]float64{"stateful": 100, "stateless": 90, "stateful-http": 200, "stateless-http": 180}, []bool{true, true}},
		{"loopback reversed", map[string]float64{"stateful": 100, "stateless": 90, "stateful-http": 180, "stateless-http": 181}, []bool{true, false}},
		{"equal holds", map[string]float64{"stateful": 100, "stateless": 100}, []bool{true}},
		{"only loopback measured", map[string]float64{"stateful-http": 200, "stateless-http": 201}, []bool{false}},
		{"features within the allowance", map[string]float64{"stateful": 100, "full": 100 + FeatureAllowance}, []bool{true}},
		{"features above the allowance", map[string]float64{"stateful": 100, "full": 100.1 + FeatureAllowance}, []bool{false}},
		{"features over stdio and loopback", map[string]float64{"stdio": 100, "full-stdio": 1101, "stateful-http": 100, "full-http": 100}, []bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := compare(rec, tt.measured, 50)
			var got []bool
			for _, c := range res.Clauses {
				got = append(got, c.OK)
			}
			if len(got) != len(tt.ok) {
				t.Fatalf("clauses %+v, want %v", res.Clauses, tt.ok)
			}
			for i := range got {
				if got[i] != tt.ok[i] {
					t.Errorf("clause %d: %v, want %v (%+v)", i, got[i], tt.ok[i], res.Clauses[i])
				}
			}
			want := true
			for _, ok := range tt.ok {
				want = want && ok
			}
			if res.ok() != want {
				t.Errorf("ok() = %v, want %v", res.ok(), want)
			}
		})
	}
}

func TestCompareMissingRecord(t *testing.T) {
	res := compare(map[string]float64{"stateful": 1000}, map[string]float64{"stateful": 1000, "churn": 10}, Tolerance)
	if res.ok() {
		t.Fatalf("a row without a recorded figure passed: %+v", res)
	}
}

func TestParseSummary(t *testing.T) {
	tests := []struct {
		name, in string
		want     uint64
		err      bool
	}{
		{"cachegrind", "desc: I1 cache: ...\ncmd: x\nevents: Ir\nfl=a.go\n1 2\nsummary: 123456789\n", 123456789, false},
		{"more events", "events: Ir I1mr\nsummary: 42 7\n", 42, false},
		{"Ir not first", "events: Dr Ir\nsummary: 1 2\n", 0, true},
		{"no summary", "events: Ir\nfl=a\n", 0, true},
		{"garbage", "events: Ir\nsummary: lots\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseSummary(strings.NewReader(tt.in))
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("parseSummary = %d, %v; want %d, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestCheckChildEnv(t *testing.T) {
	good := map[string]string{"GOGC": "off", "GODEBUG": "x=1,cpu.all=off,asyncpreemptoff=1,memprofilerate=0"}
	tests := []struct {
		name    string
		env     map[string]string
		procs   int
		missing string
	}{
		{"all set", good, 1, ""},
		{"two procs", good, 2, "GOMAXPROCS=1"},
		{"gc on", map[string]string{"GODEBUG": good["GODEBUG"]}, 1, "GOGC=off"},
		{"no godebug", map[string]string{"GOGC": "off"}, 1, "cpu.all=off"},
		{"preemption on", map[string]string{"GOGC": "off", "GODEBUG": "cpu.all=off,memprofilerate=0"}, 1, "asyncpreemptoff=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkChildEnv(func(k string) string { return tt.env[k] }, tt.procs)
			if tt.missing == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.missing) {
				t.Fatalf("error %v, want one naming %s", err, tt.missing)
			}
		})
	}
}

// The child's environment replaces the caller's settings.
func TestChildEnv(t *testing.T) {
	t.Setenv("GOGC", "50")
	t.Setenv("GOMAXPROCS", "8")
	t.Setenv("GODEBUG", "gctrace=1")
	env := map[string]string{}
	for _, kv := range childEnv() {
		k, v, _ := strings.Cut(kv, "=")
		if _, dup := env[k]; dup {
			t.Fatalf("%s set twice", k)
		}
		env[k] = v
	}
	if err := checkChildEnv(func(k string) string { return env[k] }, 1); err != nil {
		t.Fatal(err)
	}
	if env["GOMAXPROCS"] != "1" || strings.Contains(env["GODEBUG"], "gctrace") {
		t.Fatalf("child environment %v", env)
	}
}

// The runtime patches apply to the Go the gate builds its measured
// binary with (the go command's own toolchain): a toolchain upgrade that
// moves a patched line fails here, not only in the gate.
func TestRuntimePatchesApply(t *testing.T) {
	root, err := goSrc("go")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range runtimePatches {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.file)))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(b), p.old); n != p.count {
			t.Errorf("%s: %d of %q, want %d", p.file, n, p.old, p.count)
		}
	}
}

// The measured binary's go runs its own toolchain, whatever the
// environment of the gate says: a go that switched toolchains leaves
// GOROOT and GOTOOLCHAIN set for its programs.
func TestLocalGoEnvIgnoresSwitchedToolchain(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	bogus := t.TempDir()
	t.Setenv("GOROOT", bogus)
	t.Setenv("GOTOOLCHAIN", "go1.99.0")
	root, err := localGoEnv(goCmd, "GOROOT")
	if err != nil {
		t.Fatal(err)
	}
	if root == bogus {
		t.Fatalf("GOROOT %s came from the environment", root)
	}
	if _, err := os.Stat(filepath.Join(root, "src", "runtime", "proc.go")); err != nil {
		t.Fatalf("GOROOT %s has no runtime: %v", root, err)
	}
	v, err := childGoVersion(goCmd)
	if err != nil || !strings.HasPrefix(v, "go1.") || v == "go1.99.0" {
		t.Fatalf("childGoVersion = %q, %v", v, err)
	}
}
