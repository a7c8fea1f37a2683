package mcphttp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/session"
)

// paginate returns one page of items after the cursor.
func paginate[T any](items []T, cursor string, size int) ([]T, string, error) {
	start := 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		n, err2 := strconv.Atoi(string(b))
		if err != nil || err2 != nil || n < 0 || n > len(items) {
			return nil, "", &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("Invalid params: cursor %s is not one this server issued", strictjson.Quote(cursor))}
		}
		start = n
	}
	end := min(start+size, len(items))
	next := ""
	if end < len(items) {
		next = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	return items[start:end], next, nil
}

type listParams struct {
	Cursor string `json:"cursor"`
}

// listMethod is the handler of a list method (resources/list and the
// like): the items of a kind the caller sees, one page after
// params.cursor, under key.
func listMethod[T any](key string, list func(serverOps, context.Context, engine.Caller) []T) methodFunc {
	return func(h *Handler, _ context.Context, k *call) (any, error) {
		return listPageOf(h, k, key, func() []T { return list(h.ops, k.r.Context(), k.caller()) })
	}
}

// listPageOf is one page of what list returns, after params.cursor.
func listPageOf[T any](h *Handler, k *call, key string, list func() []T) (any, error) {
	var p listParams
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	page, next, err := paginate(list(), p.Cursor, h.opts.PageSize)
	if err != nil {
		return nil, err
	}
	return listPage[T]{key: key, items: page, next: next}, nil
}

// doToolsList is tools/list: at 2025-11-25 each tool that may run as a
// task carries execution.taskSupport (ext_tasks25.go).
func (h *Handler) doToolsList(_ context.Context, k *call) (any, error) {
	return listPageOf(h, k, "tools", func() []json.RawMessage {
		return h.ops.ListTools(k.r.Context(), k.caller(), speaksTasks25(k))
	})
}

// listPage is one page of a list result: {key: [items], "nextCursor": …}.
type listPage[T any] struct {
	key   string
	items []T
	next  string
}

func (listPage[T]) compact() {}

// MarshalJSON implements json.Marshaler.
func (p listPage[T]) MarshalJSON() ([]byte, error) {
	items := p.items
	if items == nil {
		items = []T{} // an empty list is [], never null
	}
	var ib []byte
	if raw, ok := any(items).([]json.RawMessage); ok {
		ib = appendRawList(make([]byte, 0, rawLen(raw)), raw) // encoded once (tools)
	} else {
		var err error
		if ib, err = json.Marshal(items); err != nil {
			return nil, err
		}
	}
	b := make([]byte, 0, len(ib)+len(p.key)+len(p.next)+32)
	b = jsonrpc.AppendString(append(b, '{'), p.key)
	b = append(append(b, ':'), ib...)
	if p.next != "" {
		b = jsonrpc.AppendString(append(b, `,"nextCursor":`...), p.next)
	}
	return append(b, '}'), nil
}

// appendRawList appends items as a JSON array.
func appendRawList(b []byte, items []json.RawMessage) []byte {
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, ']')
}

func rawLen(items []json.RawMessage) int {
	n := 2
	for _, it := range items {
		n += len(it) + 1
	}
	return n
}

