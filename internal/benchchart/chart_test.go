package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// line is one harness result with the given throughput at 16 clients,
// CPU per call, churn, stdio rate (0: no stdio) and memory.
func line(name string, c16, cpu, churn, stdio, mem float64, errs int) string {
	s := `{"name":"` + name + `","rss_1k_sessions_mb":` + ftoa(mem) + `,"errors":` + strconv.Itoa(errs) +
		`,"phases":{"c16":{"ops_per_s":` + ftoa(c16) + `,"server_cpu_us_per_op":` + ftoa(cpu) +
		`},"churn16":{"ops_per_s":` + ftoa(churn) + `}}`
	if stdio > 0 {
		s += `,"stdio":{"seq_per_s":` + ftoa(stdio) + `}`
	}
	return s + "}\n"
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func TestReadResultsRefusesWhatIsNotAResult(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "no results"},
		{"blank lines only", "\n\n", "no results"},
		{"not JSON", line("a", 1, 1, 1, 1, 1, 0) + "{oops\n", "line 2"},
		{"no name", `{"errors":0}` + "\n", "line 1: a result without a server name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readResults(strings.NewReader(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestSummarizeTakesMediansBestFirst(t *testing.T) {
	t.Parallel()
	in := line("ours", 300, 20, 90, 1000, 17, 0) + line("ours", 100, 30, 70, 3000, 15, 0) + line("ours", 200, 25, 80, 2000, 16, 0) +
		line("peer", 150, 40, 60, 0, 30, 0) + line("peer", 150, 40, 60, 0, 30, 0) +
		line("broken", 9999, 1, 9999, 9999, 1, 3) // a repetition with errors does not count
	rows, err := readResults(strings.NewReader(in))
	require.NoError(t, err)
	panels := summarize(rows)
	require.Len(t, panels, len(measures))
	got := map[string][]bar{}
	for _, p := range panels {
		got[p.title] = p.bars
	}
	assert.Equal(t, []bar{{"ours", 200}, {"peer", 150}}, got[measures[0].title], "throughput: median, higher first")
	assert.Equal(t, []bar{{"ours", 25}, {"peer", 40}}, got[measures[1].title], "CPU: lower first")
	assert.Equal(t, []bar{{"ours", 2000}}, got[measures[3].title], "stdio: only servers that have it")
	assert.Equal(t, []bar{{"ours", 16}, {"peer", 30}}, got[measures[4].title])
	assert.Equal(t, 2.5, median([]float64{4, 1, 3, 2}), "even count: the mean of the middle two")
}

// TestRenderIsSVGWithProportionalBars: the output is well-formed XML, the
// same for the same input, and each bar's width is proportional to its
// value within its panel.
func TestRenderIsSVGWithProportionalBars(t *testing.T) {
	t.Parallel()
	rows, err := readResults(strings.NewReader(line("ours", 400, 20, 90, 1000, 17, 0) + line("mcpgo", 100, 40, 60, 500, 30, 0)))
	require.NoError(t, err)
	svg := render("a <title> & more", summarize(rows))
	assert.Equal(t, svg, render("a <title> & more", summarize(rows)), "deterministic")

	dec := xml.NewDecoder(strings.NewReader(string(svg)))
	for {
		_, err := dec.Token()
		if err != nil {
			require.ErrorContains(t, err, "EOF", "well-formed XML")
			break
		}
	}
	assert.Contains(t, string(svg), "a &lt;title&gt; &amp; more")

	re := regexp.MustCompile(`<rect x="198" y="\d+" width="([0-9.]+)" height="16" fill="(#[0-9a-f]+)"><title>(\w+): `)
	m := re.FindAllStringSubmatch(string(svg), -1)
	require.Len(t, m, 2*len(measures))
	// The first panel: throughput, ours (400) then mcpgo (100).
	ours, _ := strconv.ParseFloat(m[0][1], 64)
	peer, _ := strconv.ParseFloat(m[1][1], 64)
	assert.Equal(t, "ours", m[0][3])
	assert.Equal(t, "#1f6feb", m[0][2], "ours in the accent colour")
	assert.Equal(t, "#9aa5b1", m[1][2])
	assert.InDelta(t, 4.0, ours/peer, 0.01)
}

func TestRunWritesTheChart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "run.jsonl")
	require.NoError(t, os.WriteFile(in, []byte(line("ours", 1, 1, 1, 1, 1, 0)), 0o644))
	out := filepath.Join(dir, "chart.svg")
	require.NoError(t, run(in, out, ""))
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(b), "(run.jsonl)")
	assert.Error(t, run(filepath.Join(dir, "missing.jsonl"), out, ""))
}

func FuzzReadResults(f *testing.F) {
	f.Add(line("ours", 1, 2, 3, 4, 5, 0))
	f.Add(`{"name":"x","phases":{"c16":null}}` + "\n")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := readResults(strings.NewReader(in))
		if err != nil {
			return
		}
		_ = render("t", summarize(rows))
	})
}
