package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/session"
)

// taskTimeFormat is how a task's timestamps are written (ISO 8601, UTC).
const taskTimeFormat = "2006-01-02T15:04:05.000Z07:00"

// taskWatchInterval is how often a running task reads its stored state:
// to see a tasks/cancel or a tasks/update another replica took. Those that
// reach this replica wake the runner at once.
const taskWatchInterval = 100 * time.Millisecond

// A running task's heartbeat: its runner writes it every
// taskHeartbeatInterval; a task that is not terminal and whose heartbeat
// is older than taskLostAfter was left behind by a replica that stopped
// (killed, crashed) and is settled failed by the next tasks/get,
// tasks/update or tasks/cancel, on any replica.
const (
	taskHeartbeatInterval = 2 * time.Second
	taskLostAfter         = 10 * time.Second
)

var (
	// errTaskCancelled is the cause of a task's context after tasks/cancel.
	errTaskCancelled = errors.New("mcp: the client cancelled the task")
	// errTaskShutdown is the cause of a task's context when the server
	// shuts down before the task ends.
	errTaskShutdown = errors.New("mcp: the server shut down before the task ended")
	// errTaskEnded stops a store update of a task that has already ended.
	errTaskEnded = errors.New("mcp: the task has ended")
)

// tasks is what a Handler keeps of the tasks it runs: their cancel
// functions and wake-up channels (tasks running on other replicas are
// reached through the store), and the task store when the session store
// is not one.
type tasks struct {
	mu       sync.Mutex
	running  map[string]*taskRun
	fallback *session.MemoryStore
	// asking marks the questions a tasks/result of this replica is
	// asking (2025-11-25; ext_tasks25.go), by task ID and key.
	asking map[string]bool
	// prePeer, when set (tests), replaces the request's peer of a
	// deferred task's first phase.
	prePeer func(mcpPeer) mcpPeer
}

// taskRun is a task this replica runs.
type taskRun struct {
	cancel context.CancelCauseFunc
	kick   chan struct{} // a tasks/update arrived here: read the store now
	// identity is the task's Identity, for the per-client count of a
	// store that cannot list tasks.
	identity string
	// notify, when set, hears of the task's status changes on this
	// replica (notifications/tasks/status at 2025-11-25).
	notify func(*session.Task)
}

// taskStore is where tasks live: the session store when it is a
// session.TaskStore (MemoryStore and RedisStore are), so tasks are shared
// like sessions; else an in-memory store of this handler.
func (h *Handler) taskStore() session.TaskStore {
	if ts, ok := h.store.(session.TaskStore); ok {
		return ts
	}
	h.tasks.mu.Lock()
	defer h.tasks.mu.Unlock()
	if h.tasks.fallback == nil {
		h.tasks.fallback = session.NewMemoryStore()
	}
	return h.tasks.fallback
}

func (t *tasks) add(id string, run *taskRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running == nil {
		t.running = map[string]*taskRun{}
	}
	t.running[id] = run
}

func (t *tasks) remove(id string) {
	t.mu.Lock()
	delete(t.running, id)
	t.mu.Unlock()
}

func (t *tasks) get(id string) *taskRun {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running[id]
}

// tasksOptIn reports whether a request opts in to tasks: its _meta client
// capabilities carry extensions["io.modelcontextprotocol/tasks"].
func tasksOptIn(params json.RawMessage) bool {
	meta, ok := requestMetaOf(params)
	if !ok {
		return false
	}
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(meta[metaClientCaps], &caps) != nil {
		return false
	}
	v, ok := caps.Extensions[mcp.TasksExtension]
	return ok && string(v) != "null"
}

// errTasksCapability is -32021 naming the tasks extension.
func errTasksCapability(what string) *mcp.Error {
	return &mcp.Error{Code: mcp.CodeMissingClientCapability,
		Message: "Missing client capability: " + what + " needs the " + mcp.TasksExtension + " extension in _meta's clientCapabilities.extensions",
		Data:    map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{mcp.TasksExtension: struct{}{}}}}}
}

