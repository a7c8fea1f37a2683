package target

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		dashAt int
		url    string
		cmd    []string
		rest   []string
		err    string
	}{
		{"url", []string{"http://h/mcp", "add", "a=1"}, -1, "http://h/mcp", nil, []string{"add", "a=1"}, ""},
		{"https", []string{"https://h/mcp"}, -1, "https://h/mcp", nil, []string{}, ""},
		{"quoted command", []string{"go run ./x", "echo"}, -1, "", []string{"go", "run", "./x"}, []string{"echo"}, ""},
		{"after dash", []string{"add", "a=1", "go", "run", "."}, 2, "", []string{"go", "run", "."}, []string{"add", "a=1"}, ""},
		{"only dash", []string{"srv", "-v"}, 0, "", []string{"srv", "-v"}, []string{}, ""},
		{"nothing after dash", []string{"add"}, 1, "", nil, nil, "nothing after --"},
		{"no target", nil, -1, "", nil, nil, "missing TARGET"},
		{"blank target", []string{"  "}, -1, "", nil, nil, "empty TARGET"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, rest, err := Split(tc.args, tc.dashAt)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.url, s.URL)
			require.Equal(t, tc.cmd, s.Command)
			require.Equal(t, tc.rest, rest)
		})
	}
}

func TestParseHeaders(t *testing.T) {
	h, err := ParseHeaders([]string{"Authorization: Bearer x", "X-A:1", "X-A: 2"})
	require.NoError(t, err)
	require.Equal(t, http.Header{"Authorization": {"Bearer x"}, "X-A": {"1", "2"}}, h)
	for _, bad := range []string{"novalue", ": v", "Two words: v"} {
		_, err := ParseHeaders([]string{bad})
		require.ErrorContains(t, err, "want \"Name: value\"", bad)
	}
}
