package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
)

// result is one server's repetition, as the harness writes it (only the
// fields the chart uses).
type result struct {
	Name            string  `json:"name"`
	RSS1kSessionsMB float64 `json:"rss_1k_sessions_mb"`
	Errors          int     `json:"errors"`
	Phases          map[string]struct {
		OpsPerS       float64 `json:"ops_per_s"`
		ServerCPUUsOp float64 `json:"server_cpu_us_per_op"`
	} `json:"phases"`
	Stdio *struct {
		SeqPerS float64 `json:"seq_per_s"`
	} `json:"stdio"`
}

// readResults decodes the JSON lines of a harness run; blank lines are
// skipped, anything else that is not a result is an error naming its line.
func readResults(r io.Reader) ([]result, error) {
	var out []result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var res result
		if err := json.Unmarshal([]byte(line), &res); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if res.Name == "" {
			return nil, fmt.Errorf("line %d: a result without a server name", n)
		}
		out = append(out, res)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no results")
	}
	return out, nil
}

// A measure is one panel of the chart.
type measure struct {
	title  string
	unit   string
	better string // "higher" or "lower"
	value  func(result) (float64, bool)
}

var measures = []measure{
	{"tools/call throughput, 16 clients", "calls/s", "higher", func(r result) (float64, bool) {
		p, ok := r.Phases["c16"]
		return p.OpsPerS, ok && p.OpsPerS > 0
	}},
	{"server CPU per call, 16 clients", "µs", "lower", func(r result) (float64, bool) {
		p, ok := r.Phases["c16"]
		return p.ServerCPUUsOp, ok && p.ServerCPUUsOp > 0
	}},
	{"session churn (initialize, call, DELETE), 16 clients", "ops/s", "higher", func(r result) (float64, bool) {
		p, ok := r.Phases["churn16"]
		return p.OpsPerS, ok && p.OpsPerS > 0
	}},
	{"stdio, sequential calls", "calls/s", "higher", func(r result) (float64, bool) {
		if r.Stdio == nil || r.Stdio.SeqPerS <= 0 {
			return 0, false
		}
		return r.Stdio.SeqPerS, true
	}},
	{"memory with 1,000 open sessions", "MB", "lower", func(r result) (float64, bool) {
		return r.RSS1kSessionsMB, r.RSS1kSessionsMB > 0
	}},
}

// bar is one server's median in one panel.
type bar struct {
	server string
	value  float64
}

// panel is one measure's bars, best first.
type panel struct {
	measure
	bars []bar
}

// summarize takes the median of each server's repetitions per measure.
// A repetition with errors does not count.
func summarize(rows []result) []panel {
	var panels []panel
	for _, m := range measures {
		byServer := map[string][]float64{}
		for _, r := range rows {
			if r.Errors != 0 {
				continue
			}
			if v, ok := m.value(r); ok {
				byServer[r.Name] = append(byServer[r.Name], v)
			}
		}
		p := panel{measure: m}
		for s, vs := range byServer {
			p.bars = append(p.bars, bar{s, median(vs)})
		}
		sort.Slice(p.bars, func(i, j int) bool {
			a, b := p.bars[i], p.bars[j]
			if a.value != b.value {
				if m.better == "higher" {
					return a.value > b.value
				}
				return a.value < b.value
			}
			return a.server < b.server
		})
		if len(p.bars) > 0 {
			panels = append(panels, p)
		}
	}
	return panels
}

func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Layout, in SVG user units.
const (
	width    = 760
	labelW   = 190 // the server names
	valueW   = 90  // the figures right of the bars
	barH     = 16
	rowH     = 22
	panelPad = 46 // the panel's heading
	top      = 40
)

// render draws the panels one under another. Bars of the servers whose
// name starts with "ours" are drawn in the accent colour.
func render(title string, panels []panel) []byte {
	height := top
	for _, p := range panels {
		height += panelPad + rowH*len(p.bars) + 10
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	fmt.Fprintf(&b, `<text x="10" y="24" font-size="15" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
	y := top
	for _, p := range panels {
		fmt.Fprintf(&b, `<text x="10" y="%d" font-size="13" font-weight="bold">%s (%s, %s is better)</text>`+"\n",
			y+24, html.EscapeString(p.title), html.EscapeString(p.unit), p.better)
		maxV := 0.0
		for _, br := range p.bars {
			maxV = math.Max(maxV, br.value)
		}
		scale := float64(width-labelW-valueW-20) / maxV
		for i, br := range p.bars {
			by := y + panelPad + i*rowH
			fill := "#9aa5b1"
			if strings.HasPrefix(br.server, "ours") {
				fill = "#1f6feb"
			}
			w := br.value * scale
			fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW, by+barH-4, html.EscapeString(br.server))
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%s" height="%d" fill="%s"><title>%s: %s %s</title></rect>`+"\n",
				labelW+8, by, num(w), barH, fill, html.EscapeString(br.server), figure(br.value), html.EscapeString(p.unit))
			fmt.Fprintf(&b, `<text x="%s" y="%d">%s</text>`+"\n", num(float64(labelW+8)+w+6), by+barH-4, figure(br.value))
		}
		y += panelPad + rowH*len(p.bars) + 10
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// num formats a coordinate with one decimal, the same on every run.
func num(v float64) string { return fmt.Sprintf("%.1f", v) }

// figure formats a measured value for a reader: thousands separated,
// decimals only for small values.
func figure(v float64) string {
	if v >= 100 {
		s := fmt.Sprintf("%.0f", v)
		var out []byte
		for i, c := range []byte(s) {
			if i > 0 && (len(s)-i)%3 == 0 {
				out = append(out, ',')
			}
			out = append(out, c)
		}
		return string(out)
	}
	return fmt.Sprintf("%.1f", v)
}