// callAsTask decides whether a tools/call runs as a task and, if so, runs
// it: handled is false when the call is an ordinary one (a 2025 revision,
// a tool without TaskOptions, an optional task without the opt-in, or a
// call its caller awaits within its own request: engine.WithAwaited).
func (h *Handler) callAsTask(ctx context.Context, k *call, name string, args json.RawMessage, meta *requestMeta, task json.RawMessage) (res any, handled bool, err error) {
	if engine.Awaited(ctx) {
		return nil, false, nil
	}
	if !k.c.rev20260728 {
		return h.callAsTask25(ctx, k, name, args, meta, task) // ext_tasks25.go
	}
	t, ok := h.ops.LookupTool(k.r.Context(), k.caller(), name)
	if !ok || t.Task == nil {
		return nil, false, nil
	}
	if !tasksOptIn(k.msg.Params) {
		if t.Task.Required {
			return nil, true, errTasksCapability(fmt.Sprintf("tool %s runs only as a task: it", strictjson.Quote(name)))
		}
		return nil, false, nil
	}
	if _, err := taskScope(k); err != nil {
		// A caller without a subject has no task scope here: a tool that
		// may run as a task runs as an ordinary call (the extension lets
		// the server answer either way); one that must is refused.
		if t.Task.Required {
			return nil, true, err
		}
		return nil, false, nil
	}
	res, err = h.startTask(ctx, k, name, args, meta, *t.Task, nil)
	return res, true, err
}

// createTaskResult is the answer to a tools/call that made a task: the
// task itself, flat.
type createTaskResult struct {
	ResultType string `json:"resultType"`
	taskFields
}

