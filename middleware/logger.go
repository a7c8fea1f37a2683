package middleware

import (
	"log/slog"
	"sync"

	"github.com/mcpchain/mcp/internal/stderrlog"
)

var (
	fallbackOnce   sync.Once
	fallbackLogger *slog.Logger
)

// defaultLogger is the logger of a middleware given none: one for the
// program, in the format a server logs in by default.
func defaultLogger() *slog.Logger {
	fallbackOnce.Do(func() { fallbackLogger = stderrlog.New() })
	return fallbackLogger
}
