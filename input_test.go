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

// fakeInputPeer answers every key through Inputs.
type fakeInputPeer struct{ recordingPeer }

func (p *fakeInputPeer) Inputs(_ context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for k := range reqs {
		out[k] = json.RawMessage(`"batched"`)
	}
	return out, nil
}

func TestAsk(t *testing.T) {
	all := ClientCapabilities{Elicitation: &ElicitationCapability{}, Sampling: &SamplingCapability{}, Roots: &RootsCapability{}}
	reqs := map[string]InputRequest{
		"name":  {Method: "elicitation/create", Params: map[string]any{"message": "who?"}},
		"model": {Method: "sampling/createMessage"},
		"roots": {Method: "roots/list"},
	}
	t.Run("each request over a plain peer", func(t *testing.T) {
		p := &recordingPeer{}
		c := newContext(context.Background(), requestInfo{Peer: p, ClientCapabilities: all})
		got, err := c.Ask(context.Background(), reqs)
		require.NoError(t, err)
		assert.JSONEq(t, `{"m":"elicitation/create"}`, string(got["name"]))
		assert.JSONEq(t, `{"m":"sampling/createMessage"}`, string(got["model"]))
		assert.JSONEq(t, `{"m":"roots/list"}`, string(got["roots"]))
		assert.ElementsMatch(t, []string{"elicitation/create", "sampling/createMessage", "roots/list"}, p.methods)
	})
	t.Run("first error ends the call", func(t *testing.T) {
		p := &recordingPeer{fail: "roots/list"}
		c := newContext(context.Background(), requestInfo{Peer: p, ClientCapabilities: all})
		_, err := c.Ask(context.Background(), reqs)
		require.EqualError(t, err, "refused")
	})
	t.Run("undeclared capability", func(t *testing.T) {
		p := &recordingPeer{}
		c := newContext(context.Background(), requestInfo{Peer: p, ClientCapabilities: ClientCapabilities{Sampling: &SamplingCapability{}}})
		_, err := c.Ask(context.Background(), reqs)
		require.ErrorIs(t, err, ErrCapability)
		assert.Empty(t, p.methods, "nothing is sent when one capability is missing")
	})
	t.Run("no peer", func(t *testing.T) {
		c := newContext(context.Background(), requestInfo{ClientCapabilities: all})
		_, err := c.Ask(context.Background(), reqs)
		require.ErrorIs(t, err, ErrNoPeer)
	})
	t.Run("input peer gets the batch", func(t *testing.T) {
		p := &fakeInputPeer{}
		c := newContext(context.Background(), requestInfo{Peer: p, ClientCapabilities: all})
		got, err := c.Ask(context.Background(), reqs)
		require.NoError(t, err)
		assert.Len(t, got, 3)
		assert.JSONEq(t, `"batched"`, string(got["roots"]))
		assert.Empty(t, p.methods, "an inputPeer is not called request by request")
	})
}

// keyedPeer answers the keys it has and records every question by key;
// a question without an answer ends the round.
type keyedPeer struct {
	recordingPeer
	answers map[string]string
	asked   map[string]InputRequest
}

func (p *keyedPeer) Inputs(_ context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error) {
	out := map[string]json.RawMessage{}
	for k, r := range reqs {
		p.asked[k] = r
		a, ok := p.answers[k]
		if !ok {
			return nil, ErrInputRequired
		}
		out[k] = json.RawMessage(a)
	}
	return out, nil
}

// samplingResult is the part of a sampling result the tests read.
type samplingResult struct {
	Role  string `json:"role"`
	Model string `json:"model"`
}

// sample asks c's client for a completion as package sampling does,
// through the engine's view.
func sample(ctx context.Context, c *Context) (*samplingResult, error) {
	var res samplingResult
	err := (*engineView)(nil).AskNext(ctx, c, c.ClientCapabilities.Sampling != nil, "sampling", "sampling/createMessage", map[string]int{"maxTokens": 5}, &res)
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// elicitVia asks c's client as package elicit's Create does, through the
// engine's view; nil params are sent as {}.
func elicitVia(ctx context.Context, c *Context, p *elicitParams) (*elicitResult, error) {
	var params any = p
	if p == nil {
		params = struct{}{}
	}
	var res elicitResult
	if err := (*engineView)(nil).AskNext(ctx, c, c.ClientCapabilities.Elicitation != nil, "elicitation", "elicitation/create", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// TestAskThroughInputPeer: Elicit, Sample and Roots over an inputPeer are
// questions under keys counted per kind and per Context, so a handler run
// again asks under the same keys; they send no request.
func TestAskThroughInputPeer(t *testing.T) {
	all := ClientCapabilities{Elicitation: &ElicitationCapability{}, Sampling: &SamplingCapability{}, Roots: &RootsCapability{}}
	run := func(p *keyedPeer) (string, error) {
		c := newContext(context.Background(), requestInfo{Peer: p, ClientCapabilities: all})
		ctx := context.Background()
		e1, err := elicitVia(ctx, c, &elicitParams{Message: "first?"})
		if err != nil {
			return "", err
		}
		e2, err := elicitVia(ctx, c, nil)
		if err != nil {
			return "", err
		}
		s, err := sample(ctx, c)
		if err != nil {
			return "", err
		}
		roots, err := c.Roots(ctx)
		if err != nil {
			return "", err
		}
		return e1.Action + "," + e2.Action + "," + s.Model + "," + roots[0].URI, nil
	}
	p := &keyedPeer{answers: map[string]string{}, asked: map[string]InputRequest{}}
	_, err := run(p)
	require.ErrorIs(t, err, ErrInputRequired)
	require.Contains(t, p.asked, "elicitation-1")
	assert.Equal(t, "elicitation/create", p.asked["elicitation-1"].Method)

	p.answers["elicitation-1"] = `{"action":"accept"}`
	_, err = run(p)
	require.ErrorIs(t, err, ErrInputRequired)
	require.Contains(t, p.asked, "elicitation-2", "the second Elicit has the next key")
	assert.Equal(t, struct{}{}, p.asked["elicitation-2"].Params, "nil params are sent as {}")

	p.answers["elicitation-2"] = `{"action":"decline"}`
	p.answers["sampling-1"] = `{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}`
	p.answers["roots-1"] = `{"roots":[{"uri":"file:///r"}]}`
	got, err := run(p)
	require.NoError(t, err)
	assert.Equal(t, "accept,decline,m,file:///r", got)
	assert.Equal(t, "roots/list", p.asked["roots-1"].Method)
	assert.Empty(t, p.methods, "no server-to-client request was sent")

	t.Run("an answer that does not decode is -32602", func(t *testing.T) {
		p := &keyedPeer{answers: map[string]string{"sampling-1": `{"role":5}`}, asked: map[string]InputRequest{}}
		c := newContext(context.Background(), requestInfo{Peer: p, ClientCapabilities: all})
		_, err := sample(context.Background(), c)
		var je *Error
		require.ErrorAs(t, err, &je)
		assert.Equal(t, int64(CodeInvalidParams), je.Code)
		assert.Contains(t, je.Message, `"sampling-1"`)
	})
	t.Run("undeclared capabilities are refused before asking", func(t *testing.T) {
		p := &keyedPeer{answers: map[string]string{}, asked: map[string]InputRequest{}}
		c := newContext(context.Background(), requestInfo{Peer: p})
		_, err := elicitVia(context.Background(), c, &elicitParams{})
		require.ErrorIs(t, err, ErrCapability)
		_, err = c.Roots(context.Background())
		require.ErrorIs(t, err, ErrCapability)
		assert.Empty(t, p.asked)
	})
}