// taskFields are the members every form of a task has.
type taskFields struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          *int64 `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

func fieldsOf(t *session.Task) taskFields {
	f := taskFields{TaskID: t.ID, Status: string(t.Status), StatusMessage: t.StatusMessage,
		CreatedAt: t.Created.UTC().Format(taskTimeFormat), LastUpdatedAt: t.Updated.UTC().Format(taskTimeFormat),
		PollIntervalMs: t.PollInterval.Milliseconds()}
	if t.TTL > 0 {
		ms := t.TTL.Milliseconds()
		f.TTLMs = &ms
	}
	return f
}

// startTask makes the task of a tools/call and starts the tool on it. The
// tool's context is detached from the request: it ends with tasks/cancel,
// the server's shutdown, or the tool's Timeout. A task is written to the
// store before the request is answered, so a tasks/get sent at once finds
// it on any replica. era is nil for revision 2026-07-28, else what
// differs at 2025-11-25 (ext_tasks25.go). The tool holds a slot of
// MaxConcurrentRequests while it runs, and a caller may have
// MaxTasksPerClient live tasks (admitTask).
func (h *Handler) startTask(ctx context.Context, k *call, name string, args json.RawMessage, meta *requestMeta, o mcp.TaskOptions, era *taskEra) (any, error) {
	if o.TTL <= 0 {
		o.TTL = engine.DefaultTaskTTL
	}
	if o.PollInterval <= 0 {
		o.PollInterval = engine.DefaultTaskPollInterval
	}
	scope, err := taskScope(k)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	rec := &session.Task{ID: session.NewID(), Status: session.TaskWorking, Identity: scope,
		Created: now, Updated: now, Heartbeat: now, TTL: o.TTL, PollInterval: o.PollInterval}
	st := h.taskStore()
	if err := h.admitTask(ctx, st, scope); err != nil {
		return nil, err
	}
	answer := func() any {
		if era != nil {
			return era.created(rec)
		}
		return createTaskResult{ResultType: "task", taskFields: fieldsOf(rec)}
	}

	h.mu.RLock()
	if h.closed {
		h.mu.RUnlock()
		h.releaseTaskSlot()
		return nil, &mcp.Error{Code: mcp.CodeServerError, Message: "Service Unavailable: the server is shutting down"}
	}
	h.wg.Add(2) // the tool, and its watcher
	h.mu.RUnlock()

	tctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	run := &taskRun{cancel: cancel, kick: make(chan struct{}, 1), identity: scope}
	if era != nil {
		run.notify = era.notify
	}
	tp := &taskPeer{h: h, st: st, id: rec.ID, run: run, used: map[string]bool{}}
	if era != nil && era.stream != nil {
		tp.out = func(method string, params any) error { return era.stream(rec.ID, method, params) }
	}
	info := h.ops.ContextInfo(h.context(ctx, k, meta))
	info.Roots = nil // the request's roots cache ends with the request
	tp.meta = info.Meta

	if !o.Deferred {
		if err := st.CreateTask(ctx, rec); err != nil {
			cancel(nil)
			h.wg.Add(-2)
			h.releaseTaskSlot()
			h.log.Error("mcp: the task store failed to save a new task", "tool", name, "error", err)
			return nil, &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: the task store failed to save the new task; retry later"}
		}
		h.tasks.add(rec.ID, run)
		info.Peer = tp
		mc := h.ops.NewContext(tctx, info)
		go h.watchTask(tctx, rec.ID, st, run)
		go func() {
			defer h.wg.Done()
			defer h.releaseTaskSlot()
			res, err := h.ops.CallTool(h.ops.WithContext(tctx, mc), mc, name, args)
			h.finishTask(tctx, st, rec.ID, res, err)
		}()
		return answer(), nil
	}

	// Deferred: the tool runs now, as part of the request (its questions
	// go on the request, and the request's end cancels it), until it calls
	// StartTask; the task is made then and the request answered with it.
	unlink := context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })
	before := info.Peer
	if h.tasks.prePeer != nil {
		before = h.tasks.prePeer(before)
	}
	pp := &phasePeer{before: before, after: tp, started: make(chan struct{})}
	pp.start = func(sctx context.Context) error {
		rec.Created = time.Now().UTC()
		rec.Updated, rec.Heartbeat = rec.Created, rec.Created
		if err := st.CreateTask(sctx, rec); err != nil {
			h.log.Error("mcp: the task store failed to save a new task", "tool", name, "error", err)
			return &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: the task store failed to save the new task; retry later"}
		}
		unlink()
		h.tasks.add(rec.ID, run)
		go h.watchTask(tctx, rec.ID, st, run)
		return nil
	}
	info.Peer = pp
	mc := h.ops.NewContext(tctx, info)
	type outcome struct {
		res *mcp.ContentResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer h.wg.Done()
		defer h.releaseTaskSlot()
		res, err := h.ops.CallTool(h.ops.WithContext(tctx, mc), mc, name, args)
		if pp.isStarted() {
			h.finishTask(tctx, st, rec.ID, res, err)
			return
		}
		unlink()
		cancel(nil)
		h.wg.Done() // no watcher was started
		done <- outcome{res, err}
	}()
	select {
	case <-pp.started:
		return answer(), nil
	case o := <-done:
		if o.err != nil {
			return nil, o.err
		}
		return o.res, nil
	}
}

// watchTask reads a running task's stored state every taskWatchInterval
// and cancels it when it was cancelled on another replica (or expired),
// or at once when the server shuts down; every taskHeartbeatInterval it
// writes the task's heartbeat. It ends with the task.
func (h *Handler) watchTask(ctx context.Context, id string, st session.TaskStore, run *taskRun) {
	defer h.wg.Done()
	tick := time.NewTicker(taskWatchInterval)
	defer tick.Stop()
	beat := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.done:
			run.cancel(errTaskShutdown)
			return
		case now := <-tick.C:
			var (
				t   *session.Task
				err error
			)
			if now.Sub(beat) >= taskHeartbeatInterval {
				beat = now
				t, err = st.UpdateTask(ctx, id, func(t *session.Task) error {
					if t.Status.Terminal() {
						return errTaskEnded
					}
					t.Heartbeat = now.UTC()
					return nil
				})
				if errors.Is(err, errTaskEnded) {
					run.cancel(errTaskCancelled)
					return
				}
			} else {
				t, err = st.GetTask(ctx, id)
			}
			if errors.Is(err, session.ErrNotFound) || (err == nil && t.Status.Terminal()) {
				run.cancel(errTaskCancelled)
				return
			}
		}
	}
}

// settleLost marks failed a task whose runner stopped without ending it
// (its heartbeat is older than taskLostAfter), and returns it as stored.
func (h *Handler) settleLost(ctx context.Context, t *session.Task) (*session.Task, error) {
	if t.Status.Terminal() || t.Heartbeat.IsZero() || time.Since(t.Heartbeat) <= taskLostAfter {
		return t, nil
	}
	lost, err := json.Marshal(mcp.Error{Code: mcp.CodeInternalError,
		Message: "The server running the task stopped before it ended; run the tool again"})
	if err != nil {
		return nil, err
	}
	nt, err := h.taskStore().UpdateTask(ctx, t.ID, func(t *session.Task) error {
		if t.Status.Terminal() || time.Since(t.Heartbeat) <= taskLostAfter {
			return nil
		}
		t.Status, t.Error = session.TaskFailed, lost
		t.InputRequests, t.InputResponses = nil, nil
		t.Updated = time.Now().UTC()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return nt, nil
}

// finishTask writes a task's outcome: completed with the tool's result
// (an isError result too), failed with a JSON-RPC error the tool raised,
// or failed when the server shut down first. A task already ended
// (cancelled) is left as it is.
func (h *Handler) finishTask(ctx context.Context, st session.TaskStore, id string, res *mcp.ContentResult, err error) {
	defer h.tasks.remove(id)
	cause := context.Cause(ctx)
	run := h.tasks.get(id)
	if run != nil {
		defer run.cancel(nil) // ends the watcher
	}
	var (
		result, rpcErr json.RawMessage
		encErr         error
	)
	switch {
	case errors.Is(cause, errTaskShutdown):
		rpcErr, encErr = json.Marshal(mcp.Error{Code: mcp.CodeInternalError, Message: "The server shut down before the task ended; run the tool again"})
	case err != nil || res == nil:
		var je *mcp.Error
		if err == nil {
			err = errors.New("the tool returned no result")
		}
		if !errors.As(err, &je) {
			je = &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: " + err.Error()}
		}
		rpcErr, encErr = json.Marshal(je)
	default:
		result, encErr = appendToolResult(nil, res)
	}
	if encErr != nil {
		h.log.Error("mcp: encoding a task's outcome failed", "task", id, "error", encErr)
		rpcErr, _ = json.Marshal(mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: encoding the result failed"})
		result = nil
	}
	wctx, wcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer wcancel()
	done, uerr := st.UpdateTask(wctx, id, func(t *session.Task) error {
		if t.Status.Terminal() {
			return errTaskEnded
		}
		t.InputRequests, t.InputResponses, t.InputErrors = nil, nil, nil
		t.Updated = time.Now().UTC()
		if rpcErr != nil {
			t.Status, t.Error = session.TaskFailed, rpcErr
		} else {
			t.Status, t.Result = session.TaskCompleted, result
		}
		return nil
	})
	switch {
	case uerr == nil:
		if run != nil && run.notify != nil {
			run.notify(done)
		}
	case errors.Is(uerr, errTaskEnded):
	case errors.Is(uerr, session.ErrNotFound):
		h.log.Debug("mcp: a task outlived its TTL; its outcome is dropped", "task", id)
	default:
		h.log.Error("mcp: the task store failed to save a task's outcome", "task", id, "error", uerr)
	}
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	TaskID         string          `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses"`
}

