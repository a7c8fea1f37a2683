package client

import (
	"encoding/json"
	"testing"
)

// FuzzTaskDecode decodes what a server sends about a task (the answer to
// a task-augmented tools/call, tasks/get of either flavour, a status
// notification): it must never panic, and what it accepts must be usable
// (an ID and a status, no negative duration, every question a method).
func FuzzTaskDecode(f *testing.F) {
	for _, s := range []string{
		`{"task":{"taskId":"t1","status":"working","createdAt":"2025-11-25T10:30:00.000Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":5000}}`,
		`{"resultType":"task","taskId":"t2","status":"working","createdAt":"2026-07-28T00:00:00Z","ttlMs":null,"pollIntervalMs":500}`,
		`{"taskId":"t3","status":"input_required","inputRequests":{"elicitation-1":{"method":"elicitation/create","params":{"message":"?"}}}}`,
		`{"taskId":"t4","status":"completed","result":{"content":[{"type":"text","text":"ok"}]}}`,
		`{"taskId":"t5","status":"failed","error":{"code":-32000,"message":"no"},"statusMessage":"no"}`,
		`{"taskId":"t6","status":"working","ttl":-1,"pollInterval":1e400}`,
		`{"taskId":"t7","status":"working","ttl":1e300,"pollInterval":"5"}`,
		`{"taskId":7,"status":null}`, `{"task":null,"content":[]}`, `{"inputRequests":{"a":7}}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(info TaskInfo) {
			if info.ID == "" || info.Status == "" {
				t.Fatalf("task %+v accepted without an ID or a status", info)
			}
			if info.TTL < 0 || info.PollInterval < 0 {
				t.Fatalf("task %+v accepted with a negative duration", info)
			}
		}
		if info, isTask, err := decodeCreated(data); err == nil && isTask {
			check(info)
		}
		if info, err := decodeTask(data); err == nil {
			check(info)
		}
		if d, err := decodeDetail(data); err == nil {
			check(d.info)
			for key, q := range d.inputRequests {
				if q.Method == "" {
					t.Fatalf("question %q accepted without a method", key)
				}
			}
			if len(d.result) > 0 && !json.Valid(d.result) {
				t.Fatalf("result %q kept though not JSON", d.result)
			}
		}
	})
}
