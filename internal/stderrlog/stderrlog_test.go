package stderrlog

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNewLogsAtInfo checks the default level: info and above, not debug.
func TestNewLogsAtInfo(t *testing.T) {
	t.Parallel()
	l := New()
	assert.True(t, l.Enabled(context.Background(), slog.LevelInfo))
	assert.False(t, l.Enabled(context.Background(), slog.LevelDebug))
}

// TestIsTerminal checks that a regular file is not a terminal, so the
// logs of a server whose stderr goes to a file carry no colour codes.
func TestIsTerminal(t *testing.T) {
	t.Parallel()
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	assert.False(t, isTerminal(f))
}
