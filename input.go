package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/mcpchain/mcp/internal/engine"
)

// ErrInputRequired is what [Context.Ask], [Context.Roots] and the
// questions of packages elicit and sampling (Create) return when the client has not
// answered yet (revision 2026-07-28, or a task): the current round of the request ends, the transport
// sends the questions (an input-required result in revision 2026-07-28,
// a task's input_required status) and the handler runs again from the
// start once the answers are in. A handler that gets it should return
// it (or any error): what it returns in this round is not sent.
var ErrInputRequired = errors.New("mcp: the client's input is required first; this round of the request ends and the request runs again with the answers")

// InputRequest is one question a server puts to its client: a
// server-to-client request such as elicitation/create,
// sampling/createMessage or roots/list.
type InputRequest struct {
	// Method is the request's method, e.g. "elicitation/create".
	Method string `json:"method"`
	// Params are the request's params; nil is sent as {}.
	Params any `json:"params"`
}

// inputPeer is the peer of a revision 2026-07-28 request or of a task,
// which puts several questions to the client at once; see
// engine.InputPeer.
type inputPeer = engine.InputPeer[InputRequest]

// Ask puts every question in reqs to the client and returns the raw
// results by the same keys. Each method needs the capability the client
// declared for it (elicitation in the params' mode, sampling, roots),
// else [ErrCapability] ([ErrURLElicitation] for URL mode); an
// elicitation/create in URL mode needs a URL a user may be asked to open
// (an absolute https URL, or http to this machine, without user
// information). Params of any type are checked as they go on the wire.
// With revision 2026-07-28 and in a task the questions go out together
// (an input-required result, or the task's input_required status); with
// the 2025 revisions each is a server-to-client request, all sent at
// once, and the first error ends the call.
func (c *Context) Ask(ctx context.Context, reqs map[string]InputRequest) (map[string]json.RawMessage, error) {
	for _, r := range reqs {
		if !c.declares(r.Method) {
			return nil, ErrCapability
		}
		if r.Method == "elicitation/create" {
			if err := c.checkElicitation(r.Params); err != nil {
				return nil, err
			}
		}
	}
	p := c.req.peer
	if p == nil {
		return nil, ErrNoPeer
	}
	if ip, ok := p.(inputPeer); ok {
		return ip.Inputs(ctx, reqs)
	}
	return askEach(ctx, p, reqs)
}

// declares reports whether the client declared the capability that a
// server-to-client request of this method needs.
func (c *Context) declares(method string) bool {
	switch method {
	case "elicitation/create":
		return c.ClientCapabilities.Elicitation != nil
	case "sampling/createMessage":
		return c.ClientCapabilities.Sampling != nil
	case "roots/list":
		return c.ClientCapabilities.Roots != nil
	}
	return true
}

// inputKey returns the key under which a question of kind (elicitation,
// sampling, roots) asked through Elicit, Sample or Roots goes to an
// input peer: "elicitation-1", "elicitation-2", … counted per kind and
// per handler invocation, so that the handler, run again on the next
// round, asks the same questions under the same keys. Questions asked
// concurrently should use [Context.Ask] with keys of their own.
func (c *Context) inputKey(kind string) string {
	if c.keyParent != nil {
		return c.keyParent.inputKey(kind)
	}
	c.keyMu.Lock()
	defer c.keyMu.Unlock()
	if c.keySeq == nil {
		c.keySeq = map[string]int{}
	}
	c.keySeq[kind]++
	return kind + "-" + strconv.Itoa(c.keySeq[kind])
}

// askInput puts one question to an input peer under a key from
// inputKey and decodes the answer into res, a pointer.
func askInput(ctx context.Context, c *Context, ip inputPeer, kind, method string, params, res any) error {
	if params == nil {
		params = struct{}{}
	}
	key := c.inputKey(kind)
	out, err := ip.Inputs(ctx, map[string]InputRequest{key: {Method: method, Params: params}})
	if err != nil {
		return err
	}
	raw, ok := out[key]
	if !ok {
		return ErrInputRequired
	}
	if err := json.Unmarshal(raw, res); err != nil {
		return &Error{Code: CodeInvalidParams, Message: "Invalid params: the client's " + method + " result under " + strconv.Quote(key) + " does not decode: " + err.Error()}
	}
	return nil
}

// askEach sends every request in reqs over p concurrently.
func askEach(ctx context.Context, p engine.Peer, reqs map[string]InputRequest) (map[string]json.RawMessage, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		first error
		out   = make(map[string]json.RawMessage, len(reqs))
	)
	for k, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			params := r.Params
			if params == nil {
				params = struct{}{}
			}
			raw, err := p.Call(ctx, r.Method, params)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
					cancel()
				}
				return
			}
			out[k] = raw
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}
