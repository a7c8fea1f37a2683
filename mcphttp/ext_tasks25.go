package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/session"
)

// The tasks of revision 2025-11-25 (experimental there): the same tools
// (mcp.Tool.Task), runner, store and peer as the 2026-07-28 extension
// (ext_tasks.go), in that revision's wire form. A session that negotiated
// 2025-11-25 sees the tasks capability in initialize and
// execution.taskSupport on tools/list; a tools/call with params.task makes
// a task and answers {"task": …}; tasks/get, tasks/result, tasks/list and
// tasks/cancel read and end it; notifications/tasks/status goes on the
// creating session's GET stream. A task's questions (Elicit, Sample, Ask)
// wait in the task, as at 2026-07-28, and tasks/result asks them: each
// goes to the client as a request on the tasks/result stream, with
// _meta["io.modelcontextprotocol/related-task"], and its answer goes
// back into the task. Older 2025 revisions have no tasks: params.task is
// ignored and tasks/* are unknown methods.

// relatedTaskKey is the _meta key tying a message to its task.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// speaksTasks25 reports whether a request's session negotiated revision
// 2025-11-25, the one 2025 revision with tasks.
func speaksTasks25(k *call) bool {
	return !k.c.rev20260728 && mcp.Version(k.c.sess.ProtocolVersion()) == mcp.Version20251125
}

// tasks25Only answers -32601 to a tasks/* method of 2025-11-25 on a
// session that negotiated another 2025 revision.
func tasks25Only(fn methodFunc) methodFunc {
	return func(h *Handler, ctx context.Context, k *call) (any, error) {
		if !speaksTasks25(k) {
			return nil, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: "Method not found: " + strictjson.Quote(k.msg.Method) +
				" belongs to the tasks of revision 2025-11-25; this session negotiated " + k.c.sess.ProtocolVersion()}
		}
		return fn(h, ctx, k)
	}
}

// tasksCapability is capabilities.tasks of initialize at 2025-11-25:
// tasks/list only when the task store can list.
func (h *Handler) tasksCapability() *tasksCap {
	c := &tasksCap{Cancel: &struct{}{}}
	c.Requests.Tools.Call = struct{}{}
	if _, ok := h.taskStore().(session.TaskLister); ok {
		c.List = &struct{}{}
	}
	return c
}

type tasksCap struct {
	List     *struct{} `json:"list,omitempty"`
	Cancel   *struct{} `json:"cancel,omitempty"`
	Requests struct {
		Tools struct {
			Call struct{} `json:"call"`
		} `json:"tools"`
	} `json:"requests"`
}

// taskEra is what a task made at 2025-11-25 does differently: the answer
// to tools/call, and who hears of its status changes.
type taskEra struct {
	created func(*session.Task) any
	notify  func(*session.Task)
	// stream sends a notification of the task's tool (progress, a log
	// message), nil to drop them.
	stream func(id, method string, params any) error
}

// taskScope is whose a task is, of either flavour, by the identity rule
// (package internal/identity): the caller's key when its auth data has a
// subject; else its session, so that one anonymous client (or one without
// a subject) does not list or read another's; "" for an anonymous caller
// without a session (revision 2026-07-28, a stateless handler: tasks/list
// lists nothing, and the unguessable task ID is all that guards a task, as
// the specification allows). A caller whose auth data has no subject and
// that has no session has no scope at all: it gets errNoTaskScope, since
// a task scoped to nothing shared could be read by no one, its creator
// included.
func taskScope(k *call) (string, error) {
	auth := k.auth
	if auth == nil {
		auth = k.c.sess.Auth()
	}
	if key, ok := identity.Key(auth); ok {
		return key, nil
	}
	if !k.c.ephemeral {
		return "session:" + k.c.sess.ID, nil
	}
	if auth == nil {
		return "", nil
	}
	return "", errNoTaskScope
}

