package middleware

import (
	"log/slog"
	"sync"

	"github.com/mcpchain/mcp"
)

var (
	fallbackOnce   sync.Once
	fallbackLogger *slog.Logger
)

// defaultLogger is the logger of a middleware given none: one
// mcp.DefaultLogger for the program, the format a server logs in by default.
func defaultLogger() *slog.Logger {
	fallbackOnce.Do(func() { fallbackLogger = mcp.DefaultLogger() })
	return fallbackLogger
}
