package mcp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// Interceptors stack: the one added first (by the outer middleware) runs
// first and wraps the others; the context one passes on reaches next.
func TestWithInterceptorOrder(t *testing.T) {
	var order []string
	type key struct{}
	tag := func(name string) mcp.Interceptor {
		return func(next mcp.CallHandler) mcp.CallHandler {
			return func(ctx context.Context, c *mcp.Call) (any, error) {
				order = append(order, name+" in")
				res, err := next(context.WithValue(ctx, key{}, name), c)
				order = append(order, name+" out")
				return res, err
			}
		}
	}
	assert.Nil(t, mcp.InterceptorFrom(t.Context()))
	ctx := mcp.WithInterceptor(mcp.WithInterceptor(t.Context(), tag("outer")), tag("inner"))
	ic := mcp.InterceptorFrom(ctx)
	require.NotNil(t, ic)
	res, err := ic(func(ctx context.Context, c *mcp.Call) (any, error) {
		order = append(order, "handler "+c.Method)
		return ctx.Value(key{}), nil
	})(ctx, &mcp.Call{Method: "tools/call"})
	require.NoError(t, err)
	assert.Equal(t, "inner", res, "the innermost interceptor's context reaches the handler")
	assert.Equal(t, []string{"outer in", "inner in", "handler tools/call", "inner out", "outer out"}, order)
}
