// Package tracemeta carries a request's W3C trace context onto what the
// server sends its client while serving it: the server-to-client requests
// (sampling, elicitation, roots), notifications (progress, log messages,
// streamed content) and the questions of a 2026-07-28 input-required
// round get params._meta.traceparent (and tracestate, baggage), the way
// the client sent them on the request (the OpenTelemetry conventions for
// MCP).
//
// Where the trace context comes from, nearest first: a [Source] in the
// context (middleware/telemetry installs one that gives its current span,
// so a child span when it made one), else the request's own _meta. The
// engine calls [Of] on every message it sends for a request; without a
// Source and without a traceparent in the request's _meta it costs one
// context lookup and nothing else.
package tracemeta

import (
	"bytes"
	"context"
	"encoding/json"
)

// Fields are the trace context members of _meta. Traceparent empty means
// none.
type Fields struct {
	Traceparent string
	Tracestate  string
	Baggage     string
}

// Source gives the trace context of messages sent on behalf of ctx.
type Source func(ctx context.Context) Fields

type sourceKey struct{}

// With returns a copy of ctx whose messages to the client carry the trace
// context src gives.
func With(ctx context.Context, src Source) context.Context {
	return context.WithValue(ctx, sourceKey{}, src)
}

// The bounds of what is passed on: a traceparent has 55 characters in
// version 00 (later versions may append); tracestate has at most 32
// members, which W3C advises to keep within 512 characters; baggage is
// bounded at 8192 bytes by its specification.
const (
	maxTraceparent = 512
	maxTracestate  = 512
	maxBaggage     = 8192
)

// Of returns the trace context for a message sent on behalf of ctx, for a
// request whose params._meta is meta (nil when it had none): the Source of
// ctx when it gives one, else meta's traceparent, tracestate and baggage.
// A traceparent that does not have the W3C shape is none.
func Of(ctx context.Context, meta map[string]json.RawMessage) Fields {
	if src, _ := ctx.Value(sourceKey{}).(Source); src != nil {
		if f := src(ctx); valid(f.Traceparent) {
			return f
		}
	}
	if meta == nil {
		return Fields{}
	}
	raw, ok := meta["traceparent"]
	if !ok {
		return Fields{}
	}
	var f Fields
	if json.Unmarshal(raw, &f.Traceparent) != nil || !valid(f.Traceparent) {
		return Fields{}
	}
	if raw, ok := meta["tracestate"]; ok && json.Unmarshal(raw, &f.Tracestate) == nil && len(f.Tracestate) > maxTracestate {
		f.Tracestate = ""
	}
	if raw, ok := meta["baggage"]; ok && json.Unmarshal(raw, &f.Baggage) == nil && len(f.Baggage) > maxBaggage {
		f.Baggage = ""
	}
	return f
}

// valid reports whether tp has the W3C traceparent shape: a version, a
// trace ID, a parent ID and flags, lower-case hex joined by dashes (a
// later version may append "-" and more).
func valid(tp string) bool {
	if len(tp) < 55 || len(tp) > maxTraceparent || (len(tp) > 55 && tp[55] != '-') {
		return false
	}
	for i := range 55 {
		switch i {
		case 2, 35, 52:
			if tp[i] != '-' {
				return false
			}
		default:
			if c := tp[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return tp[:2] != "ff"
}

// Inject returns params, a JSON object, with f's members in its _meta
// (made when absent). A member _meta already has is kept: a handler that
// set its own trace context wins. params that are not an object, and an
// f without a traceparent, are returned as they are. params may be
// reused.
func Inject(params []byte, f Fields) []byte {
	if f.Traceparent == "" || len(params) < 2 || params[0] != '{' {
		return params
	}
	if bytes.Contains(params, []byte(`"_meta"`)) {
		return merge(params, f)
	}
	out := make([]byte, 0, len(params)+len(f.Traceparent)+len(f.Tracestate)+len(f.Baggage)+64)
	out = append(out, `{"_meta":`...)
	out = appendFields(out, nil, f)
	if rest := bytes.TrimLeft(params[1:], " \t\r\n"); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, params[1:]...)
}

// merge adds f to the _meta of params, which may have one.
func merge(params []byte, f Fields) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return params
	}
	var meta map[string]json.RawMessage
	if raw, ok := obj["_meta"]; ok {
		if json.Unmarshal(raw, &meta) != nil {
			return params // a _meta that is not an object (or null): leave it
		}
	}
	obj["_meta"] = appendFields(nil, meta, f)
	b, err := json.Marshal(obj)
	if err != nil {
		return params
	}
	return b
}

// appendFields appends the _meta object: the members of meta, and those
// of f that meta does not have.
func appendFields(b []byte, meta map[string]json.RawMessage, f Fields) []byte {
	if meta == nil {
		meta = make(map[string]json.RawMessage, 3)
	}
	add := func(k, v string) {
		if _, ok := meta[k]; !ok && v != "" {
			s, _ := json.Marshal(v)
			meta[k] = s
		}
	}
	add("traceparent", f.Traceparent)
	add("tracestate", f.Tracestate)
	add("baggage", f.Baggage)
	enc, _ := json.Marshal(meta) // sorted keys, raw values kept
	return append(b, enc...)
}
