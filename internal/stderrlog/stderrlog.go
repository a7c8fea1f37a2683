// Package stderrlog is the logger a server logs to when mcp.Options.Logger
// is nil, and a middleware given no logger: tint on stderr at level info,
// colourless when stderr is not a terminal. Stdout is never written: it
// is the stdio transport.
package stderrlog

import (
	"log/slog"
	"os"
	"time"

	"github.com/lmittmann/tint"
)

// New returns a new default logger.
func New() *slog.Logger {
	return slog.New(tint.NewTextHandler(os.Stderr, &tint.Options{Level: slog.LevelInfo, TimeFormat: time.TimeOnly, NoColor: !isTerminal(os.Stderr)}))
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
