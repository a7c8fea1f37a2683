package audit

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

type fuzzIn struct {
	Name   string            `json:"name"`
	Token  string            `json:"token"`
	Note   string            `json:"note" audit:"redact"`
	Keep   string            `json:"keep" audit:"keep"`
	Nested *fuzzIn           `json:"nested,omitempty"`
	List   []fuzzIn          `json:"list,omitempty"`
	Map    map[string]string `json:"map,omitempty"`
}

// FuzzRedact: the redaction of a caller's arguments and resource URIs
// takes any input without a panic, gives JSON-encodable values, and
// never shows a value held under a field named like a secret.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{`{"name":"a","token":"SEKRIT-1","nested":{"token":"SEKRIT-2","list":[{"token":"SEKRIT-3"}]}}`,
		`{"map":{"password":"SEKRIT-4"},"x":[1,2,{"api_key":"SEKRIT-5"}]}`, `[]`, `null`, `{"a":`, `{"name":"Bearer abc.def"}`} {
		f.Add(s, "https://u:p@host/x?api_key=SEKRIT-6&page=2")
	}
	p := &policy{maxValue: 256}
	// A transform's renames: the tagged note as "alias", the plain name
	// under the secret's name "token", nested as "inner".
	renames := map[string]string{"alias": "note", "token": "name", "inner": "nested"}
	f.Fuzz(func(t *testing.T, args, uri string) {
		for _, typ := range []reflect.Type{nil, reflect.TypeFor[fuzzIn]()} {
			for _, names := range []map[string]string{nil, renames} {
				for _, withheld := range []bool{false, true} {
					m := p.arguments(json.RawMessage(args), typ, names, withheld)
					if _, err := json.Marshal(m); err != nil {
						t.Fatalf("not encodable: %v", err)
					}
					// The fuzzed text as the value of secret-named members.
					v, _ := json.Marshal("SEKRIT" + args)
					planted := `{"token":` + string(v) + `,"nested":{"token":` + string(v) + `},"map":{"password":` + string(v) + `}}`
					if names != nil && typ != nil {
						planted = `{"token":` + string(v) + `,"alias":` + string(v) + `,"inner":{"token":` + string(v) + `},"map":{"password":` + string(v) + `}}`
					}
					b, _ := json.Marshal(p.arguments(json.RawMessage(planted), typ, names, withheld))
					if strings.Contains(string(b), "SEKRIT") {
						t.Fatalf("a secret shown: %s", b)
					}
				}
			}
		}
		_ = p.uri(uri)
		u := p.uri("https://h/x?page=2&api_key=" + url.QueryEscape("SEKRIT"+uri))
		if strings.Contains(u, "SEKRIT") {
			t.Fatalf("a secret query value shown: %s", u)
		}
	})
}
