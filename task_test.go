package mcp

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/engine"
)

// starterPeer is a peer that is an engine.TaskStarter.
type starterPeer struct {
	recordingPeer
	calls int
	err   error
}

func (p *starterPeer) StartTask(context.Context) error { p.calls++; return p.err }

func TestContextStartTask(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	tests := []struct {
		name      string
		peer      engine.Peer
		wantErr   error
		wantCalls int
	}{
		{"no peer: nothing to start", nil, nil, 0},
		{"a plain peer: an ordinary call goes on", &recordingPeer{}, nil, 0},
		{"a task starter starts the task", &starterPeer{}, nil, 1},
		{"its error is returned", &starterPeer{err: boom}, boom, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newContext(t.Context(), requestInfo{Peer: tc.peer, RequestID: "7"})
			err := c.StartTask(t.Context())
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
			} else {
				assert.NoError(t, err)
			}
			if sp, ok := tc.peer.(*starterPeer); ok {
				assert.Equal(t, tc.wantCalls, sp.calls)
			}
			assert.Equal(t, "7", contextInfo(c).RequestID, "contextInfo returns what the Context was built from")
		})
	}
}

func TestLookupTool(t *testing.T) {
	t.Parallel()
	s := NewServer(Options{Name: "t", Version: "1.0.0"})
	AddTool(s, Tool{Name: "job", Task: &TaskOptions{Required: true}}, func(context.Context, *Context, struct{}) (string, error) { return "", nil })
	AddTool(s, Tool{Name: "hidden", CanAccess: func(_ context.Context, auth any) bool { return auth == "admin" }},
		func(context.Context, *Context, struct{}) (string, error) { return "", nil })
	got, ok := s.lookupTool(t.Context(), nil, "", "job")
	require.True(t, ok)
	require.NotNil(t, got.Task)
	assert.True(t, got.Task.Required)
	_, ok = s.lookupTool(t.Context(), nil, "", "nope")
	assert.False(t, ok)
	_, ok = s.lookupTool(t.Context(), "guest", "", "hidden")
	assert.False(t, ok, "a hidden tool is not found")
	_, ok = s.lookupTool(t.Context(), "admin", "", "hidden")
	assert.True(t, ok)
}
