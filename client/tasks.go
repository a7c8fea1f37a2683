package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
)

// Tasks, client side. A tool that takes long runs as a task: the call is
// answered at once with a task ID, and the client polls the task until it
// ends. The server speaks one of two flavours, chosen by the negotiated
// revision:
//
//   - 2025-11-25 (experimental there): the server declares
//     capabilities.tasks.requests.tools.call in initialize; a tools/call
//     with params.task answers {"task": …}; tasks/get reads the task,
//     tasks/result waits for its outcome and carries its questions
//     (elicitation, sampling) to the client as requests, tasks/cancel ends
//     it, tasks/list lists them; notifications/tasks/status announces
//     changes on the session's stream.
//   - 2026-07-28: the extension io.modelcontextprotocol/tasks, which the
//     server declares in capabilities.extensions and every request opts in
//     to in its _meta client capabilities; tools/call answers
//     {"resultType": "task", …} (or, as the extension allows, the ordinary
//     result); tasks/get carries the questions (inputRequests), the result
//     and the error; tasks/update answers the questions; tasks/cancel ends
//     the task. There is no tasks/list and no notification.
//
// Client.StartTool, Task's methods and Client.Tasks are the same calls at
// both.

// ErrTasksUnsupported is wrapped by the error of [Client.StartTool] when
// the call cannot run as a task: the negotiated revision has no tasks
// (before 2025-11-25), the server does not declare them, or at 2025-11-25
// the tool does not run as one (its execution.taskSupport is forbidden:
// call it with [Client.CallTool]). [Client.Tasks] wraps it when the
// server cannot list tasks. Nothing ran on the server.
var ErrTasksUnsupported = errors.New("mcp client: the server does not run this as a task")

// ErrTaskCancelled is wrapped by the error of [Task.Wait] when the task
// was cancelled ([Task.Cancel], another client of the same user, or the
// server): it ended without a result.
var ErrTaskCancelled = errors.New("mcp client: the task was cancelled")

// TaskInfo is a task as the server last reported it.
type TaskInfo struct {
	// ID is the task's ID, which tasks/get, tasks/cancel and
	// [Task.ID] name it by.
	ID string
	// Status is "working", "input_required" (the task waits for an
	// answer of the client's handlers: [Task.Wait] gives it),
	// "completed", "failed" or "cancelled". At revision 2025-11-25 a tool
	// whose result has isError reads "failed"; at 2026-07-28 it reads
	// "completed". [Task.Wait] returns that result either way.
	Status string
	// Message is the server's statusMessage, for a person.
	Message string
	// Created and Updated are when the task was created and last
	// changed; zero when the server did not say.
	Created, Updated time.Time
	// TTL is how long the task stays readable after it was created;
	// zero when unlimited.
	TTL time.Duration
	// PollInterval is how often the server asks to be polled; zero when
	// it did not say.
	PollInterval time.Duration
}

// Ended reports whether the task has ended: completed, failed or
// cancelled.
func (i TaskInfo) Ended() bool {
	switch i.Status {
	case "completed", "failed", "cancelled":
		return true
	}
	return false
}

// Task is a tool call running as a task on the server, as
// [Client.StartTool] started it. Its methods may be called concurrently.
type Task struct {
	c           *Client
	rev20260728 bool   // the 2026-07-28 extension; else 2025-11-25's tasks
	name        string // the tool's
	id          string
	// done is the result of a call the server answered at once, as an
	// ordinary call (2026-07-28 allows it): there is no task to poll.
	done *mcp.ContentResult
	// progress is the progressToken registered for the task's life
	// (CallOptions.Progress at 2025-11-25), 0 for none.
	progress int64

	mu      sync.Mutex
	last    TaskInfo
	changed chan struct{} // closed when a status notification or Cancel may have changed the task
	waiting int           // Wait calls registered in the client's registry
}

// ID is the task's ID (tasks/get's taskId); "" when the server ran the
// call at once as an ordinary one.
func (t *Task) ID() string { return t.id }

// taskRegistry is what a Client keeps of tasks: the 2025-11-25 capability
// the server declared in initialize, and the tasks a Wait is waiting on,
// woken by notifications/tasks/status.
type taskRegistry struct {
	mu      sync.Mutex
	cap     tasksCap
	waiting map[string]*Task
}

// tasksCap is capabilities.tasks of initialize at 2025-11-25.
type tasksCap struct {
	toolsCall, list, cancel bool
}