func (h *Handler) doToolsCall(ctx context.Context, k *call) (any, error) {
	if name, args, ok := scanToolsCall(k.msg.Params); ok && name != "" {
		mc := h.context(ctx, k, nil)
		return h.ops.CallTool(h.ops.WithContext(ctx, mc), mc, name, args)
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      *requestMeta    `json:"_meta"`
		Task      json.RawMessage `json:"task"` // 2025-11-25: ext_tasks25.go
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: tools/call needs "name"`}
	}
	if res, ok, err := h.callAsTask(ctx, k, p.Name, p.Arguments, p.Meta, p.Task); ok {
		return res, err
	}
	mc := h.context(ctx, k, p.Meta)
	return h.ops.CallTool(h.ops.WithContext(ctx, mc), mc, p.Name, p.Arguments)
}

func (h *Handler) doResourcesRead(ctx context.Context, k *call) (any, error) {
	var p struct {
		URI  string       `json:"uri"`
		Meta *requestMeta `json:"_meta"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: resources/read needs "uri"`}
	}
	mc := h.context(ctx, k, p.Meta)
	var hint *engine.Cache
	if k.c.rev20260728 {
		hint = &k.cache
	}
	return h.ops.ReadResource(h.ops.WithContext(ctx, mc), mc, p.URI, hint)
}

func (h *Handler) doSubscribe(ctx context.Context, k *call) (any, error) {
	return h.subscription(ctx, k, true)
}

func (h *Handler) doUnsubscribe(ctx context.Context, k *call) (any, error) {
	return h.subscription(ctx, k, false)
}

func (h *Handler) subscription(ctx context.Context, k *call, on bool) (any, error) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: "uri" is required`}
	}
	if err := checkSubscriptionURI(p.URI); err != nil {
		return nil, err
	}
	full := false
	if err := h.save(ctx, k.c, "the subscription", func(r *session.Record) {
		had := len(r.Subscriptions)
		r.Subscriptions = slices.DeleteFunc(r.Subscriptions, func(u string) bool { return u == p.URI })
		if on {
			if had == len(r.Subscriptions) && had >= maxSubscriptions {
				full = true // a new one, beyond the bound: the record stays as it was
				return
			}
			r.Subscriptions = append(r.Subscriptions, p.URI)
			slices.Sort(r.Subscriptions)
		}
	}); err != nil {
		return nil, err
	}
	if full {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf(
			"Invalid params: this session is subscribed to %d resources, the most one session may be; unsubscribe from one first", maxSubscriptions)}
	}
	if on {
		k.c.sess.Subscribe(p.URI)
	} else {
		k.c.sess.Unsubscribe(p.URI)
	}
	return struct{}{}, nil
}

func (h *Handler) doPromptsGet(ctx context.Context, k *call) (any, error) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
		Meta      *requestMeta      `json:"_meta"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: `Invalid params: prompts/get needs "name"`}
	}
	mc := h.context(ctx, k, p.Meta)
	return h.ops.GetPrompt(h.ops.WithContext(ctx, mc), mc, p.Name, p.Arguments)
}

func (h *Handler) doComplete(ctx context.Context, k *call) (any, error) {
	var p struct {
		Ref      mcp.CompletionRef `json:"ref"`
		Argument struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"argument"`
		Context struct {
			Arguments map[string]string `json:"arguments"`
		} `json:"context"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	mc := h.context(ctx, k, nil)
	res, err := h.ops.Complete(h.ops.WithContext(ctx, mc), mc, p.Ref, p.Argument.Name, p.Argument.Value, p.Context.Arguments)
	if err != nil {
		return nil, err
	}
	return struct {
		Completion *mcp.CompletionResult `json:"completion"`
	}{res}, nil
}

func (h *Handler) doSetLevel(ctx context.Context, k *call) (any, error) {
	var p struct {
		Level mcp.LogLevel `json:"level"`
	}
	if err := decodeParams(k.msg.Params, &p); err != nil {
		return nil, err
	}
	if !p.Level.Valid() {
		return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("Invalid params: %s is not a log level (want debug, info, notice, warning, error, critical, alert or emergency)", strictjson.Quote(string(p.Level)))}
	}
	if err := h.save(ctx, k.c, "the log level", func(r *session.Record) { r.LogLevel = p.Level }); err != nil {
		return nil, err
	}
	k.c.sess.SetLogLevel(p.Level)
	return struct{}{}, nil
}

// Bounds of resource subscriptions: the URIs one session (or one
// subscriptions/listen stream) subscribes to are kept for its life, in
// memory and in the session store, so a client could otherwise make the
// server hold any number of them, of any length.
const (
	maxSubscriptions   = 1024
	maxSubscriptionURI = 8 << 10
)

// checkSubscriptionURI refuses a URI longer than maxSubscriptionURI.
func checkSubscriptionURI(uri string) error {
	if len(uri) > maxSubscriptionURI {
		return &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf(
			"Invalid params: the resource URI is %d bytes long; a subscription's URI may be %d at most", len(uri), maxSubscriptionURI)}
	}
	return nil
}