// taskOf checks the opt-in (before anything else: -32021), decodes the
// params and reads the task; an unknown task, or one another caller made,
// is -32602.
func (h *Handler) taskOf(ctx context.Context, k *call, p *taskParams) (*session.Task, error) {
	if !tasksOptIn(k.msg.Params) {
		return nil, errTasksCapability(k.msg.Method)
	}
	if err := decodeParams(k.msg.Params, p); err != nil {
		return nil, err
	}
	if p.TaskID == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: " + k.msg.Method + ` needs "taskId"`}
	}
	scope, err := taskScope(k)
	if err != nil {
		return nil, err
	}
	t, err := h.taskStore().GetTask(ctx, p.TaskID)
	if err == nil && t.Identity != scope {
		err = session.ErrNotFound
	}
	if err == nil {
		t, err = h.settleLost(ctx, t)
	}
	if errors.Is(err, session.ErrNotFound) {
		return nil, unknownTask(p.TaskID)
	}
	if err != nil {
		return nil, h.taskStoreFailed(err)
	}
	return t, nil
}

func unknownTask(id string) *mcp.Error {
	return &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: unknown task " + strictjson.Quote(id) + " (never created, expired, or not yours)"}
}

func (h *Handler) taskStoreFailed(err error) *mcp.Error {
	h.log.Error("mcp: the task store failed", "error", err)
	return &mcp.Error{Code: mcp.CodeInternalError, Message: "Internal error: the task store failed; retry later"}
}

// detailedTask is the result of tasks/get.
type detailedTask struct {
	taskFields
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
	Result        json.RawMessage            `json:"result,omitempty"`
	Error         json.RawMessage            `json:"error,omitempty"`
}

