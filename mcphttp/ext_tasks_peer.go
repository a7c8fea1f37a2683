package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/tracemeta"
	"github.com/mcpchain/mcp/session"
)

// phasePeer is the peer of a deferred task's tool: the request's own until
// StartTask, the task's after.
type phasePeer struct {
	before  mcpPeer
	after   *taskPeer
	start   func(context.Context) error
	started chan struct{}

	mu sync.Mutex
	on bool
}

func (p *phasePeer) isStarted() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.on
}

func (p *phasePeer) current() mcpPeer {
	if p.isStarted() {
		return p.after
	}
	return p.before
}

// StartTask implements engine.TaskStarter: it makes the task (once).
func (p *phasePeer) StartTask(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on {
		return nil
	}
	if err := p.start(ctx); err != nil {
		return err
	}
	p.on = true
	close(p.started)
	return nil
}

// Notify implements mcpPeer.
func (p *phasePeer) Notify(ctx context.Context, method string, params any) error {
	cur := p.current()
	if cur == nil {
		return mcp.ErrNoPeer
	}
	return cur.Notify(ctx, method, params)
}

// Call implements mcpPeer.
func (p *phasePeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	cur := p.current()
	if cur == nil {
		return nil, mcp.ErrNoPeer
	}
	return cur.Call(ctx, method, params)
}

// Inputs implements mcpInputPeer: the request's own peer answers before
// the task starts (one question at a time when it is not an InputPeer).
func (p *phasePeer) Inputs(ctx context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	cur := p.current()
	if ip, ok := cur.(mcpInputPeer); ok {
		return ip.Inputs(ctx, reqs)
	}
	if cur == nil {
		return nil, mcp.ErrNoPeer
	}
	out := make(map[string]json.RawMessage, len(reqs))
	for k, r := range reqs {
		params := r.Params
		if params == nil {
			params = struct{}{}
		}
		raw, err := cur.Call(ctx, r.Method, params)
		if err != nil {
			return nil, err
		}
		out[k] = raw
	}
	return out, nil
}

// taskPeer is a running task's way back to its client: questions become
// the task's input_required status and its inputRequests, answered by
// tasks/update (on any replica: the answers go through the store);
// notifications have no stream to go to and are dropped.
type taskPeer struct {
	h   *Handler
	st  session.TaskStore
	id  string
	run *taskRun
	// meta is the params._meta of the request that made the task: its
	// trace context goes with the task's questions (tracemeta).
	meta map[string]json.RawMessage
	// out, when set, carries the task's notifications (progress, logs)
	// to the client: at 2025-11-25 the creating session's GET stream.
	out func(method string, params any) error

	mu   sync.Mutex
	used map[string]bool // every key asked so far: keys are unique over the task's lifetime
	seq  int
}

// Notify implements mcpPeer: a task has no response stream, so progress
// and log messages go to out when the revision has a place for them
// (2025-11-25), else are dropped.
func (p *taskPeer) Notify(_ context.Context, method string, params any) error {
	if p.out == nil {
		return nil
	}
	return p.out(method, params)
}

// StartTask implements engine.TaskStarter: the task has started already.
func (p *taskPeer) StartTask(context.Context) error { return nil }

// Call implements mcpPeer: one question, under a key of its own.
func (p *taskPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	p.mu.Lock()
	p.seq++
	kind, _, _ := strings.Cut(method, "/") // elicitation-1, sampling-2, roots-3
	key := fmt.Sprintf("%s-%d", kind, p.seq)
	p.mu.Unlock()
	out, err := p.Inputs(ctx, map[string]mcp.InputRequest{key: {Method: method, Params: params}})
	if err != nil {
		return nil, err
	}
	return out[key], nil
}