// readCapability keeps capabilities.tasks of initialize's result raw.
func (r *taskRegistry) readCapability(raw json.RawMessage) {
	var res struct {
		Capabilities struct {
			Tasks *struct {
				List     json.RawMessage `json:"list"`
				Cancel   json.RawMessage `json:"cancel"`
				Requests struct {
					Tools struct {
						Call json.RawMessage `json:"call"`
					} `json:"tools"`
				} `json:"requests"`
			} `json:"tasks"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(raw, &res) != nil || res.Capabilities.Tasks == nil {
		return
	}
	set := func(v json.RawMessage) bool { return len(v) > 0 && string(v) != "null" }
	tc := res.Capabilities.Tasks
	r.mu.Lock()
	r.cap = tasksCap{toolsCall: set(tc.Requests.Tools.Call), list: set(tc.List), cancel: set(tc.Cancel)}
	r.mu.Unlock()
}

// taskFlavour says which tasks the session speaks: rev20260728 for the
// 2026-07-28 extension, else 2025-11-25's; an error wrapping
// ErrTasksUnsupported when the server has none (or, with needList, cannot
// list them).
func (c *Client) taskFlavour(needList bool) (rev20260728 bool, err error) {
	if c.rev20260728() {
		if v, ok := c.init.Capabilities.Extensions[mcp.TasksExtension]; !ok || string(v) == "null" {
			return true, fmt.Errorf("%w: %s does not declare the %s extension", ErrTasksUnsupported, c.serverName(), mcp.TasksExtension)
		}
		if needList {
			return true, fmt.Errorf("%w: %w: the %s extension has no tasks/list", ErrTasksUnsupported, ErrNotInRevision, mcp.TasksExtension)
		}
		return true, nil
	}
	if c.init.ProtocolVersion != mcp.Version20251125 {
		return false, fmt.Errorf("%w: revision %s has no tasks (2025-11-25 and 2026-07-28 have)", ErrTasksUnsupported, c.init.ProtocolVersion)
	}
	c.tasks.mu.Lock()
	tc := c.tasks.cap
	c.tasks.mu.Unlock()
	switch {
	case !tc.toolsCall && !needList:
		return false, fmt.Errorf("%w: %s does not declare capabilities.tasks.requests.tools.call", ErrTasksUnsupported, c.serverName())
	case needList && !tc.list:
		return false, fmt.Errorf("%w: %s does not declare capabilities.tasks.list", ErrTasksUnsupported, c.serverName())
	}
	return false, nil
}

// taskMeta is the _meta of a tasks request at 2026-07-28: the caller's
// members, and the client capabilities with the tasks extension, which
// the server needs on every request of a task (its opt-in).
func (c *Client) taskMeta(meta map[string]any) map[string]any {
	out := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		out[k] = v
	}
	if _, ok := out[metaClientCaps]; ok {
		return out // the caller's own
	}
	caps := c.capabilities()
	ext := map[string]any{}
	if e, ok := caps["extensions"].(map[string]any); ok {
		for k, v := range e {
			ext[k] = v
		}
	}
	if _, ok := ext[mcp.TasksExtension]; !ok {
		ext[mcp.TasksExtension] = map[string]any{}
	}
	caps["extensions"] = ext
	out[metaClientCaps] = caps
	return out
}

// StartTool calls a tool as a task: the server answers at once and runs
// the tool on; the returned [Task] follows it ([Task.Wait] for the
// result, [Task.Status], [Task.Cancel]). The same call serves revision
// 2025-11-25's tasks and 2026-07-28's tasks extension, chosen from the
// negotiated revision and what the server declares. When the call cannot
// run as a task the error wraps [ErrTasksUnsupported] and nothing ran. A
// server of 2026-07-28 may run the call at once as an ordinary one (a
// tool that does not run as a task, say): the Task then has no ID and
// Wait returns that result. opts are those of [Client.CallTool] (nil for
// none); at 2025-11-25 Progress hears the task's progress for its life.
// Over HTTP that progress comes on the session's GET stream while Wait and
// Status ask on requests of their own, so a report that arrives after
// either has seen the task end is dropped.
func (c *Client) StartTool(ctx context.Context, name string, args any, opts *CallOptions) (*Task, error) {
	rev20260728, err := c.taskFlavour(false)
	if err != nil {
		return nil, err
	}
	var o CallOptions
	if opts != nil {
		o = *opts
	}
	if o.AfterNotifications {
		ctx = context.WithValue(ctx, afterNotesKey{}, true)
	}
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	t := &Task{c: c, rev20260728: rev20260728, name: name, changed: make(chan struct{})}
	var raw json.RawMessage
	if rev20260728 {
		params["_meta"] = c.taskMeta(o.Meta)
		err = c.callProgress(ctx, "tools/call", params, &raw, o.Progress)
	} else {
		params["task"] = map[string]any{}
		meta := make(map[string]any, len(o.Meta)+1)
		for k, v := range o.Meta {
			meta[k] = v
		}
		if o.Progress != nil {
			// The token outlives the request: the server reports the
			// task's progress with it until the task ends.
			t.progress = c.nextID.Add(1)
			c.mu.Lock()
			c.progress[t.progress] = o.Progress
			c.mu.Unlock()
			meta["progressToken"] = t.progress
		}
		if len(meta) > 0 {
			params["_meta"] = meta
		}
		err = c.callProgress(ctx, "tools/call", params, &raw, nil)
		if re := asRPCError(err); re != nil && re.Code == mcp.CodeMethodNotFound {
			err = fmt.Errorf("%w: %w", ErrTasksUnsupported, err)
		}
	}
	if err != nil {
		t.dropProgress()
		return nil, err
	}
	created, isTask, err := decodeCreated(raw)
	if err != nil {
		t.dropProgress()
		return nil, fmt.Errorf("mcp client: %s answered tools/call of %s as a task: %w", c.serverName(), strconv.Quote(name), err)
	}
	if !isTask {
		var res mcp.ContentResult
		if err := c.decodeResult("tools/call", raw, nil, &res); err != nil {
			t.dropProgress()
			return nil, err
		}
		t.dropProgress()
		t.done = &res
		t.last = TaskInfo{Status: "completed"}
		return t, nil
	}
	t.id = created.ID
	t.last = created
	return t, nil
}

// followTask waits for the task a server created for a plain tools/call
// at 2026-07-28 and decodes its result into result. A client that
// declares the tasks extension itself (Options.Extensions) lets the
// server answer any call of a task-capable tool with a task; CallTool
// then returns what the tool produced, as it does when the server runs
// the call at once, never the empty result the task envelope would
// decode to. StartTool reads the envelope itself (result is a
// *json.RawMessage there).
func (c *Client) followTask(ctx context.Context, name string, raw json.RawMessage, result any) error {
	info, err := decodeTask(raw)
	if err != nil {
		return fmt.Errorf("mcp client: %s answered tools/call with a task: %w", c.serverName(), err)
	}
	t := &Task{c: c, rev20260728: true, name: name, id: info.ID, last: info, changed: make(chan struct{})}
	res, err := t.Wait(ctx)
	if err != nil {
		return err
	}
	if p, ok := result.(*mcp.ContentResult); ok {
		*p = *res
		return nil
	}
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("mcp client: tools/call: %w", err)
	}
	return c.decodeResult("tools/call", b, nil, result)
}

// decodeCreated reads the answer to a task-augmented tools/call: the task
// (2025-11-25: {"task": {…}}; 2026-07-28: {"resultType": "task", …}),
// or isTask false for an ordinary result.
func decodeCreated(raw json.RawMessage) (info TaskInfo, isTask bool, err error) {
	var env struct {
		ResultType string          `json:"resultType"`
		Task       json.RawMessage `json:"task"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return TaskInfo{}, false, fmt.Errorf("the result does not decode: %w", err)
	}
	switch {
	case env.ResultType == "task":
		info, err = decodeTask(raw)
	case len(env.Task) > 0 && string(env.Task) != "null":
		info, err = decodeTask(env.Task)
	default:
		return TaskInfo{}, false, nil
	}
	return info, true, err
}

// maxPollInterval bounds the interval between polls a server may ask for,
// so that a server's mistake does not stop a Wait for hours.
const (
	minPollInterval = 10 * time.Millisecond
	maxPollInterval = time.Minute
)

// decodeTask reads a task as a server sends it, either flavour (ttl or
// ttlMs, pollInterval or pollIntervalMs, in milliseconds). It needs a
// taskId and a status, both strings; the rest is read leniently: a
// timestamp that does not parse is zero, a duration that is negative or
// not a number is zero, one too long for a time.Duration is the longest.
func decodeTask(raw json.RawMessage) (TaskInfo, error) {
	var w struct {
		TaskID         *string         `json:"taskId"`
		Status         *string         `json:"status"`
		StatusMessage  json.RawMessage `json:"statusMessage"`
		CreatedAt      json.RawMessage `json:"createdAt"`
		LastUpdatedAt  json.RawMessage `json:"lastUpdatedAt"`
		TTL            json.RawMessage `json:"ttl"`
		TTLMs          json.RawMessage `json:"ttlMs"`
		PollInterval   json.RawMessage `json:"pollInterval"`
		PollIntervalMs json.RawMessage `json:"pollIntervalMs"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return TaskInfo{}, fmt.Errorf("the task does not decode: %w", err)
	}
	if w.TaskID == nil || *w.TaskID == "" {
		return TaskInfo{}, errors.New(`the task has no "taskId"`)
	}
	if w.Status == nil || *w.Status == "" {
		return TaskInfo{}, fmt.Errorf(`task %s has no "status"`, strconv.Quote(*w.TaskID))
	}
	info := TaskInfo{ID: *w.TaskID, Status: *w.Status, Message: str(w.StatusMessage),
		Created: stamp(w.CreatedAt), Updated: stamp(w.LastUpdatedAt)}
	if len(w.TTL) == 0 {
		w.TTL = w.TTLMs
	}
	if len(w.PollInterval) == 0 {
		w.PollInterval = w.PollIntervalMs
	}
	info.TTL = millis(w.TTL)
	info.PollInterval = millis(w.PollInterval)
	return info, nil
}

// str is a JSON string's value, "" for anything else.
func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// stamp is an ISO 8601 timestamp's time, zero when it does not parse.
func stamp(raw json.RawMessage) time.Time {
	t, err := time.Parse(time.RFC3339Nano, str(raw))
	if err != nil {
		return time.Time{}
	}
	return t
}

// millis is a number of milliseconds as a duration: zero for none, null,
// a negative number or not a number; at most the longest duration.
func millis(raw json.RawMessage) time.Duration {
	var ms float64
	if json.Unmarshal(raw, &ms) != nil || ms <= 0 || math.IsNaN(ms) {
		return 0
	}
	if ms >= float64(math.MaxInt64/int64(time.Millisecond)) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// taskDetail is the result of tasks/get: the task, and at 2026-07-28 its
// questions, result or error.
type taskDetail struct {
	info          TaskInfo
	inputRequests map[string]inputRequest
	result        json.RawMessage
	error         json.RawMessage
}

// decodeDetail reads the result of tasks/get, either flavour.
func decodeDetail(raw json.RawMessage) (taskDetail, error) {
	info, err := decodeTask(raw)
	if err != nil {
		return taskDetail{}, err
	}
	var w struct {
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		Result        json.RawMessage            `json:"result"`
		Error         json.RawMessage            `json:"error"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return taskDetail{}, fmt.Errorf("the task does not decode: %w", err)
	}
	d := taskDetail{info: info, result: w.Result, error: w.Error}
	for key, q := range w.InputRequests {
		var r inputRequest
		if json.Unmarshal(q, &r) != nil || r.Method == "" {
			return taskDetail{}, fmt.Errorf("input request %s of task %s is not a request: %.200s", strconv.Quote(key), strconv.Quote(info.ID), q)
		}
		if d.inputRequests == nil {
			d.inputRequests = map[string]inputRequest{}
		}
		d.inputRequests[key] = r
	}
	return d, nil
}

// params are the params of a tasks/* request for this task.
func (t *Task) params(extra map[string]any) map[string]any {
	p := map[string]any{"taskId": t.id}
	for k, v := range extra {
		p[k] = v
	}
	if t.rev20260728 {
		p["_meta"] = t.c.taskMeta(nil)
	}
	return p
}

// get is tasks/get: the task's detail, kept as the last known state.
func (t *Task) get(ctx context.Context) (taskDetail, error) {
	var raw json.RawMessage
	if err := t.c.call(ctx, "tasks/get", t.params(nil), &raw); err != nil {
		return taskDetail{}, err
	}
	d, err := decodeDetail(raw)
	if err != nil {
		return taskDetail{}, fmt.Errorf("mcp client: the tasks/get result from %s: %w", t.c.serverName(), err)
	}
	if d.info.ID != t.id {
		return taskDetail{}, fmt.Errorf("mcp client: %s answered tasks/get for task %s with task %s",
			t.c.serverName(), strconv.Quote(t.id), strconv.Quote(d.info.ID))
	}
	t.seen(d.info)
	return d, nil
}

// seen keeps info as the task's last known state; once the task has
// ended its progress callback is dropped.
func (t *Task) seen(info TaskInfo) {
	t.mu.Lock()
	t.last = info
	t.mu.Unlock()
	if info.Ended() {
		t.dropProgress()
	}
}

// dropProgress unregisters the task's progress token.
func (t *Task) dropProgress() {
	if t.progress == 0 {
		return
	}
	t.c.mu.Lock()
	delete(t.c.progress, t.progress)
	t.c.mu.Unlock()
}

// Status asks the server for the task's state (tasks/get). It does not
// answer the task's questions: [Task.Wait] does.
func (t *Task) Status(ctx context.Context) (TaskInfo, error) {
	if t.done != nil {
		return t.last, nil
	}
	d, err := t.get(ctx)
	if err != nil {
		return TaskInfo{}, err
	}
	return d.info, nil
}

// Cancel asks the server to stop the task (tasks/cancel). A task that has
// ended already stays as it ended, and Cancel returns nil; so does Cancel
// of a call the server ran at once. A Wait in progress returns an error
// wrapping [ErrTaskCancelled].
func (t *Task) Cancel(ctx context.Context) error {
	if t.done != nil {
		return nil
	}
	var raw json.RawMessage
	err := t.c.call(ctx, "tasks/cancel", t.params(nil), &raw)
	if re := asRPCError(err); re != nil && re.Code == mcp.CodeInvalidParams && !t.rev20260728 {
		// 2025-11-25 refuses to cancel a task that has ended; so does an
		// unknown task. Which one it was, tasks/get tells.
		if d, gerr := t.get(ctx); gerr == nil && d.info.Ended() {
			return nil
		}
	}
	if err != nil {
		return err
	}
	if info, derr := decodeTask(raw); derr == nil && info.ID == t.id {
		t.seen(info) // 2025-11-25 answers with the task
	}
	t.wake()
	return nil
}

// wake tells the task's Wait calls that it may have changed.
func (t *Task) wake() {
	t.mu.Lock()
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
}

// changes is the channel the next wake closes.
func (t *Task) changes() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// pollInterval is how long Wait sleeps before the next tasks/get.
func (t *Task) pollInterval() time.Duration {
	t.mu.Lock()
	d := t.last.PollInterval
	t.mu.Unlock()
	switch {
	case d <= 0:
		return engine.DefaultTaskPollInterval
	case d < minPollInterval:
		return minPollInterval
	case d > maxPollInterval:
		return maxPollInterval
	}
	return d
}

// Wait waits until the task ends and returns its result as
// [Client.CallTool] would have: a tool that failed is a result with
// IsError set; a JSON-RPC error the tool raised is an error wrapping the
// server's *mcp.Error; a cancelled task is an error wrapping
// [ErrTaskCancelled]. It polls tasks/get at the interval the server asks
// for (woken early by notifications/tasks/status at 2025-11-25) and
// answers the task's questions (elicitation, sampling, roots) with the
// handlers of [Options]. When ctx ends first Wait returns its error and
// the task runs on: [Task.Cancel] stops it.
func (t *Task) Wait(ctx context.Context) (*mcp.ContentResult, error) {
	if t.done != nil {
		return t.done, nil
	}
	if !t.rev20260728 {
		t.c.tasks.register(t)
		defer t.c.tasks.unregister(t)
	}
	for {
		changed := t.changes()
		d, err := t.get(ctx)
		if err != nil {
			return nil, err
		}
		switch d.info.Status {
		case "cancelled":
			return nil, t.cancelled(d.info)
		case "completed", "failed":
			if !t.rev20260728 {
				return t.result25(ctx)
			}
			return t.outcome(d)
		case "input_required":
			if !t.rev20260728 {
				// tasks/result asks the task's questions, and returns
				// once the task has ended.
				return t.result25(ctx)
			}
			if len(d.inputRequests) > 0 {
				if err := t.answer(ctx, d.inputRequests); err != nil {
					return nil, err
				}
				continue
			}
		}
		timer := time.NewTimer(t.pollInterval())
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-changed:
			timer.Stop()
		case <-timer.C:
		}
	}
}

