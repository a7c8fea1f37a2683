package wiretest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp/internal/wiretest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestParseMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, contentType, body string
		wantMethods             []string
		wantIDs                 []string
	}{
		{"empty body", "application/json", "  \n", nil, nil},
		{"one object", "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`, []string{""}, []string{"1"}},
		{"an array", "application/json", `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":"b","error":{"code":-32601,"message":"x"}}]`,
			[]string{"", ""}, []string{"1", `"b"`}},
		{"an event stream", "text/event-stream", "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n", []string{"notifications/progress", ""}, []string{"", "7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var methods, ids []string
			for _, m := range wiretest.ParseMessages(t, tt.contentType, []byte(tt.body)) {
				methods = append(methods, m.Method)
				ids = append(ids, string(m.ID))
				assert.Equal(t, m.Method == "", m.IsResponse())
			}
			assert.Equal(t, tt.wantMethods, methods)
			assert.Equal(t, tt.wantIDs, ids)
		})
	}
}

func TestNewRequest(t *testing.T) {
	t.Parallel()
	r := wiretest.NewRequest(context.Background(), http.MethodPost, "http://127.0.0.1/mcp", `{}`,
		"Mcp-Session-Id", "s1", "Accept", "", "Host", "evil.example", "X-Tenant", "acme")
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Empty(t, r.Header.Values("Accept"), "an empty value deletes the header")
	assert.Equal(t, "s1", r.Header.Get("Mcp-Session-Id"))
	assert.Equal(t, "acme", r.Header.Get("X-Tenant"))
	assert.Equal(t, "evil.example", r.Host)

	g := wiretest.NewRequest(context.Background(), http.MethodGet, "http://127.0.0.1/mcp", "")
	assert.Equal(t, "application/json, text/event-stream", g.Header.Get("Accept"))
	assert.Empty(t, g.Header.Get("Content-Type"), "no body, no Content-Type")
}
