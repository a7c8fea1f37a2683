package mcptest

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
)

// Probe lets a test watch a slow tool: register [Probe.Tool] as a tool;
// Started is closed when it first runs, and Stopped receives what ended
// each run: the cause of its context's end (a cancel, a timeout), or nil
// when it ran for its full 30 seconds.
type Probe struct {
	// Started is closed when the tool first runs.
	Started chan struct{}
	// Stopped receives what ended a run: its context's cause, or nil.
	Stopped chan error
	once    sync.Once
}

// NewProbe returns a probe whose Stopped holds one report unread.
func NewProbe() *Probe {
	return &Probe{Started: make(chan struct{}), Stopped: make(chan error, 1)}
}

// errNoProbe is what Tool of a nil probe returns.
var errNoProbe = errors.New("mcptest: this tool has no probe")

// Tool is a tool function that waits for its context to end (or 30
// seconds), reporting on the probe. On a nil probe it fails at once, so
// a fixture server can offer the tool without a probe.
func (p *Probe) Tool(ctx context.Context, _ *mcp.Context, _ struct{}) (string, error) {
	if p == nil {
		return "", errNoProbe
	}
	p.once.Do(func() { close(p.Started) })
	select {
	case <-ctx.Done():
		p.report(context.Cause(ctx))
		return "", ctx.Err()
	case <-time.After(30 * time.Second):
		p.report(nil)
		return "finished", nil
	}
}

func (p *Probe) report(err error) {
	select {
	case p.Stopped <- err:
	default: // a report is already waiting to be read
	}
}