// errNoTaskScope refuses a task, or a tasks/* request, of a caller that
// has neither a session nor a subject (taskScope).
var errNoTaskScope = &mcp.Error{Code: mcp.CodeServerError, Message: "Tasks unavailable: this request has no session " +
	"(revision 2026-07-28, or a stateless server) and the caller's auth data has no subject, so no later request can be " +
	"recognised as this caller's; the server's authentication must return auth data that implements mcp.Subject"}

// taskParam is params.task of a task-augmented request.
type taskParam struct {
	ttl time.Duration // 0: the tool's
}

// decodeTaskParam reads params.task: an object whose ttl, when present
// and not null, is a number of milliseconds. A ttl of zero or less, or one
// too large for a duration, reads as none (the tool's). Other members are
// ignored.
func decodeTaskParam(raw json.RawMessage) (taskParam, error) {
	var p struct {
		TTL *float64 `json:"ttl"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &p) != nil {
		return taskParam{}, &mcp.Error{Code: mcp.CodeInvalidParams,
			Message: `Invalid params: "task" must be an object whose optional "ttl" is a number of milliseconds`}
	}
	if p.TTL == nil || *p.TTL <= 0 || math.IsNaN(*p.TTL) || *p.TTL >= float64(math.MaxInt64/int64(time.Millisecond)) {
		return taskParam{}, nil
	}
	return taskParam{ttl: time.Duration(*p.TTL) * time.Millisecond}, nil
}

// callAsTask25 is callAsTask for the 2025 revisions: a tools/call with
// params.task at 2025-11-25 runs as a task when the tool allows it. The
// specification's tool-level rules: a task for a tool without
// TaskOptions (taskSupport forbidden), or an ordinary call of a Required
// one (refuseUntasked, in package mcp), is -32601.
func (h *Handler) callAsTask25(ctx context.Context, k *call, name string, args json.RawMessage, meta *requestMeta, task json.RawMessage) (any, bool, error) {
	if len(task) == 0 || string(task) == "null" || !speaksTasks25(k) {
		// An ordinary call (mcp.Server.callTool refuses one of a Required
		// tool at 2025-11-25); before 2025-11-25 params.task is ignored.
		return nil, false, nil
	}
	t, ok := h.ops.LookupTool(k.r.Context(), k.caller(), name)
	if !ok {
		return nil, false, nil // the ordinary path answers an unknown tool
	}
	if t.Task == nil {
		return nil, true, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: fmt.Sprintf(
			"Method not found: tool %s does not run as a task (its execution.taskSupport is forbidden); call it without params.task", strictjson.Quote(name))}
	}
	p, err := decodeTaskParam(task)
	if err != nil {
		return nil, true, err
	}
	o := *t.Task
	if o.TTL <= 0 {
		o.TTL = engine.DefaultTaskTTL
	}
	if p.ttl > 0 && p.ttl < o.TTL {
		o.TTL = p.ttl // a shorter life on request; never a longer one than the tool's
	}
	era := &taskEra{created: func(t *session.Task) any {
		return struct {
			Task task25 `json:"task"`
		}{wire25(t)}
	}}
	if !k.c.ephemeral {
		c := k.c
		era.notify = func(t *session.Task) {
			_ = streamPeer{c}.Notify(context.Background(), "notifications/tasks/status", wire25(t))
		}
		// The tool's progress (its call's progressToken stays valid for
		// the task's life) and log messages go on the same stream, with
		// the related task.
		era.stream = func(id, method string, params any) error {
			b, err := json.Marshal(params)
			if err != nil {
				return fmt.Errorf("mcp: encoding %s params: %w", method, err)
			}
			if b, err = withMeta(b, relatedTaskKey, map[string]string{"taskId": id}); err != nil {
				return err
			}
			return streamPeer{c}.Notify(context.Background(), method, json.RawMessage(b))
		}
	}
	res, err := h.startTask(ctx, k, name, args, meta, o, era)
	return res, true, err
}

// task25 is a task on the wire at 2025-11-25.
type task25 struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"` // null: unlimited
	PollInterval  int64  `json:"pollInterval,omitempty"`
}

// wire25 is t as revision 2025-11-25 shows it. A tool's isError result
// makes the task failed there (at 2026-07-28 it is completed); a failed
// task's statusMessage is its error's message.
func wire25(t *session.Task) task25 {
	w := task25{TaskID: t.ID, Status: string(t.Status), StatusMessage: t.StatusMessage,
		CreatedAt: t.Created.UTC().Format(taskTimeFormat), LastUpdatedAt: t.Updated.UTC().Format(taskTimeFormat),
		PollInterval: t.PollInterval.Milliseconds()}
	if t.TTL > 0 {
		ms := t.TTL.Milliseconds()
		w.TTL = &ms
	}
	switch t.Status {
	case session.TaskCompleted:
		if resultIsError(t.Result) {
			w.Status = string(session.TaskFailed)
			if w.StatusMessage == "" {
				w.StatusMessage = "The tool returned an error result (isError); tasks/result returns it"
			}
		}
	case session.TaskFailed:
		var e mcp.Error
		if w.StatusMessage == "" && json.Unmarshal(t.Error, &e) == nil {
			w.StatusMessage = e.Message
		}
	}
	return w
}

func resultIsError(raw json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(raw, &r) == nil && r.IsError
}

// taskIDParams are the params of tasks/get, tasks/result and tasks/cancel.
type taskIDParams struct {
	TaskID string `json:"taskId"`
}

// decodeTaskID reads params.taskId: a non-empty string.
func decodeTaskID(method string, raw json.RawMessage) (string, error) {
	var p taskIDParams
	if err := decodeParams(raw, &p); err != nil {
		return "", err
	}
	if p.TaskID == "" {
		return "", &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: " + method + ` needs "taskId", a string`}
	}
	return p.TaskID, nil
}

// task25Of reads the task params.taskId names; an unknown task, one that
// expired, or one of another caller (taskScope) is -32602.
func (h *Handler) task25Of(ctx context.Context, k *call) (*session.Task, error) {
	id, err := decodeTaskID(k.msg.Method, k.msg.Params)
	if err != nil {
		return nil, err
	}
	scope, err := taskScope(k)
	if err != nil {
		return nil, err
	}
	t, err := h.taskStore().GetTask(ctx, id)
	if err == nil && t.Identity != scope {
		err = session.ErrNotFound
	}
	if err == nil {
		t, err = h.settleLost(ctx, t)
	}
	if errors.Is(err, session.ErrNotFound) {
		return nil, unknownTask(id)
	}
	if err != nil {
		return nil, h.taskStoreFailed(err)
	}
	return t, nil
}

// doTasksGet25 is tasks/get: the task.
func (h *Handler) doTasksGet25(ctx context.Context, k *call) (any, error) {
	t, err := h.task25Of(ctx, k)
	if err != nil {
		return nil, err
	}
	return wire25(t), nil
}

// doTasksList25 is tasks/list: the caller's tasks, oldest first, one page
// after params.cursor.
func (h *Handler) doTasksList25(ctx context.Context, k *call) (any, error) {
	var p listParams
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	tl, ok := h.taskStore().(session.TaskLister)
	if !ok {
		return nil, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: "Method not found: tasks/list: the task store cannot list tasks (it is not a session.TaskLister)"}
	}
	scope, err := taskScope(k)
	if err != nil {
		return nil, err
	}
	var items []task25
	if scope != "" {
		ts, err := tl.ListTasks(ctx, scope)
		if err != nil {
			return nil, h.taskStoreFailed(err)
		}
		items = make([]task25, len(ts))
		for i, t := range ts {
			items[i] = wire25(t)
		}
	}
	page, next, err := paginate(items, p.Cursor, h.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return listPage[task25]{key: "tasks", items: page, next: next}, nil
}

// doTasksCancel25 is tasks/cancel: the task ends cancelled and is
// returned; one that has ended already is -32602.
func (h *Handler) doTasksCancel25(ctx context.Context, k *call) (any, error) {
	t, err := h.task25Of(ctx, k)
	if err != nil {
		return nil, err
	}
	var ended session.TaskStatus
	nt, err := h.taskStore().UpdateTask(ctx, t.ID, func(t *session.Task) error {
		if t.Status.Terminal() {
			ended = t.Status
			if t.Status == session.TaskCompleted && resultIsError(t.Result) {
				ended = session.TaskFailed
			}
			return errTaskEnded
		}
		t.Status, t.StatusMessage = session.TaskCancelled, "Cancelled by the client"
		t.InputRequests, t.InputResponses, t.InputErrors = nil, nil, nil
		t.Updated = time.Now().UTC()
		return nil
	})
	switch {
	case errors.Is(err, errTaskEnded):
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf(
			"Invalid params: cannot cancel task %s: it has already ended (%s)", strictjson.Quote(t.ID), ended)}
	case errors.Is(err, session.ErrNotFound):
		return nil, unknownTask(t.ID)
	case err != nil:
		return nil, h.taskStoreFailed(err)
	}
	if run := h.tasks.get(t.ID); run != nil {
		run.cancel(errTaskCancelled)
		if run.notify != nil {
			run.notify(nt)
		}
	}
	return wire25(nt), nil
}

