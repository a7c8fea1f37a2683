package access_test

import (
	"context"
	"fmt"

	"github.com/mcpchain/mcp/access"
)

// staff is an application's auth data: what its Authenticate function
// returns for a signed-in member of staff.
type staff struct {
	roles, scopes []string
}

func (s staff) HasRole(role string) bool {
	for _, r := range s.roles {
		if r == role {
			return true
		}
	}
	return false
}

func (s staff) HasScope(scope string) bool {
	for _, x := range s.scopes {
		if x == scope {
			return true
		}
	}
	return false
}

// A check for a tool that only an administrator holding the cache:write
// scope, or an operator, may see and call; it is what a tool's CanAccess
// field takes.
func Example() {
	canPurge := access.Any(
		access.All(access.Roles("admin"), access.Scopes("cache:write")),
		access.Roles("operator"),
	)
	ctx := context.Background()
	fmt.Println(canPurge(ctx, staff{roles: []string{"admin"}, scopes: []string{"cache:write"}}))
	fmt.Println(canPurge(ctx, staff{roles: []string{"admin"}}))
	fmt.Println(canPurge(ctx, staff{roles: []string{"operator"}}))
	fmt.Println(canPurge(ctx, nil))
	// Output:
	// true
	// false
	// true
	// false
}

// Authenticated admits every caller with auth data and no anonymous one.
func ExampleAuthenticated() {
	ctx := context.Background()
	fmt.Println(access.Authenticated(ctx, staff{}))
	fmt.Println(access.Authenticated(ctx, nil))
	// Output:
	// true
	// false
}
