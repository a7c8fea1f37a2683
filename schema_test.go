package mcp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

type address struct {
	Street string `json:"street" jsonschema:"the street and number"`
	Zip    string `json:"zip,omitempty"`
}

type schemaInput struct {
	Name     string    `json:"name" jsonschema:"who to greet"`
	Mode     string    `json:"mode,omitempty" enum:"formal,casual" default:"casual"`
	Count    int       `json:"count,omitempty" default:"3"`
	Ratio    float64   `json:"ratio,omitempty" default:"0.5"`
	Loud     bool      `json:"loud,omitempty" default:"true"`
	Level    int       `json:"level,omitempty" enum:"1,2,3"`
	Tags     []string  `json:"tags,omitempty"`
	Home     address   `json:"home"`
	Work     *address  `json:"work,omitempty"`
	Previous []address `json:"previous,omitempty"`
	Hidden   string    `json:"-"`
	internal string    //lint:ignore U1000 an unexported field is not in the schema
	NoTag    string
}

// inputSchemaOf registers a tool with input type In and returns its input
// schema as generic JSON, the way tools/list sends it.
func inputSchemaOf[In any](t *testing.T) map[string]any {
	t.Helper()
	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "t"}, func(context.Context, *mcp.Context, In) (string, error) { return "", nil })
	tools := s.ListTools(context.Background(), nil)
	require.Len(t, tools, 1)
	return toJSONMap(t, tools[0])["inputSchema"].(map[string]any)
}

func TestSchemaInference(t *testing.T) {
	t.Parallel()
	sch := inputSchemaOf[schemaInput](t)
	props := sch["properties"].(map[string]any)
	prop := func(name string) map[string]any {
		p, ok := props[name].(map[string]any)
		require.True(t, ok, "property %q missing; have %v", name, props)
		return p
	}

	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"object", func(t *testing.T) { assert.Equal(t, "object", sch["type"]) }},
		{"json names", func(t *testing.T) {
			for _, n := range []string{"name", "mode", "count", "home", "work", "NoTag"} {
				assert.Contains(t, props, n)
			}
			assert.NotContains(t, props, "Name", "the json tag renames the field")
			assert.NotContains(t, props, "Hidden", `json:"-" fields are not arguments`)
			assert.NotContains(t, props, "internal", "unexported fields are not arguments")
		}},
		{"description tag", func(t *testing.T) {
			assert.Equal(t, "who to greet", prop("name")["description"])
			assert.Equal(t, "string", prop("name")["type"])
		}},
		{"enum tag", func(t *testing.T) {
			assert.Equal(t, []any{"formal", "casual"}, prop("mode")["enum"])
			assert.Equal(t, []any{float64(1), float64(2), float64(3)}, prop("level")["enum"], "enum values take the field's type")
		}},
		{"default tag", func(t *testing.T) {
			assert.Equal(t, "casual", prop("mode")["default"])
			assert.Equal(t, float64(3), prop("count")["default"])
			assert.Equal(t, 0.5, prop("ratio")["default"])
			assert.Equal(t, true, prop("loud")["default"])
		}},
		{"types", func(t *testing.T) {
			assert.Equal(t, "integer", prop("count")["type"])
			assert.Equal(t, "number", prop("ratio")["type"])
			assert.Equal(t, "boolean", prop("loud")["type"])
			assert.Equal(t, "array", prop("tags")["type"], "an optional slice is a plain array")
			assert.Equal(t, "string", prop("tags")["items"].(map[string]any)["type"])
		}},
		{"required vs omitempty", func(t *testing.T) {
			assert.ElementsMatch(t, []any{"name", "home", "NoTag"}, sch["required"])
		}},
		{"nested struct", func(t *testing.T) {
			home := prop("home")
			assert.Equal(t, "object", home["type"])
			hp := home["properties"].(map[string]any)
			assert.Equal(t, "the street and number", hp["street"].(map[string]any)["description"])
			assert.Equal(t, []any{"street"}, home["required"])
			items := prop("previous")["items"].(map[string]any)
			assert.Contains(t, items["properties"], "zip", "slice elements get the element's schema")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.check(t)
		})
	}
}

