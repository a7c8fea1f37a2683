package middleware_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/justinas/alice"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/middleware"
)

// listToolsHandler answers with the names of the tools the caller may see,
// as the engine would compute them for tools/list.
func listToolsHandler(srv *mcp.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var names []string
		for _, tl := range srv.ListTools(r.Context(), mcp.AuthFromContext(r.Context())) {
			names = append(names, tl.Name)
		}
		_ = json.NewEncoder(w).Encode(names)
	})
}

func newToolServer(t *testing.T, names ...string) *mcp.Server {
	t.Helper()
	logger, _ := newLogger()
	srv := mcp.NewServer(mcp.Options{Name: "test", Version: "1.0.0", Logger: logger})
	for _, n := range names {
		mcp.AddTool(srv, mcp.Tool{Name: n}, func(context.Context, *mcp.Context, struct{}) (string, error) { return n, nil })
	}
	return srv
}

func TestRestrictAccess(t *testing.T) {
	t.Parallel()
	adminOnly := func(_ context.Context, q access.Query) bool {
		return q.Kind != access.KindTool || !strings.HasPrefix(q.Name, "admin_") || q.Auth == "admin"
	}
	noDelete := func(_ context.Context, q access.Query) bool { return !strings.Contains(q.Name, "delete") }
	tests := []struct {
		name     string
		auth     any
		policies []access.Policy
		want     []string
	}{
		{name: "no policy lists everything", auth: "user",
			want: []string{"read", "admin_reset", "admin_delete"}},
		{name: "policy hides from a user", auth: "user", policies: []access.Policy{adminOnly},
			want: []string{"read"}},
		{name: "policy lets the admin see", auth: "admin", policies: []access.Policy{adminOnly},
			want: []string{"read", "admin_reset", "admin_delete"}},
		{name: "stacked policies must all agree", auth: "admin", policies: []access.Policy{adminOnly, noDelete},
			want: []string{"read", "admin_reset"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newToolServer(t, "read", "admin_reset", "admin_delete")
			chain := alice.New(middleware.FixedAuth(tt.auth))
			for _, p := range tt.policies {
				chain = chain.Append(middleware.RestrictAccess(p))
			}
			rec := httptest.NewRecorder()
			chain.Then(listToolsHandler(srv)).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/mcp", nil))
			require.Equal(t, http.StatusOK, rec.Code)
			body, err := io.ReadAll(rec.Body)
			require.NoError(t, err)
			var got []string
			require.NoError(t, json.Unmarshal(body, &got))
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRestrictAccessPolicySeesAuth(t *testing.T) {
	t.Parallel()
	srv := newToolServer(t, "echo")
	var seen []string
	policy := func(_ context.Context, q access.Query) bool {
		seen = append(seen, q.Auth.(user).Name+" "+string(q.Kind)+" "+q.Name)
		return true
	}
	h := alice.New(middleware.CheckCredentials(bearerAuth, &middleware.AuthOptions{Logger: slog.New(slog.DiscardHandler)}), middleware.RestrictAccess(policy)).Then(listToolsHandler(srv))
	req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	req.Header.Set("Authorization", "Bearer good")
	h.ServeHTTP(httptest.NewRecorder(), req)
	assert.Equal(t, []string{"ada tool echo"}, seen)
}

func TestRestrictAccessNilPanics(t *testing.T) {
	t.Parallel()
	assert.PanicsWithValue(t, "middleware: RestrictAccess needs a non-nil access.Policy", func() { middleware.RestrictAccess(nil) })
}
