package openapi_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/openapi/openapitest"
)

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func newMock(t testing.TB, doc *openapi3.T) *openapitest.Server {
	m := openapitest.NewServer(doc)
	t.Cleanup(m.Close)
	return m
}

// toolNameOf finds the tool of an operation by the fallback name rule.
func toolNameOf(t *testing.T, tools []mcp.Tool, method, path string) string {
	t.Helper()
	want := strings.ToLower(method) + "_" + strings.Trim(regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(path, "_"), "_")
	want = strings.TrimSuffix(want, "_")
	for _, tl := range tools {
		if tl.Name == want {
			return want
		}
	}
	t.Fatalf("no tool %q for %s %s", want, method, path)
	return ""
}
