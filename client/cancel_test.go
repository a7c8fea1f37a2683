package client_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/client"
)

// TestCancelBeforeResponseHeaders: an HTTP server that sends no response
// headers until a call's result (the Go SDK's does so) still gets
// notifications/cancelled for a call whose context ends first, though the
// POST itself fails with the context.
func TestCancelBeforeResponseHeaders(t *testing.T) {
	cancelled := make(chan json.RawMessage, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		require.NoError(t, json.Unmarshal(b, &m))
		switch m.Method {
		case "initialize":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}}`))
		case "tools/call":
			<-r.Context().Done() // no headers until a result that never comes
		case "notifications/cancelled":
			cancelled <- m.Params
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.HTTP(srv.URL, nil), nil)
	require.NoError(t, err)
	defer c.Close()

	cctx, ccancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer ccancel()
	_, err = c.CallTool(cctx, "slow", nil, nil)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	select {
	case p := <-cancelled:
		var params struct {
			RequestID int64 `json:"requestId"`
		}
		require.NoError(t, json.Unmarshal(p, &params))
		assert.Positive(t, params.RequestID)
	case <-ctx.Done():
		t.Fatal("no notifications/cancelled")
	}
}
