package mcp

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestToolExecutionJSON: a listed tool's execution.taskSupport (2025-11-25)
// reads back into Tool.Task; Tool's own JSON form never writes it (tools/list
// adds it per revision).
func TestToolExecutionJSON(t *testing.T) {
	for _, tc := range []struct {
		execution string
		want      *TaskOptions
	}{
		{``, nil},
		{`,"execution":{}`, nil},
		{`,"execution":{"taskSupport":"forbidden"}`, nil},
		{`,"execution":{"taskSupport":"optional"}`, &TaskOptions{}},
		{`,"execution":{"taskSupport":"required"}`, &TaskOptions{Required: true}},
		{`,"execution":{"taskSupport":"sometimes"}`, nil},
	} {
		var tl Tool
		require.NoError(t, json.Unmarshal([]byte(`{"name":"x","inputSchema":{"type":"object"}`+tc.execution+`}`), &tl), tc.execution)
		assert.Equal(t, tc.want, tl.Task, tc.execution)
	}
	b, err := json.Marshal(Tool{Name: "x", Task: &TaskOptions{Required: true}})
	require.NoError(t, err)
	assert.NotContains(t, string(b), "execution")
}

// TestListToolsJSONTasks: tools/list at 2025-11-25 adds execution.taskSupport
// to the task tools only, as valid JSON.
func TestListToolsJSONTasks(t *testing.T) {
	s := NewServer(Options{Name: "t", Version: "1.0.0"})
	AddTool(s, Tool{Name: "plain"}, func(_ context.Context, _ *Context, _ struct{}) (string, error) { return "", nil })
	AddTool(s, Tool{Name: "opt", Task: &TaskOptions{}}, func(_ context.Context, _ *Context, _ struct{}) (string, error) { return "", nil })
	AddTool(s, Tool{Name: "req", Task: &TaskOptions{Required: true}}, func(_ context.Context, _ *Context, _ struct{}) (string, error) { return "", nil })
	got := map[string]string{}
	for _, raw := range s.listToolsJSONTasks(context.Background(), nil, "", nil) {
		var w struct {
			Name      string          `json:"name"`
			Execution json.RawMessage `json:"execution"`
		}
		require.NoError(t, json.Unmarshal(raw, &w), "%s", raw)
		got[w.Name] = string(w.Execution)
	}
	assert.Equal(t, map[string]string{"plain": "", "opt": `{"taskSupport":"optional"}`, "req": `{"taskSupport":"required"}`}, got)
}
