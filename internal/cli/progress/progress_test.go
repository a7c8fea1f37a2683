package progress

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

func TestPrinter(t *testing.T) {
	var b bytes.Buffer
	p := &Printer{W: &b, Bar: true, Width: 10}
	p.Report(mcp.Progress{Progress: 5, Total: 10, Message: "half"})
	p.Report(mcp.Progress{Progress: 20, Total: 10})
	p.Done()
	require.Equal(t, "\r\x1b[K[#####-----]  50% 5/10 half\r\x1b[K[##########] 100% 20/10 \n", b.String())

	b.Reset()
	p = &Printer{W: &b}
	p.Report(mcp.Progress{Progress: 1, Total: 3, Message: "step"})
	p.Report(mcp.Progress{Progress: 2})
	p.Done()
	require.Equal(t, "progress 1/3 step\nprogress 2 \n", b.String())
}

// TestPrinterEscapesTheServersMessage: a progress message is the
// server's; an escape sequence in it (one that erases the bar's line and
// writes another, or writes the clipboard) is shown escaped, on the bar
// and on lines.
func TestPrinterEscapesTheServersMessage(t *testing.T) {
	t.Parallel()
	for _, bar := range []bool{true, false} {
		var b bytes.Buffer
		p := &Printer{W: &b, Bar: bar, Width: 4}
		p.Report(mcp.Progress{Progress: 1, Total: 2, Message: "ok\x1b[2K\r\x1b]52;c;ZXZpbA==\x07done\u202e"})
		p.Done()
		out := b.String()
		if bar {
			out = strings.TrimPrefix(out, "\r\x1b[K") // the bar's own redraw
		}
		require.NotContains(t, out, "\x1b")
		require.NotContains(t, out, "\u202e")
		require.Contains(t, out, `ok\x1b[2K\x0d\x1b]52;c;ZXZpbA==\x07done\u202e`)
	}
}
