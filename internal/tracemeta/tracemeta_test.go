package tracemeta

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestOf(t *testing.T) {
	meta := func(members string) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte("{"+members+"}"), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	cases := []struct {
		name string
		meta map[string]json.RawMessage
		want Fields
	}{
		{"none", nil, Fields{}},
		{"no traceparent", meta(`"tracestate":"a=b"`), Fields{}},
		{"all three", meta(`"traceparent":"` + tp + `","tracestate":"a=b","baggage":"k=v"`), Fields{tp, "a=b", "k=v"}},
		{"a later version with more", meta(`"traceparent":"` + tp + `-ext"`), Fields{Traceparent: tp + "-ext"}},
		{"upper-case hex", meta(`"traceparent":"` + strings.ToUpper(tp) + `"`), Fields{}},
		{"version ff", meta(`"traceparent":"ff` + tp[2:] + `"`), Fields{}},
		{"too short", meta(`"traceparent":"00-abc-01"`), Fields{}},
		{"not a string", meta(`"traceparent":42`), Fields{}},
		{"tracestate too long", meta(`"traceparent":"` + tp + `","tracestate":"` + strings.Repeat("a", 600) + `"`), Fields{Traceparent: tp}},
		{"tracestate not a string", meta(`"traceparent":"` + tp + `","tracestate":{}`), Fields{Traceparent: tp}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Of(context.Background(), tc.meta))
		})
	}
	t.Run("a source in the context comes first", func(t *testing.T) {
		child := "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01"
		ctx := With(context.Background(), func(context.Context) Fields { return Fields{Traceparent: child} })
		assert.Equal(t, Fields{Traceparent: child}, Of(ctx, meta(`"traceparent":"`+tp+`"`)))
		empty := With(context.Background(), func(context.Context) Fields { return Fields{} })
		assert.Equal(t, Fields{Traceparent: tp}, Of(empty, meta(`"traceparent":"`+tp+`"`)), "a source without a span falls back to the request")
	})
}

func TestInject(t *testing.T) {
	f := Fields{Traceparent: tp, Tracestate: "a=b"}
	cases := []struct{ in, want string }{
		{`{}`, `{"_meta":{"traceparent":"` + tp + `","tracestate":"a=b"}}`},
		{`{"progress":1}`, `{"_meta":{"traceparent":"` + tp + `","tracestate":"a=b"},"progress":1}`},
		{`{"_meta":{"own":1},"x":2}`, `{"_meta":{"own":1,"traceparent":"` + tp + `","tracestate":"a=b"},"x":2}`},
		{`{"_meta":{"traceparent":"mine"}}`, `{"_meta":{"traceparent":"mine","tracestate":"a=b"}}`},
		{`{"_meta":null}`, `{"_meta":{"traceparent":"` + tp + `","tracestate":"a=b"}}`},
		{`{"_meta":"odd"}`, `{"_meta":"odd"}`},
		{`{"text":"\"_meta\""}`, `{"_meta":{"traceparent":"` + tp + `","tracestate":"a=b"},"text":"\"_meta\""}`},
		{`null`, `null`},
		{`[1]`, `[1]`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got := Inject([]byte(tc.in), f)
			assert.JSONEq(t, tc.want, string(got))
		})
	}
	assert.Equal(t, `{"a":1}`, string(Inject([]byte(`{"a":1}`), Fields{})), "no trace context: unchanged")
}

// FuzzInject: whatever the params and fields, the result is valid JSON
// when the params were.
func FuzzInject(f *testing.F) {
	f.Add([]byte(`{"a":1}`), tp, "a=b")
	f.Add([]byte(`{"_meta":{"x":[1]}}`), tp, "")
	f.Add([]byte(` { } `), tp, "\u2028\"")
	f.Fuzz(func(t *testing.T, params []byte, traceparent, tracestate string) {
		if !json.Valid(params) {
			return
		}
		out := Inject(params, Fields{Traceparent: traceparent, Tracestate: tracestate})
		if !json.Valid(out) {
			t.Fatalf("Inject(%s) = %s, not JSON", params, out)
		}
	})
}
