package mcphttp

import (
	"net/http"

	"github.com/justinas/alice"
)

// constructors converts the plain middleware of the public options to
// alice's type, which composes the chains inside the package.
func constructors(mw []func(http.Handler) http.Handler) []alice.Constructor {
	out := make([]alice.Constructor, len(mw))
	for i, m := range mw {
		out[i] = m
	}
	return out
}
