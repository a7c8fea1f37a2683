package access_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/access"
)

// scoped is auth data with scopes only.
type scoped []string

func (s scoped) HasScope(x string) bool { return slices.Contains(s, x) }

// roleAuth is auth data with roles (and no scopes).
type roleAuth []string

func (a roleAuth) HasRole(role string) bool { return slices.Contains(a, role) }
func (a roleAuth) HasScope(string) bool     { return false }

func TestReadyMadeChecks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	never := func(context.Context, any) bool { return false }
	tests := []struct {
		name  string
		check access.Check
		auth  any
		want  bool
	}{
		{"Authenticated anonymous", access.Authenticated, nil, false},
		{"Authenticated authenticated", access.Authenticated, "ann", true},
		{"Scopes all held", access.Scopes("read", "write"), scoped{"read", "write", "x"}, true},
		{"Scopes one missing", access.Scopes("read", "write"), scoped{"read"}, false},
		{"Scopes no scopes in auth", access.Scopes("read"), "ann", false},
		{"Scopes anonymous", access.Scopes("read"), nil, false},
		{"Scopes none asked: any ScopeChecker", access.Scopes(), scoped{}, true},
		{"All", access.All(access.Authenticated, access.Scopes("read")), scoped{"read"}, true},
		{"All one refuses", access.All(access.Authenticated, never), "ann", false},
		{"All of none admits everyone", access.All(), nil, true},
		{"Any", access.Any(never, access.Authenticated), "ann", true},
		{"Any none admits", access.Any(never), "ann", false},
		{"Any of none admits no one", access.Any(), "ann", false},
		{"All with a nil check admits no one", access.All(access.Authenticated, nil), "ann", false},
		{"Any with a nil check: the others decide", access.Any(nil, access.Authenticated), "ann", true},
		{"Any of only a nil check admits no one", access.Any(nil), "ann", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.check(ctx, tt.auth))
		})
	}
}

func TestRoles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := roleAuth{"admin", "ops"}
	for _, tc := range []struct {
		name  string
		check access.Check
		auth  any
		want  bool
	}{
		{"holds the role", access.Roles("admin"), admin, true},
		{"holds every role", access.Roles("admin", "ops"), admin, true},
		{"lacks one", access.Roles("admin", "billing"), admin, false},
		{"case matters", access.Roles("Admin"), admin, false},
		{"no roles at all", access.Roles("admin"), roleAuth{}, false},
		{"auth data without roles", access.Roles("admin"), "admin", false},
		{"anonymous", access.Roles("admin"), nil, false},
		{"no role asked: any RoleChecker", access.Roles(), roleAuth{}, true},
		{"no role asked: not a RoleChecker", access.Roles(), "x", false},
		{"any of two", access.Any(access.Roles("billing"), access.Roles("ops")), admin, true},
		{"role and scope", access.All(access.Roles("admin"), access.Scopes("x")), admin, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.check(ctx, tc.auth))
		})
	}
}

// TestWithPolicy: the policies added to a context are consulted together,
// each must admit the object, and a context without one has none.
func TestWithPolicy(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	assert.Nil(t, access.PolicyFrom(ctx))

	noPrompts := func(_ context.Context, q access.Query) bool { return q.Kind != access.KindPrompt }
	adminTags := func(_ context.Context, q access.Query) bool {
		return !slices.Contains(q.Tags, "admin") || q.Auth == "root"
	}
	ctx = access.WithPolicy(access.WithPolicy(ctx, noPrompts), adminTags)
	p := access.PolicyFrom(ctx)
	require.NotNil(t, p)
	for _, tc := range []struct {
		q    access.Query
		want bool
	}{
		{access.Query{Kind: access.KindTool, Name: "t"}, true},
		{access.Query{Kind: access.KindPrompt, Name: "p"}, false},
		{access.Query{Kind: access.KindTool, Name: "purge", Tags: []string{"admin"}}, false},
		{access.Query{Kind: access.KindTool, Name: "purge", Tags: []string{"admin"}, Auth: "root"}, true},
		{access.Query{Kind: access.KindPrompt, Tags: []string{"admin"}, Auth: "root"}, false},
	} {
		assert.Equal(t, tc.want, p(ctx, tc.q), "%+v", tc.q)
	}
}
