package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/cli/termtext"
)

// logLevels are the values of call's --log-level, lowest first.
var logLevels = []mcp.LogLevel{mcp.LevelDebug, mcp.LevelInfo, mcp.LevelNotice, mcp.LevelWarning,
	mcp.LevelError, mcp.LevelCritical, mcp.LevelAlert, mcp.LevelEmergency}

// logPrinter prints a server's log messages (notifications/message) on
// w, one line each, at min and above; off prints none.
type logPrinter struct {
	w   io.Writer
	min mcp.LogLevel
	off bool
}

// newLogPrinter reads --log-level: an MCP level, or "off".
func newLogPrinter(w io.Writer, level string) (*logPrinter, error) {
	l := mcp.LogLevel(strings.ToLower(level))
	if l == "off" {
		return &logPrinter{w: w, off: true}, nil
	}
	if !l.Valid() {
		names := make([]string, len(logLevels))
		for i, l := range logLevels {
			names[i] = string(l)
		}
		return nil, fmt.Errorf("--log-level %q: want off or one of %s", level, strings.Join(names, ", "))
	}
	return &logPrinter{w: w, min: l}, nil
}

// print writes m as "[level] logger: message", the message followed by
// its context as JSON when it has one (the shape package mcp's Logger
// sends); other data is printed as JSON. All of it is the server's:
// shown on one line, escaped (termtext).
func (p *logPrinter) print(m mcp.LogMessage) {
	if p.off || !m.Level.Enabled(p.min) {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] ", termtext.Line(string(m.Level)))
	if m.Logger != "" {
		fmt.Fprintf(&b, "%s: ", termtext.Line(m.Logger))
	}
	b.WriteString(logText(m.Data))
	fmt.Fprintln(p.w, b.String())
}

// logText is a log message's data as one line.
func logText(data any) string {
	switch d := data.(type) {
	case string:
		return termtext.Line(d)
	case map[string]any:
		if msg, ok := d["message"].(string); ok && len(d) <= 2 {
			ctx, has := d["context"]
			if len(d) == 1 || has {
				if !has {
					return termtext.Line(msg)
				}
				return termtext.Line(msg) + " " + compactJSON(ctx)
			}
		}
	}
	return compactJSON(data)
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(termtext.JSON(b))
}

// setLogLevel asks a server that sends log messages to send those at the
// printer's level and above (logging/setLevel); a server without the
// logging capability is not asked (it would answer an error), and "off"
// asks nothing: the printer drops what comes. A failure is a warning.
func setLogLevel(ctx context.Context, c *client.Client, p *logPrinter, errOut io.Writer) {
	if p.off || c.Initialize().Capabilities.Logging == nil {
		return
	}
	if err := c.SetLogLevel(ctx, p.min); err != nil {
		fmt.Fprintf(errOut, "mcpchain: logging/setLevel %s: %s\n", p.min, termtext.Line(err.Error()))
	}
}
