package ratelimit_test

import (
	"context"
	"strconv"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type addArgs struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type echoArgs struct {
	Text string `json:"text"`
}

// testServer is a fresh server with the two tools the tests call, add and
// echo, as examples/everything has them (that example is a module of its
// own, which this package's tests do not import).
func testServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "ratelimit", Version: "1.0.0"})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "Add two numbers"},
		func(ctx context.Context, c *mcp.Context, in addArgs) (string, error) {
			return strconv.FormatFloat(in.A+in.B, 'f', -1, 64), nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "echo", Description: "Echo the text back"},
		func(ctx context.Context, c *mcp.Context, in echoArgs) (string, error) {
			return in.Text, nil
		})
	return srv
}
