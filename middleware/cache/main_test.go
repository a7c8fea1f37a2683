package cache_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var quiet = slog.New(slog.DiscardHandler)

// user is auth data with a subject.
type user string

func (u user) Subject() string { return string(u) }

// opaque is auth data without a subject.
type opaque struct{ token string }

var readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true}

// testServer's tools answer with who called and how many times the tool
// ran, so that a test sees whether an answer came from the cache.
func testServer(runs *atomic.Int64) *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "cached", Version: "1.0.0", Logger: quiet})
	type args struct {
		Q string `json:"q,omitempty"`
	}
	answer := func(_ context.Context, c *mcp.Context, in args) (string, error) {
		n := runs.Add(1)
		who := "anonymous"
		switch a := c.Session.(type) {
		case user:
			who = string(a)
		case opaque:
			who = "opaque " + a.token
		}
		return fmt.Sprintf("%s asked %q, run %d", who, in.Q, n), nil
	}
	mcp.AddTool(srv, mcp.Tool{Name: "whoami", Annotations: readOnly}, answer)
	mcp.AddTool(srv, mcp.Tool{Name: "write"}, answer)
	mcp.AddTool(srv, mcp.Tool{Name: "idempotent", Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, answer)
	mcp.AddTool(srv, mcp.Tool{Name: "optin"}, answer)
	var failed atomic.Bool
	mcp.AddTool(srv, mcp.Tool{Name: "flaky", Annotations: readOnly}, func(ctx context.Context, c *mcp.Context, in args) (string, error) {
		if !failed.Swap(true) {
			runs.Add(1)
			return "", fmt.Errorf("not yet")
		}
		return answer(ctx, c, in)
	})
	mcp.AddTool(srv, mcp.Tool{Name: "versioned", Version: "1.0", Annotations: readOnly}, func(ctx context.Context, c *mcp.Context, in args) (string, error) {
		s, err := answer(ctx, c, in)
		return "v1 " + s, err
	})
	mcp.AddTool(srv, mcp.Tool{Name: "versioned", Version: "2.0", Annotations: readOnly}, func(ctx context.Context, c *mcp.Context, in args) (string, error) {
		s, err := answer(ctx, c, in)
		return "v2 " + s, err
	})
	return srv
}

// authAs puts auth in every request's context (nil: anonymous).
func authAs(auth any) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if auth != nil {
				r = r.WithContext(mcp.WithAuth(r.Context(), auth))
			}
			next.ServeHTTP(w, r)
		})
	}
}

func connect(t testing.TB, tr client.Transport) *client.Client {
	t.Helper()
	c, err := client.Connect(context.Background(), tr, &client.Options{Logger: quiet})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// call calls tool with q and returns its text (failing on an error).
func call(t testing.TB, c *client.Client, tool, q string, meta map[string]any) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), tool, map[string]string{"q": q}, &client.CallOptions{Meta: meta})
	require.NoError(t, err)
	return res.Text()
}
