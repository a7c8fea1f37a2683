package mcphttp

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
)

// FuzzTaskParam: params.task of any shape decodes to a ttl or a -32602,
// never a panic; a ttl is never negative.
func FuzzTaskParam(f *testing.F) {
	for _, s := range []string{`{}`, `{"ttl":60000}`, `{"ttl":null}`, `{"ttl":-5}`, `{"ttl":1e400}`, `{"ttl":1.5}`,
		`{"ttl":"1m"}`, `"soon"`, `[]`, `null`, `{"ttl":9223372036854775807}`, `{"TTL":10}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := decodeTaskParam(raw)
		if err != nil {
			var je *mcp.Error
			if !errors.As(err, &je) || je.Code != mcp.CodeInvalidParams {
				t.Fatalf("error %v is not -32602", err)
			}
			return
		}
		if p.ttl < 0 {
			t.Fatalf("negative ttl %v from %q", p.ttl, raw)
		}
		if json.Valid(raw) && p.ttl > 0 && p.ttl < time.Millisecond {
			t.Fatalf("ttl %v below a millisecond from %q", p.ttl, raw)
		}
	})
}

// FuzzTaskID: the params of tasks/get, tasks/result and tasks/cancel give
// a non-empty task ID or a -32602, never a panic.
func FuzzTaskID(f *testing.F) {
	for _, s := range []string{`{"taskId":"abc"}`, `{"taskId":""}`, `{"taskId":7}`, `{}`, `[]`, `null`,
		`{"taskId":"\u0000"}`, `{"taskId":"a","taskId":"b"}`, `{"taskid":"x"}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		id, err := decodeTaskID("tasks/get", raw)
		if err != nil {
			var je *mcp.Error
			if !errors.As(err, &je) || je.Code != mcp.CodeInvalidParams {
				t.Fatalf("error %v is not -32602", err)
			}
			return
		}
		if id == "" {
			t.Fatalf("empty task ID from %q", raw)
		}
	})
}