// doTasksGet is tasks/get: the task, with its questions while
// input_required, its result once completed, its error once failed.
func (h *Handler) doTasksGet(ctx context.Context, k *call) (any, error) {
	var p taskParams
	t, err := h.taskOf(ctx, k, &p)
	if err != nil {
		return nil, err
	}
	d := detailedTask{taskFields: fieldsOf(t)}
	switch t.Status {
	case session.TaskInputRequired:
		d.InputRequests = t.InputRequests
	case session.TaskCompleted:
		d.Result = t.Result
	case session.TaskFailed:
		d.Error = t.Error
	}
	return d, nil
}

// doTasksUpdate is tasks/update: answers to the task's questions. Keys
// that are not outstanding are ignored; the task stays input_required
// until every question is answered. The answer is an empty
// acknowledgement.
func (h *Handler) doTasksUpdate(ctx context.Context, k *call) (any, error) {
	var p taskParams
	t, err := h.taskOf(ctx, k, &p)
	if err != nil {
		return nil, err
	}
	answers, err := inputResponses(p.InputResponses, t.InputRequests)
	if err != nil {
		return nil, err
	}
	_, err = h.taskStore().UpdateTask(ctx, t.ID, func(t *session.Task) error { return recordAnswers(t, answers) })
	if err != nil && !errors.Is(err, errTaskEnded) {
		if errors.Is(err, session.ErrNotFound) {
			return nil, unknownTask(t.ID)
		}
		return nil, h.taskStoreFailed(err)
	}
	if run := h.tasks.get(t.ID); run != nil {
		select {
		case run.kick <- struct{}{}:
		default:
		}
	}
	return struct{}{}, nil
}

// inputResponses reads the inputResponses of a tasks/update: an object
// whose answers to the questions asked are objects (the results of the
// requests).
func inputResponses(raw json.RawMessage, asked map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	var answers map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &answers) != nil {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: tasks/update needs "inputResponses", an object of answers by the keys of the task's inputRequests`}
	}
	for key, v := range answers {
		if _, ok := asked[key]; ok && (len(v) == 0 || v[0] != '{') {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf(
				"Invalid params: inputResponses[%s] must be an object: the result of the %s request", strictjson.Quote(key), strictjson.Quote(key))}
		}
	}
	return answers, nil
}

// recordAnswers moves the questions of task t that answers answer from
// its inputRequests to its inputResponses (answers to questions not
// asked are dropped); once none is left, an input_required task is
// working again. An ended task takes no answer (errTaskEnded).
func recordAnswers(t *session.Task, answers map[string]json.RawMessage) error {
	if t.Status.Terminal() {
		return errTaskEnded
	}
	for key, v := range answers {
		if _, asked := t.InputRequests[key]; !asked {
			continue
		}
		delete(t.InputRequests, key)
		if t.InputResponses == nil {
			t.InputResponses = map[string]json.RawMessage{}
		}
		t.InputResponses[key] = v
	}
	if len(t.InputRequests) == 0 && t.Status == session.TaskInputRequired {
		t.Status = session.TaskWorking
	}
	t.Updated = time.Now().UTC()
	return nil
}

// doTasksCancel is tasks/cancel: the task ends cancelled (a task that has
// ended already stays as it is); the answer is an empty acknowledgement
// either way. The tool's context is cancelled here when this replica runs
// it, else by its runner's watcher, which reads the status from the store.
func (h *Handler) doTasksCancel(ctx context.Context, k *call) (any, error) {
	var p taskParams
	t, err := h.taskOf(ctx, k, &p)
	if err != nil {
		return nil, err
	}
	_, err = h.taskStore().UpdateTask(ctx, t.ID, func(t *session.Task) error {
		if t.Status.Terminal() {
			return errTaskEnded
		}
		t.Status, t.StatusMessage = session.TaskCancelled, "Cancelled by the client"
		t.InputRequests, t.InputResponses, t.InputErrors = nil, nil, nil
		t.Updated = time.Now().UTC()
		return nil
	})
	if err != nil && !errors.Is(err, errTaskEnded) {
		if errors.Is(err, session.ErrNotFound) {
			return nil, unknownTask(t.ID)
		}
		return nil, h.taskStoreFailed(err)
	}
	if run := h.tasks.get(t.ID); run != nil {
		run.cancel(errTaskCancelled)
	}
	return struct{}{}, nil
}
