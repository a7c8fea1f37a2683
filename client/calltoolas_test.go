package client_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

type forecast struct {
	City    string  `json:"city"`
	TempC   float64 `json:"tempC"`
	Summary string  `json:"summary"`
}

// TestCallToolAs: CallToolAs decodes structured output, or the text as
// JSON without it; a tool's own failure wraps ErrToolFailed; a protocol
// error is the server's *mcp.Error.
func TestCallToolAs(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "typed", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "forecast"}, func(_ context.Context, _ *mcp.Context, in struct {
		City string `json:"city"`
	}) (forecast, error) {
		if in.City == "" {
			return forecast{}, &mcp.UserError{Message: "name a city"}
		}
		return forecast{City: in.City, TempC: 21.5, Summary: "sunny"}, nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "text"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return "just text", nil
	})
	mcp.AddTool(srv, mcp.Tool{Name: "quoted"}, func(context.Context, *mcp.Context, struct{}) (string, error) {
		return `"just text"`, nil
	})
	ctx := context.Background()
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	e, err := client.Connect(ctx, client.InProcess(h, nil), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = e.Close() }) // after the parallel subtests

	t.Run("structured output decodes into Out", func(t *testing.T) {
		t.Parallel()
		got, err := client.CallToolAs[forecast](ctx, e, "forecast", map[string]string{"city": "Oslo"})
		require.NoError(t, err)
		assert.Equal(t, forecast{City: "Oslo", TempC: 21.5, Summary: "sunny"}, got)
	})
	t.Run("a failing tool is ErrToolFailed", func(t *testing.T) {
		t.Parallel()
		got, err := client.CallToolAs[forecast](ctx, e, "forecast", map[string]string{"city": ""})
		require.ErrorIs(t, err, client.ErrToolFailed)
		assert.Contains(t, err.Error(), "name a city")
		assert.Zero(t, got)
	})
	t.Run("no structured content: the text, as JSON", func(t *testing.T) {
		t.Parallel()
		_, err := client.CallToolAs[forecast](ctx, e, "text", nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "the result of text does not decode as client_test.forecast")
		got, err := client.CallToolAs[string](ctx, e, "quoted", nil)
		require.NoError(t, err)
		assert.Equal(t, "just text", got)
	})
	t.Run("a mismatched Out type", func(t *testing.T) {
		t.Parallel()
		_, err := client.CallToolAs[[]int](ctx, e, "forecast", map[string]string{"city": "Oslo"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "does not decode as []int")
	})
	t.Run("an unknown tool is an *mcp.Error", func(t *testing.T) {
		t.Parallel()
		_, err := client.CallToolAs[forecast](ctx, e, "nope", nil)
		var je *mcp.Error
		require.ErrorAs(t, err, &je)
		assert.EqualValues(t, mcp.CodeInvalidParams, je.Code)
	})
}
