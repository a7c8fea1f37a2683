// Package progress shows a tool's progress reports: a bar redrawn in
// place with \r on a terminal, one plain line per report otherwise.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/cli/termtext"
)

// Printer writes progress reports to W.
type Printer struct {
	W io.Writer
	// Bar draws a bar redrawn in place (W is a terminal); unset, each
	// report is a line.
	Bar bool
	// Width is the bar's width in cells (default 30).
	Width int

	mu    sync.Mutex
	drawn bool
}

// Report shows one report. The message is the server's: it is shown on
// one line with what a terminal would act on escaped (termtext.Line).
func (p *Printer) Report(r mcp.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r.Message = termtext.Line(r.Message)
	if !p.Bar {
		if r.Total > 0 {
			fmt.Fprintf(p.W, "progress %s/%s %s\n", num(r.Progress), num(r.Total), r.Message)
		} else {
			fmt.Fprintf(p.W, "progress %s %s\n", num(r.Progress), r.Message)
		}
		return
	}
	fmt.Fprint(p.W, "\r\x1b[K"+p.line(r))
	p.drawn = true
}

// line is the bar's text: [#######-----]  42% 21/50 message.
func (p *Printer) line(r mcp.Progress) string {
	w := p.Width
	if w <= 0 {
		w = 30
	}
	if r.Total <= 0 {
		return fmt.Sprintf("[%s] %s %s", strings.Repeat("?", w), num(r.Progress), r.Message)
	}
	f := r.Progress / r.Total
	f = min(max(f, 0), 1)
	full := int(f * float64(w))
	return fmt.Sprintf("[%s%s] %3.0f%% %s/%s %s", strings.Repeat("#", full), strings.Repeat("-", w-full), f*100, num(r.Progress), num(r.Total), r.Message)
}

// Done ends the bar's line, if one was drawn.
func (p *Printer) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprintln(p.W)
		p.drawn = false
	}
}

func num(f float64) string { return fmt.Sprintf("%g", f) }