func TestSchemaInferenceNonStructInputs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		schema func(t *testing.T) map[string]any
	}{
		{"map", inputSchemaOf[map[string]any]},
		{"pointer to struct", inputSchemaOf[*address]},
		{"any", inputSchemaOf[any]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, "object", tt.schema(t)["type"], "an input schema is always an object")
		})
	}
}

func TestBadTagsPanic(t *testing.T) {
	t.Parallel()
	type badDefault struct {
		N int `json:"n,omitempty" default:"many"`
	}
	type badEnum struct {
		B bool `json:"b,omitempty" enum:"yes,no"`
	}
	tests := []struct {
		name string
		add  func(s *mcp.Server)
		want string
	}{
		{"default not an int", func(s *mcp.Server) {
			mcp.AddTool(s, mcp.Tool{Name: "d"}, func(context.Context, *mcp.Context, badDefault) (string, error) { return "", nil })
		}, "default"},
		{"enum not a bool", func(s *mcp.Server) {
			mcp.AddTool(s, mcp.Tool{Name: "e"}, func(context.Context, *mcp.Context, badEnum) (string, error) { return "", nil })
		}, "enum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msg := panicMessage(func() { tt.add(newServer(t)) })
			require.NotEmpty(t, msg)
			assert.Contains(t, msg, tt.want)
		})
	}
}

// TestRequiredMeansNotNull: a field without omitempty is required, and a
// required argument is present and not null, whatever its Go type (a slice
// or a pointer would otherwise be typed ["null", …]); an optional one has
// its plain type too (null for it is taken as absent: TestOptionalNullIsAbsent),
// at every depth; null stays where it is a value: a []*T's items.
func TestRequiredMeansNotNull(t *testing.T) {
	t.Parallel()
	type in struct {
		Values []float64         `json:"values"`
		Labels map[string]int    `json:"labels"`
		Limit  *int              `json:"limit"`
		Inner  struct{ L []int } `json:"inner"`
		Maybe  []string          `json:"maybe,omitempty"`
		Opts   map[string]string `json:"opts,omitempty"`
		Max    *int              `json:"max,omitempty"`
		Filter *struct{ A int }  `json:"filter,omitempty"`
		Ptrs   []*int            `json:"ptrs,omitempty"`
		Rows   []struct {
			Cells []string `json:"cells,omitempty"`
		} `json:"rows,omitempty"`
	}
	sch := inputSchemaOf[in](t)
	props := sch["properties"].(map[string]any)
	assert.Equal(t, "array", props["values"].(map[string]any)["type"])
	assert.Equal(t, "object", props["labels"].(map[string]any)["type"])
	assert.Equal(t, "integer", props["limit"].(map[string]any)["type"])
	inner := props["inner"].(map[string]any)["properties"].(map[string]any)
	assert.Equal(t, "array", inner["L"].(map[string]any)["type"], "nested required fields too")
	assert.Equal(t, "array", props["maybe"].(map[string]any)["type"], "an optional slice is optional by being left out")
	assert.Equal(t, "object", props["opts"].(map[string]any)["type"], "an optional map likewise")
	assert.Equal(t, "integer", props["max"].(map[string]any)["type"], "an optional pointer to a scalar likewise")
	assert.Equal(t, "object", props["filter"].(map[string]any)["type"], "an optional pointer to a struct likewise")
	ptrs := props["ptrs"].(map[string]any)
	assert.Equal(t, "array", ptrs["type"])
	assert.Equal(t, []any{"null", "integer"}, ptrs["items"].(map[string]any)["type"], "a nil item is a value")
	rows := props["rows"].(map[string]any)
	cells := rows["items"].(map[string]any)["properties"].(map[string]any)["cells"].(map[string]any)
	assert.Equal(t, "array", cells["type"], "nested optional slices too")

	s := newServer(t)
	mcp.AddTool(s, mcp.Tool{Name: "sum"}, func(_ context.Context, _ *mcp.Context, in struct {
		Values []float64 `json:"values"`
	}) (float64, error) {
		var n float64
		for _, v := range in.Values {
			n += v
		}
		return n, nil
	})
	res := callTool(t, s, "sum", `{"values": null}`)
	assert.True(t, res.IsError, "null is not a value for a required argument")
	assert.Contains(t, res.Text(), `argument "values"`)
	res = callTool(t, s, "sum", `{"values": [1, 2]}`)
	assert.False(t, res.IsError)
	assert.Equal(t, "3", res.Text())
}