// doTasksResult25 is tasks/result: it waits until the task ends and
// returns what the tools/call would have (its CallToolResult, or its
// JSON-RPC error), with _meta's related-task. Meanwhile it asks the
// client the task's questions, on this request's stream.
func (h *Handler) doTasksResult25(ctx context.Context, k *call) (any, error) {
	t, err := h.task25Of(ctx, k)
	if err != nil {
		return nil, err
	}
	rctx, stop := context.WithCancel(ctx)
	var relays sync.WaitGroup
	defer func() { stop(); relays.Wait() }()
	peer := &requestPeer{c: k.c, rs: k.rs}
	st := h.taskStore()
	// The relays read the ID, never t: the loop below replaces t with each
	// new read of the task while they run.
	id := t.ID
	for {
		if t.Status.Terminal() {
			return taskOutcome(t)
		}
		for key, q := range t.InputRequests {
			if !h.tasks.claim(id, key) {
				continue // another tasks/result on this replica asks it
			}
			relays.Add(1)
			go func() {
				defer relays.Done()
				defer h.tasks.unclaim(id, key)
				h.relayQuestion(rctx, st, peer, id, key, q)
			}()
		}
		select {
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		case <-time.After(taskWatchInterval):
		}
		nt, err := st.GetTask(ctx, id)
		if err == nil {
			nt, err = h.settleLost(ctx, nt)
		}
		if errors.Is(err, session.ErrNotFound) {
			return nil, unknownTask(id)
		}
		if err != nil {
			return nil, h.taskStoreFailed(err)
		}
		t = nt
	}
}

