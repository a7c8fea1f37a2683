package progress

import (
	"bytes"
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
