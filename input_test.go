package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordingPeer answers each method with a fixed result and records what it got.
type recordingPeer struct {
	mu      sync.Mutex
	methods []string
	fail    string
}

func (p *recordingPeer) Notify(context.Context, string, any) error { return nil }

func (p *recordingPeer) Call(_ context.Context, method string, _ any) (json.RawMessage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.methods = append(p.methods, method)
	if method == p.fail {
		return nil, errors.New("refused")
	}
	return json.RawMessage(`{"m":"` + method + `"}`), nil
}

// inputPeer answers every key through Inputs.
type inputPeer struct{ recordingPeer }

func (p *inputPeer) Inputs(_ context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for k := range reqs {
		out[k] = json.RawMessage(`"batched"`)
	}
	return out, nil
}

func TestAsk(t *testing.T) {
	all := ClientCapabilities{Elicitation: &struct{}{}, Sampling: &struct{}{}, Roots: &RootsCapability{}}
	reqs := map[string]InputRequest{
		"name":  {Method: "elicitation/create", Params: map[string]any{"message": "who?"}},
		"model": {Method: "sampling/createMessage"},
		"roots": {Method: "roots/list"},
	}
	t.Run("each request over a plain peer", func(t *testing.T) {
		p := &recordingPeer{}
		c := NewContext(context.Background(), RequestInfo{Peer: p, ClientCapabilities: all})
		got, err := c.Ask(context.Background(), reqs)
		require.NoError(t, err)
		assert.JSONEq(t, `{"m":"elicitation/create"}`, string(got["name"]))
		assert.JSONEq(t, `{"m":"sampling/createMessage"}`, string(got["model"]))
		assert.JSONEq(t, `{"m":"roots/list"}`, string(got["roots"]))
		assert.ElementsMatch(t, []string{"elicitation/create", "sampling/createMessage", "roots/list"}, p.methods)
	})
	t.Run("first error ends the call", func(t *testing.T) {
		p := &recordingPeer{fail: "roots/list"}
		c := NewContext(context.Background(), RequestInfo{Peer: p, ClientCapabilities: all})
		_, err := c.Ask(context.Background(), reqs)
		require.EqualError(t, err, "refused")
	})
	t.Run("undeclared capability", func(t *testing.T) {
		p := &recordingPeer{}
		c := NewContext(context.Background(), RequestInfo{Peer: p, ClientCapabilities: ClientCapabilities{Sampling: &struct{}{}}})
		_, err := c.Ask(context.Background(), reqs)
		require.ErrorIs(t, err, ErrCapability)
		assert.Empty(t, p.methods, "nothing is sent when one capability is missing")
	})
	t.Run("no peer", func(t *testing.T) {
		c := NewContext(context.Background(), RequestInfo{ClientCapabilities: all})
		_, err := c.Ask(context.Background(), reqs)
		require.ErrorIs(t, err, ErrNoPeer)
	})
	t.Run("input peer gets the batch", func(t *testing.T) {
		p := &inputPeer{}
		c := NewContext(context.Background(), RequestInfo{Peer: p, ClientCapabilities: all})
		got, err := c.Ask(context.Background(), reqs)
		require.NoError(t, err)
		assert.Len(t, got, 3)
		assert.JSONEq(t, `"batched"`, string(got["roots"]))
		assert.Empty(t, p.methods, "an InputPeer is not called request by request")
	})
}