// taskOutcome is the answer of tasks/result for an ended task.
func taskOutcome(t *session.Task) (any, error) {
	switch t.Status {
	case session.TaskCompleted:
		return withMeta(t.Result, relatedTaskKey, map[string]string{"taskId": t.ID})
	case session.TaskFailed:
		var e mcp.Error
		if json.Unmarshal(t.Error, &e) != nil || e.Code == 0 {
			e = mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: the task failed"}
		}
		return nil, &e
	}
	return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: task " + strictjson.Quote(t.ID) +
		" was cancelled before it ended, so it has no result"}
}

// withMeta returns the JSON object obj with _meta[key] set to v (other
// _meta members kept).
func withMeta(obj json.RawMessage, key string, v any) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	if raw, ok := m["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	meta[key] = b
	if m["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// relayQuestion asks the client one of a task's questions (q is
// {"method", "params"}) through peer, with the related-task _meta, and
// writes the answer, or the client's error, into the task. When ctx ends
// first nothing is written: the next tasks/result asks again.
func (h *Handler) relayQuestion(ctx context.Context, st session.TaskStore, peer mcpPeer, id, key string, q json.RawMessage) {
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(q, &req) != nil || req.Method == "" {
		return
	}
	params, err := withMeta(req.Params, relatedTaskKey, map[string]string{"taskId": id})
	if err != nil {
		return
	}
	res, callErr := peer.Call(ctx, req.Method, params)
	if ctx.Err() != nil {
		return
	}
	var errJSON json.RawMessage
	if callErr != nil {
		errJSON = relayErrorJSON(req.Method, callErr)
	}
	t, err := st.UpdateTask(context.WithoutCancel(ctx), id, func(t *session.Task) error {
		return recordRelayed(t, key, res, errJSON)
	})
	if err != nil {
		if !errors.Is(err, errTaskEnded) && !errors.Is(err, session.ErrNotFound) {
			h.log.Error("mcp: the task store failed to save an answer", "task", id, "error", err)
		}
		return
	}
	if run := h.tasks.get(id); run != nil {
		select {
		case run.kick <- struct{}{}:
		default:
		}
		if run.notify != nil && t.Status == session.TaskWorking {
			run.notify(t)
		}
	}
}

// relayErrorJSON is the JSON-RPC error, as JSON, of a question relayed to
// the client whose method call failed with callErr: the client's own
// error, else an internal error saying so.
func relayErrorJSON(method string, callErr error) json.RawMessage {
	je := &mcp.Error{}
	if !errors.As(callErr, &je) {
		je = &mcp.Error{Code: mcp.CodeInternalError, Message: "the " + method + " request to the client failed: " + callErr.Error()}
	}
	b, _ := json.Marshal(je)
	return b
}

// recordRelayed writes into task t the answer to its question key that
// the client gave: the result res, or the error errJSON when not nil.
// Once no question is left, an input_required task is working again. A
// task that ended, or whose question was answered meanwhile (tasks/update,
// another replica), takes nothing (errTaskEnded).
func recordRelayed(t *session.Task, key string, res, errJSON json.RawMessage) error {
	if t.Status.Terminal() {
		return errTaskEnded
	}
	if _, asked := t.InputRequests[key]; !asked {
		return errTaskEnded
	}
	delete(t.InputRequests, key)
	if errJSON != nil {
		if t.InputErrors == nil {
			t.InputErrors = map[string]json.RawMessage{}
		}
		t.InputErrors[key] = errJSON
	} else {
		if t.InputResponses == nil {
			t.InputResponses = map[string]json.RawMessage{}
		}
		t.InputResponses[key] = res
	}
	if len(t.InputRequests) == 0 && t.Status == session.TaskInputRequired {
		t.Status = session.TaskWorking
	}
	t.Updated = time.Now().UTC()
	return nil
}

// claim marks a task's question as being asked by a tasks/result of this
// replica, so that two of them do not ask it twice; false when one does.
func (t *tasks) claim(id, key string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.asking == nil {
		t.asking = map[string]bool{}
	}
	k := id + "\x00" + key
	if t.asking[k] {
		return false
	}
	t.asking[k] = true
	return true
}

func (t *tasks) unclaim(id, key string) {
	t.mu.Lock()
	delete(t.asking, id+"\x00"+key)
	t.mu.Unlock()
}

// initCapabilities adds to initialize's capabilities the tasks
// capability at 2025-11-25. (The extensions the server offers go under
// capabilities.extensions at every 2025 revision: extensions.go. The 2025
// schemas have no extensions member; SEP-2133 (extensions) puts it there
// for initialize, the TypeScript SDK reads it, and clients that do not
// know it ignore it, as they ignore any capability they do not know.)
func (h *Handler) initCapabilities(version string, c *serverCapabilities) {
	if mcp.Version(version) == mcp.Version20251125 {
		c.Tasks = h.tasksCapability()
	}
}
