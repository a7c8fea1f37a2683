package elicit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcptest"
)

var quiet = slog.New(slog.DiscardHandler)

type formEnums struct {
	Plain  string   `json:"plain" enum:"a,b"`
	Titled string   `json:"titled,omitempty" enum:"#f00,#0f0" enumTitles:"Red, Green" default:"#0f0"`
	Multi  []string `json:"multi,omitempty" enum:"x,y,z" default:"x,z" mcp:"minItems=1,maxItems=2"`
	TMulti []string `json:"tmulti,omitempty" enum:"x,y" enumTitles:"Ex,Why"`
}

type formPrimitives struct {
	Name  string  `json:"name" title:"Name" jsonschema:"what to call you" mcp:"minLength=1,maxLength=20"`
	Email *string `json:"email,omitempty" mcp:"format=email"`
	Age   int     `json:"age,omitempty" mcp:"minimum=0,maximum=150" default:"30"`
	Score float64 `json:"score,omitempty"`
	OK    bool    `json:"ok" default:"true"`
	Skip  string  `json:"-"`
	_     int     // unexported: not a form field
}

type formBase struct {
	ID string `json:"id"`
}

type formEmbedded struct {
	formBase
	Note string `json:"note,omitempty"`
}

// TestFormSchema: the requestedSchema of a struct is the tool-input
// inference held to the spec's primitive schemas: plain, titled (oneOf)
// and multi-select (items.enum, items.anyOf) enums, titles, descriptions,
// defaults and the bounds a form allows, in field order, with no
// additionalProperties or nullable types.
func TestFormSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		form interface{ schemaJSON() string }
		want string
	}{
		{"primitives", formOf[formPrimitives](t), `{"type":"object","properties":{
			"name":{"type":"string","title":"Name","description":"what to call you","minLength":1,"maxLength":20},
			"email":{"type":"string","format":"email"},
			"age":{"type":"integer","default":30,"minimum":0,"maximum":150},
			"score":{"type":"number"},
			"ok":{"type":"boolean","default":true}},
			"required":["name","ok"]}`},
		{"enums", formOf[formEnums](t), `{"type":"object","properties":{
			"plain":{"type":"string","enum":["a","b"]},
			"titled":{"type":"string","default":"#0f0","oneOf":[{"const":"#f00","title":"Red"},{"const":"#0f0","title":"Green"}]},
			"multi":{"type":"array","items":{"type":"string","enum":["x","y","z"]},"default":["x","z"],"minItems":1,"maxItems":2},
			"tmulti":{"type":"array","items":{"anyOf":[{"const":"x","title":"Ex"},{"const":"y","title":"Why"}]}}},
			"required":["plain"]}`},
		{"embedded struct", formOf[formEmbedded](t), `{"type":"object","properties":{
			"id":{"type":"string"},"note":{"type":"string"}},"required":["id"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.JSONEq(t, tc.want, tc.form.schemaJSON())
		})
	}
	// The order of the properties is the fields' order, for the client's form.
	assert.Regexp(t, `(?s)"name".*"email".*"age".*"score".*"ok"`, formOf[formPrimitives](t).schemaJSON())
}

type schemaForm[T any] struct{ f *elicit.Form[T] }

func (s schemaForm[T]) schemaJSON() string {
	b, err := json.Marshal(s.f.Schema())
	if err != nil {
		panic(err)
	}
	return string(b)
}

func formOf[T any](t *testing.T) schemaForm[T] {
	t.Helper()
	f, err := elicit.NewForm[T]()
	require.NoError(t, err)
	return schemaForm[T]{f}
}

// TestFormRefused: a type the form schema cannot express is an
// ErrInvalidDefinition that names the field and the rule, from
// NewForm, from MustForm (a panic) and from every As.
func TestFormRefused(t *testing.T) {
	t.Parallel()
	type point struct{ X, Y int }
	for _, tc := range []struct {
		name string
		make func() error
		want string
	}{
		{"not a struct", errOf[string], "a form is a struct of primitive fields, not string"},
		{"nested struct", errOf[struct{ Where point }], "field Where: a form holds strings, numbers, integers, booleans and multi-selects of strings"},
		{"map", errOf[struct{ M map[string]string }], "field M: a form holds"},
		{"list without enum", errOf[struct{ L []string }], "field L: a list in a form is a multi-select"},
		{"list of numbers", errOf[struct {
			L []int `enum:"1,2"`
		}], "field L: a list in a form is a multi-select"},
		{"pattern", errOf[struct {
			S string `mcp:"pattern=^a"`
		}], "field S: a form's string field cannot have pattern"},
		{"exclusive bound", errOf[struct {
			N int `mcp:"exclusiveMinimum=0"`
		}], "field N: a form's integer field cannot have exclusiveMinimum"},
		{"uniqueItems", errOf[struct {
			L []string `enum:"a,b" mcp:"uniqueItems=true"`
		}], "field L: a form's array field cannot have uniqueItems"},
		{"format outside the form's", errOf[struct {
			S string `mcp:"format=uuid"`
		}], `field S: format "uuid" is not one a form allows (email, uri, date, date-time)`},
		{"enum of numbers", errOf[struct {
			N int `enum:"1,2"`
		}], "field N: an enum in a form is of strings; a integer field cannot have one"},
		{"titles without enum", errOf[struct {
			S string `enumTitles:"A"`
		}], "field S: enumTitles needs an enum tag"},
		{"titles miscounted", errOf[struct {
			S string `enum:"a,b" enumTitles:"A"`
		}], "field S: enumTitles has 1 titles for 2 enum values"},
		{"default outside the enum", errOf[struct {
			S string `enum:"a,b" default:"c"`
		}], "enum"},
		{"no field", errOf[struct{ x int }], "has no exported field to ask"},
		{"any", errOf[struct{ V any }], "field V: a form holds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.make()
			require.Error(t, err)
			assert.ErrorIs(t, err, mcp.ErrInvalidDefinition)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	assert.Panics(t, func() { elicit.MustForm[struct{ Where point }]() })
	_, _, err := elicit.As[struct{ Where point }](context.Background(), nil, "?")
	assert.ErrorIs(t, err, mcp.ErrInvalidDefinition, "As reports the type before it needs a Context")
}

func errOf[T any]() error {
	_, err := elicit.NewForm[T]()
	return err
}

// TestAsAnswers: the client's answer is checked against the form,
// completed with defaults and decoded; decline and cancel leave the zero
// value; an answer that does not fit is -32602 naming the field. Run over
// an embedded session at both eras (a server request, an input-required
// round).
func TestAsAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		answer *elicit.Result
		want   string
	}{
		{"accept", &elicit.Result{Action: "accept", Content: map[string]any{"plain": "b", "titled": "#f00", "multi": []string{"y"}, "tmulti": []any{"x", "y"}}},
			`accept {Plain:b Titled:#f00 Multi:[y] TMulti:[x y]}`},
		{"defaults fill what the user left out", &elicit.Result{Action: "accept", Content: map[string]any{"plain": "a"}},
			`accept {Plain:a Titled:#0f0 Multi:[x z] TMulti:[]}`},
		{"null for an optional field is the field left out", &elicit.Result{Action: "accept", Content: map[string]any{"plain": "a", "titled": nil, "multi": nil, "tmulti": nil}},
			`accept {Plain:a Titled:#0f0 Multi:[x z] TMulti:[]}`},
		{"null for a required field", &elicit.Result{Action: "accept", Content: map[string]any{"plain": nil}}, `error -32602 "plain"`},
		{"extra members are ignored", &elicit.Result{Action: "accept", Content: map[string]any{"plain": "a", "other": 1}},
			`accept {Plain:a Titled:#0f0 Multi:[x z] TMulti:[]}`},
		{"a case variant of a field is refused", &elicit.Result{Action: "accept", Content: map[string]any{"plain": "a", "Titled": "blue"}},
			`error -32602 "Titled"`},
		{"a case variant beside its field is refused", &elicit.Result{Action: "accept", Content: map[string]any{"plain": "a", "titled": "#f00", "TITLED": "blue"}},
			`error -32602 "TITLED"`},
		{"decline", &elicit.Result{Action: "decline"}, `decline {Plain: Titled: Multi:[] TMulti:[]}`},
		{"cancel", &elicit.Result{Action: "cancel", Content: map[string]any{"plain": "a"}}, `cancel {Plain: Titled: Multi:[] TMulti:[]}`},
		{"outside the enum", &elicit.Result{Action: "accept", Content: map[string]any{"plain": "c"}}, `error -32602 "plain"`},
		{"outside the titled enum", &elicit.Result{Action: "accept", Content: map[string]any{"plain": "a", "titled": "blue"}}, `error -32602 "titled"`},
		{"too many selected", &elicit.Result{Action: "accept", Content: map[string]any{"plain": "a", "multi": []string{"x", "y", "z"}}}, `error -32602 "multi"`},
		{"a required field missing", &elicit.Result{Action: "accept", Content: map[string]any{}}, `error -32602 "plain"`},
		{"wrong type", &elicit.Result{Action: "accept", Content: map[string]any{"plain": 3}}, `error -32602 "plain"`},
	} {
		for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
			t.Run(tc.name+"/"+string(version), func(t *testing.T) {
				t.Parallel()
				srv := mcp.NewServer(mcp.Options{Name: "f", Version: "1.0.0", Logger: quiet})
				var asked *elicit.Params
				mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
					v, action, err := elicit.As[formEnums](ctx, c, "Pick")
					var je *mcp.Error
					if errors.As(err, &je) {
						return fmt.Sprintf("error %d %s", je.Code, je.Message), nil
					} else if err != nil {
						return "", err
					}
					if v.Multi == nil {
						v.Multi = []string{}
					}
					if v.TMulti == nil {
						v.TMulti = []string{}
					}
					return fmt.Sprintf("%s %+v", action, v), nil
				})
				s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{ProtocolVersion: version,
					Elicit: func(_ context.Context, p *elicit.Params) (*elicit.Result, error) {
						asked = p
						return tc.answer, nil
					}}}).Client()
				res, err := s.CallTool(context.Background(), "ask", nil, nil)
				require.NoError(t, err)
				if len(tc.want) > 5 && tc.want[:5] == "error" {
					var code int
					var field string
					_, _ = fmt.Sscanf(tc.want, "error %d %s", &code, &field)
					assert.Contains(t, res.Text(), fmt.Sprintf("error %d Invalid params: the elicitation answer", code))
					assert.Contains(t, res.Text(), field)
				} else {
					assert.Equal(t, tc.want, res.Text())
				}
				require.NotNil(t, asked)
				assert.Equal(t, "Pick", asked.Message)
				assert.Empty(t, asked.Mode, "a form's mode is left out, as older clients expect")
				b, _ := json.Marshal(asked.RequestedSchema)
				assert.Contains(t, string(b), `"oneOf":[{"const":"#f00","title":"Red"}`)
			})
		}
	}
}