func (t *Task) cancelled(info TaskInfo) error {
	if info.Message != "" {
		return fmt.Errorf("%w: task %s of %s: %s", ErrTaskCancelled, strconv.Quote(t.id), t.name, info.Message)
	}
	return fmt.Errorf("%w: task %s of %s", ErrTaskCancelled, strconv.Quote(t.id), t.name)
}

// result25 is tasks/result (2025-11-25): it waits until the task ends,
// asking the client the task's questions meanwhile, and returns what the
// tools/call would have. A cancelled task has no result: the server
// answers -32602, and tasks/get tells that it was cancelled.
func (t *Task) result25(ctx context.Context) (*mcp.ContentResult, error) {
	var res mcp.ContentResult
	err := t.c.call(ctx, "tasks/result", t.params(nil), &res)
	if re := asRPCError(err); re != nil && re.Code == mcp.CodeInvalidParams {
		if d, gerr := t.get(ctx); gerr == nil && d.info.Status == "cancelled" {
			return nil, t.cancelled(d.info)
		}
	}
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// outcome is the result of an ended task at 2026-07-28, from tasks/get:
// completed with its result (an isError one too), failed with its error.
func (t *Task) outcome(d taskDetail) (*mcp.ContentResult, error) {
	if d.info.Status == "completed" && len(d.result) > 0 && string(d.result) != "null" {
		var res mcp.ContentResult
		if err := json.Unmarshal(d.result, &res); err != nil {
			return nil, fmt.Errorf("mcp client: the result of task %s of %s from %s does not decode: %w",
				strconv.Quote(t.id), t.name, t.c.serverName(), err)
		}
		return &res, nil
	}
	var we wireError
	if len(d.error) == 0 || json.Unmarshal(d.error, &we) != nil {
		we = wireError{code: mcp.CodeInternalError, message: fmt.Sprintf("task %s ended %s without a result or an error", strconv.Quote(t.id), d.info.Status)}
		if d.info.Message != "" {
			we.message += ": " + d.info.Message
		}
	}
	return nil, t.c.rpcError("tools/call", &we)
}

// answer answers the questions of an input_required task (2026-07-28)
// with the handlers of Options, and sends the answers with tasks/update.
func (t *Task) answer(ctx context.Context, reqs map[string]inputRequest) error {
	answers, err := t.c.answerInputs(ctx, "tasks/get", reqs)
	if err != nil {
		return err
	}
	return t.c.call(ctx, "tasks/update", t.params(map[string]any{"inputResponses": answers}), nil)
}

// register adds t to the tasks whose status notifications wake a Wait.
func (r *taskRegistry) register(t *Task) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.waiting == nil {
		r.waiting = map[string]*Task{}
	}
	r.waiting[t.id] = t
	t.waiting++
}

