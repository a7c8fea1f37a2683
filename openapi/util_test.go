package openapi_test

import (
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

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
