package elicit

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpchain/mcp"
)

type fuzzForm struct {
	Name  string   `json:"name" mcp:"maxLength=8"`
	Age   int      `json:"age,omitempty" mcp:"minimum=0" default:"7"`
	Color string   `json:"color,omitempty" enum:"r,g" enumTitles:"Red,Green"`
	Tags  []string `json:"tags,omitempty" enum:"a,b" mcp:"maxItems=1"`
	OK    bool     `json:"ok,omitempty"`
}

// FuzzElicitFormAnswer: whatever content a client answers a form with,
// decoding it never panics; it fails only with -32602, and what it
// accepts fits the form.
func FuzzElicitFormAnswer(f *testing.F) {
	form, err := NewForm[fuzzForm]()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{`{"name":"x"}`, `{"name":"x","age":3.5}`, `{"name":"x","color":"b"}`,
		`{"name":"x","tags":["a","b"]}`, `{"name":1}`, `{}`, `{"name":"x","ok":"yes"}`, `{"name":"0123456789"}`,
		`{"name":"x","age":null,"color":null,"tags":null,"ok":null}`, `{"name":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var content map[string]any
		if json.Unmarshal(data, &content) != nil {
			return
		}
		v, err := form.decode(content)
		if err != nil {
			var je *mcp.Error
			if !errors.As(err, &je) || je.Code != mcp.CodeInvalidParams {
				t.Fatalf("decode %s: %v is not -32602", data, err)
			}
			return
		}
		if len([]rune(v.Name)) > 8 || v.Age < 0 || len(v.Tags) > 1 || (v.Color != "" && v.Color != "r" && v.Color != "g") {
			t.Fatalf("decode %s accepted %+v, which does not fit the form", data, v)
		}
	})
}
