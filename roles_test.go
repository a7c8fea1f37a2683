package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
)

// roleAuth is auth data with roles and a subject.
type roleAuth struct {
	sub   string
	roles []string
}

func (a roleAuth) Subject() string            { return a.sub }
func (a roleAuth) HasRole(role string) bool   { return slices.Contains(a.roles, role) }
func (a roleAuth) HasScope(scope string) bool { return false }

// TestRestrictTagToRole: a tool tagged admin is listed and callable only
// for a caller with the admin role, through the server's own
// authentication over HTTP; untagged tools are left alone.
func TestRestrictTagToRole(t *testing.T) {
	t.Parallel()
	users := map[string]roleAuth{"tok-admin": {"ada", []string{"admin"}}, "tok-user": {"bob", []string{"viewer"}}}
	srv := mcp.NewServer(mcp.Options{Name: "ops", Version: "1.0.0", Logger: quietLogger(),
		Authenticate: func(r *http.Request) (any, error) {
			if u, ok := users[r.Header.Get("Authorization")]; ok {
				return u, nil
			}
			return nil, mcp.ErrUnauthorized
		}})
	for _, tool := range []mcp.Tool{{Name: "status"}, {Name: "restart", Tags: []string{"admin"}}} {
		mcp.AddTool(srv, tool, func(context.Context, *mcp.Context, struct{}) (string, error) { return tool.Name, nil })
	}
	policy := mcp.Restrict(mcp.Match{Tags: []string{"admin"}}, access.Roles("admin"))
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	withPolicy := func(r *http.Request) *http.Request {
		return r.WithContext(access.WithPolicy(r.Context(), policy))
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, withPolicy(r)) }))
	t.Cleanup(hs.Close)
	for _, tc := range []struct {
		token string
		tools []string
		call  bool
	}{
		{"tok-admin", []string{"status", "restart"}, true},
		{"tok-user", []string{"status"}, false},
	} {
		t.Run(tc.token, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			c, err := client.Connect(ctx, client.HTTP(hs.URL+"/mcp", &client.HTTPOptions{Header: http.Header{"Authorization": {tc.token}}}),
				&client.Options{Logger: quietLogger()})
			require.NoError(t, err)
			defer c.Close()
			tools, err := c.ListTools(ctx)
			require.NoError(t, err)
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			assert.Equal(t, tc.tools, names)
			res, err := c.CallTool(ctx, "restart", nil, nil)
			if tc.call {
				require.NoError(t, err)
				assert.Equal(t, "restart", res.Text())
			} else {
				assert.Error(t, err, "a hidden tool reads as unknown")
			}
		})
	}
}

func TestRestrictPanicsOnMisuse(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, "mcp: Restrict needs a non-nil access.Check", func() { mcp.Restrict(mcp.Match{}, nil) })
	assert.Panics(t, func() { mcp.Restrict(mcp.Match{Kind: "tol"}, access.Authenticated) })
}