// Inputs implements mcpInputPeer: it puts the questions on the task
// (status input_required) and waits until tasks/update has answered every
// one, or the task ends.
func (p *taskPeer) Inputs(ctx context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	if len(reqs) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	reqs, err := withTrace(reqs, tracemeta.Of(ctx, p.meta))
	if err != nil {
		return nil, err
	}
	wire, enc, err := p.wireKeys(reqs)
	if err != nil {
		return nil, err
	}
	asked, err := p.st.UpdateTask(ctx, p.id, func(t *session.Task) error { return askInputs(t, enc) })
	if err != nil {
		return nil, p.ended(ctx, err)
	}
	if p.run.notify != nil {
		p.run.notify(asked)
	}
	for {
		var (
			out    map[string]json.RawMessage
			failed json.RawMessage
		)
		_, err := p.st.UpdateTask(ctx, p.id, func(t *session.Task) error {
			out, failed = nil, nil
			if t.Status.Terminal() {
				return errTaskEnded
			}
			var err error
			out, failed, err = takeAnswers(t, wire)
			return err
		})
		switch {
		case err == nil && failed != nil:
			return nil, answerError(failed)
		case err == nil:
			return out, nil
		case !errors.Is(err, errNotYet):
			return nil, p.ended(ctx, err)
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-p.run.kick:
		case <-time.After(taskWatchInterval):
		}
	}
}

// askInputs puts the encoded questions enc (by wire key) on task t, which
// then waits for input; an ended task takes none (errTaskEnded).
func askInputs(t *session.Task, enc map[string]json.RawMessage) error {
	if t.Status.Terminal() {
		return errTaskEnded
	}
	if t.InputRequests == nil {
		t.InputRequests = map[string]json.RawMessage{}
	}
	for wk, b := range enc {
		t.InputRequests[wk] = b
	}
	t.Status, t.Updated = session.TaskInputRequired, time.Now().UTC()
	return nil
}

// answerError is the error of a question the client failed to answer:
// the JSON-RPC error it sent, or an internal error when that is not one.
func answerError(failed json.RawMessage) *mcp.Error {
	je := &mcp.Error{}
	if json.Unmarshal(failed, je) != nil || je.Code == 0 {
		je = &mcp.Error{Code: mcp.CodeInternalError, Message: "the client failed to answer"}
	}
	return je
}

// wireKeys gives each request a key not used before in the task (the
// tool's key, else key-2, key-3…) and encodes it: wire maps the key on
// the wire to the tool's, enc holds the encoded requests by wire key.
func (p *taskPeer) wireKeys(reqs map[string]mcp.InputRequest) (wire map[string]string, enc map[string]json.RawMessage, err error) {
	wire = make(map[string]string, len(reqs))
	enc = make(map[string]json.RawMessage, len(reqs))
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, r := range reqs {
		wk := k
		for n := 2; p.used[wk]; n++ {
			wk = fmt.Sprintf("%s-%d", k, n)
		}
		p.used[wk] = true
		params := r.Params
		if params == nil {
			params = struct{}{}
		}
		b, err := json.Marshal(mcp.InputRequest{Method: r.Method, Params: params})
		if err != nil {
			return nil, nil, fmt.Errorf("mcp: encoding the %s request: %w", r.Method, err)
		}
		wire[wk], enc[wk] = k, b
	}
	return wire, enc, nil
}

// takeAnswers takes from t the answers to the questions of wire (wire
// key → the tool's key), keyed by the tool's keys, once all are there
// (errNotYet before). When the client answered one with an error
// (2025-11-25 asks them as requests), failed is that error and the
// others of this call are withdrawn.
func takeAnswers(t *session.Task, wire map[string]string) (out map[string]json.RawMessage, failed json.RawMessage, err error) {
	for wk := range wire {
		if e, ok := t.InputErrors[wk]; ok {
			for wk := range wire {
				delete(t.InputErrors, wk)
				delete(t.InputResponses, wk)
				delete(t.InputRequests, wk)
			}
			if len(t.InputRequests) == 0 && t.Status == session.TaskInputRequired {
				t.Status = session.TaskWorking
			}
			return nil, e, nil
		}
	}
	for wk := range wire {
		if _, ok := t.InputResponses[wk]; !ok {
			return nil, nil, errNotYet
		}
	}
	out = make(map[string]json.RawMessage, len(wire))
	for wk, k := range wire {
		out[k] = t.InputResponses[wk]
		delete(t.InputResponses, wk)
	}
	return out, nil, nil
}

// errNotYet stops a store update while answers are missing.
var errNotYet = errors.New("mcp: not every input request is answered yet")

// ended is the error of a question whose task ended (or whose store
// failed) before it was answered.
func (p *taskPeer) ended(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	if errors.Is(err, errTaskEnded) {
		return errTaskCancelled
	}
	return fmt.Errorf("mcp: the task store failed: %w", err)
}
