package openapi_test

import (
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/internal/blockfrost"
	"github.com/mcpchain/mcp/openapi/internal/petstore"
)

// TestGeneratedSchemasMatchRunTime: the input and output schemas of the
// generated tools (schemas inferred from the generated Go types) are those
// of the same operations at run time, but for the differences
// docs/openapi.md lists ("Generated and run-time schemas"), which
// sameSchema takes out of both sides one by one, for the Petstore and
// Blockfrost's 129 operations. A difference that is not listed fails.
func TestGeneratedSchemasMatchRunTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec     string
		lenient  bool
		register func(*mcp.Server)
	}{
		{"petstore-expanded.yaml", false, func(s *mcp.Server) { petstore.Register(s, nil, "http://127.0.0.1:1") }},
		{"blockfrost.yaml", true, func(s *mcp.Server) { blockfrost.Register(s, nil, "http://127.0.0.1:1") }},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			t.Parallel()
			gen := mcp.NewServer(mcp.Options{Name: "g", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
			tc.register(gen)
			run := mcp.NewServer(mcp.Options{Name: "r", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, openapi.Register(run, readSpec(t, tc.spec), openapi.Options{Lenient: tc.lenient, BaseURL: "http://127.0.0.1:1"}))
			runTools := map[string]mcp.Tool{}
			for _, tl := range run.ListTools(t.Context(), nil) {
				runTools[tl.Name] = tl
			}
			genTools := gen.ListTools(t.Context(), nil)
			require.Len(t, genTools, len(runTools))
			for _, g := range genTools {
				r, ok := runTools[g.Name]
				require.True(t, ok, g.Name)
				sameSchema(t, g.Name+" input", g.InputSchema, r.InputSchema)
				sameSchema(t, g.Name+" output", g.OutputSchema, r.OutputSchema)
			}
		})
	}
}

// sameSchema requires that the generated schema gen and the run-time
// schema run are equal once the listed differences are taken out.
func sameSchema(t *testing.T, what string, gen, run any) {
	t.Helper()
	g, r := jsonMap(t, gen), jsonMap(t, run)
	unlisted(g)
	unlisted(r)
	gb, _ := json.Marshal(g)
	rb, _ := json.Marshal(r)
	require.JSONEq(t, string(rb), string(gb), what)
}

func jsonMap(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// unlisted takes out of the schema s, at every depth, what
// docs/openapi.md lists as differing between generated and run-time
// schemas.
func unlisted(s map[string]any) {
	if s == nil {
		return
	}
	// 1. A generated struct is closed (additionalProperties false) and a
	// generated map[string]any open (true); at run time the document's
	// additionalProperties, absent in these documents, stands.
	if _, ok := s["additionalProperties"].(bool); ok {
		delete(s, "additionalProperties")
	}
	// 2. null: at run time a nullable property admits null (and a
	// required one stays required); the generated field is an optional
	// pointer, whose schema has no null.
	props, _ := s["properties"].(map[string]any)
	if req, ok := s["required"].([]any); ok {
		var keep []string
		for _, name := range req {
			n, _ := name.(string)
			if p, _ := props[n].(map[string]any); !hasNull(p) {
				keep = append(keep, n)
			}
		}
		// 3. required is in the document's order at run time, sorted
		// in the generated schema.
		slices.Sort(keep)
		s["required"] = keep
		if len(keep) == 0 {
			delete(s, "required")
		}
	}
	if ts, ok := s["type"].([]any); ok {
		ts = slices.DeleteFunc(ts, func(t any) bool { return t == "null" })
		if len(ts) == 1 {
			s["type"] = ts[0]
		} else {
			s["type"] = ts
		}
	}
	// 4. A description is one line in a struct tag.
	if d, ok := s["description"].(string); ok {
		s["description"] = strings.Join(strings.Fields(d), " ")
	}
	// 5. deprecated has no struct tag.
	delete(s, "deprecated")
	// 6. anyOf, oneOf and allOf (one not merged) are any in Go: only
	// the description stays.
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if _, ok := s[k]; ok {
			for k := range s {
				if k != "description" {
					delete(s, k)
				}
			}
		}
	}
	for _, p := range props {
		m, _ := p.(map[string]any)
		unlisted(m)
	}
	switch it := s["items"].(type) {
	case map[string]any:
		// 7. The items of a list are a Go type: the tags of the field
		// describe the field and its items' values, not the items'
		// own description, nor the bounds of a list in a list.
		delete(it, "description")
		if _, ok := it["items"]; ok {
			delete(it, "minItems")
			delete(it, "maxItems")
		}
		unlisted(it)
		if inner, ok := it["items"].(map[string]any); ok && len(inner) == 0 {
			it["items"] = true // {} and true both admit anything
		}
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		unlisted(ap)
	}
}

func hasNull(p map[string]any) bool {
	ts, _ := p["type"].([]any)
	return slices.Contains(ts, any("null"))
}

// TestNullForAnOptionalArgument: a client that sends null for an optional
// argument (a query parameter, a body property) is not refused, at run
// time as generated: the argument is left out of the request.
func TestNullForAnOptionalArgument(t *testing.T) {
	t.Parallel()
	srv, mock := petstoreServer(t, openapi.Options{})
	gen := mcp.NewServer(mcp.Options{Name: "g", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	petstore.Register(gen, mock.Client(), mock.BaseURL())
	for name, s := range map[string]*mcp.Server{"run time": srv, "generated": gen} {
		c := mcptest.NewSession(t, s, nil)
		r := c.CallTool("findPets", map[string]any{"tags": nil, "limit": nil}, nil)
		require.False(t, r.IsError, "%s: %s", name, text(t, r))
		require.Empty(t, mock.Last().Query, name)
		r = c.CallTool("addPet", map[string]any{"name": "Rex", "tag": nil}, nil)
		require.False(t, r.IsError, "%s: %s", name, text(t, r))
		require.JSONEq(t, `{"name":"Rex"}`, string(mock.Last().Body), name)
		r = c.CallTool("addPet", map[string]any{"name": nil}, nil)
		require.True(t, r.IsError, name)
		require.Contains(t, text(t, r), `argument "name" is required and cannot be null`, name)
	}
}