func (r *taskRegistry) unregister(t *Task) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t.waiting--
	if t.waiting == 0 {
		delete(r.waiting, t.id)
	}
}

// taskStatusNoted handles notifications/tasks/status: the task's Wait
// calls wake, and Options.OnTaskStatus hears it.
func (c *Client) taskStatusNoted(params json.RawMessage) {
	info, err := decodeTask(params)
	if err != nil {
		c.log.Debug("mcp client: a notifications/tasks/status does not decode; ignored", "server", c.init.ServerInfo.Name, "error", err)
		return
	}
	c.tasks.mu.Lock()
	t := c.tasks.waiting[info.ID]
	c.tasks.mu.Unlock()
	if t != nil {
		t.wake()
	}
	if c.opts.OnTaskStatus != nil {
		c.opts.OnTaskStatus(info)
	}
}

// Tasks lists the caller's tasks on the server (tasks/list, revision
// 2025-11-25), oldest first, following pagination. The error wraps
// [ErrTasksUnsupported] when the server cannot list them, as at revision
// 2026-07-28, whose extension has no tasks/list (the error wraps
// [ErrNotInRevision] too). A task that does not decode is left out.
func (c *Client) Tasks(ctx context.Context) ([]TaskInfo, error) {
	if _, err := c.taskFlavour(true); err != nil {
		return nil, err
	}
	raws, err := list[json.RawMessage](ctx, c, "tasks/list", "tasks")
	if err != nil {
		return nil, err
	}
	out := make([]TaskInfo, 0, len(raws))
	for _, raw := range raws {
		info, err := decodeTask(raw)
		if err != nil {
			c.log.Warn("mcp client: a task of tasks/list does not decode; left out", "server", c.init.ServerInfo.Name, "error", err)
			continue
		}
		out = append(out, info)
	}
	return out, nil
}
