package header_test

import (
	"net/http"
	"net/textproto"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp/internal/header"
)

// TestNamesCanonical: Get finds what net/http stores only when the name
// is canonical.
func TestNamesCanonical(t *testing.T) {
	t.Parallel()
	for _, name := range []string{header.Accept, header.ContentType, header.Origin,
		header.SessionID, header.ProtocolVersion, header.LastEventID} {
		assert.Equal(t, textproto.CanonicalMIMEHeaderKey(name), name)
	}
}

// TestLikeHeaderGet: Get answers as http.Header's own method.
func TestLikeHeaderGet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		h    http.Header
		key  string
	}{
		{"absent", http.Header{"Accept": {"a"}}, header.ContentType},
		{"one value", http.Header{"Content-Type": {"application/json"}}, header.ContentType},
		{"several values", http.Header{"Mcp-Session-Id": {"a", "b"}}, header.SessionID},
		{"empty value", http.Header{"Origin": {""}}, header.Origin},
		{"empty list", http.Header{"Origin": {}}, header.Origin},
		{"nil header", nil, header.Accept},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.h.Get(tt.key), header.Get(tt.h, tt.key))
		})
	}
}
