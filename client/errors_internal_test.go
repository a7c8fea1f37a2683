package client

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestResourceNotFoundAnswers: the answers servers give for a resource
// that does not exist are told from other errors of resources/read.
func TestResourceNotFoundAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		w    wireError
		want bool
	}{
		{"SEP-2164", wireError{code: -32602, message: `Resource not found: "a://b"`}, true},
		{"revision 2025-11-25's -32002", wireError{code: -32002, message: "Resource not found"}, true},
		{"TypeScript SDK wording", wireError{code: -32602, message: "Resource a://b not found"}, true},
		{"a missing template argument", wireError{code: -32602, message: `Invalid params: resource template "t" requires argument "id"`}, false},
		{"a failing loader", wireError{code: -32603, message: "Resource not found in cache, backend down"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, resourceNotFound(&tt.w))
		})
	}
}
