package mcp

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSamplingCapabilityDecode(t *testing.T) {
	cases := []struct {
		in   string
		want *SamplingCapability
	}{
		{`{}`, nil},
		{`{"sampling":null}`, nil},
		{`{"sampling":{}}`, &SamplingCapability{}},
		{`{"sampling":{"tools":{}}}`, &SamplingCapability{Tools: &struct{}{}}},
		{`{"sampling":{"tools":{},"context":{}}}`, &SamplingCapability{Tools: &struct{}{}, Context: &struct{}{}}},
		{`{"sampling":{"tools":true}}`, &SamplingCapability{Tools: &struct{}{}}},
		{`{"sampling":{"tools":null}}`, &SamplingCapability{}},
		{`{"sampling":{"tools":false}}`, &SamplingCapability{}},
		{`{"sampling":true}`, &SamplingCapability{}},
		{`{"sampling":{"tools":{"x":1},"future":[]}}`, &SamplingCapability{Tools: &struct{}{}}},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			var c ClientCapabilities
			require.NoError(t, json.Unmarshal([]byte(tc.in), &c))
			assert.Equal(t, tc.want, c.Sampling)
			// What a session store keeps reads back the same.
			b, err := json.Marshal(c)
			require.NoError(t, err)
			var back ClientCapabilities
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tc.want, back.Sampling)
		})
	}
}

// FuzzClientCapabilitiesSampling feeds a client's capabilities (initialize, or a
// 2026-07-28 request's _meta) to the decoder: it must never panic, and
// what it keeps of sampling must survive a session store's round trip.
func FuzzClientCapabilitiesSampling(f *testing.F) {
	for _, s := range []string{`{}`, `{"sampling":{}}`, `{"sampling":{"tools":{},"context":{}}}`,
		`{"sampling":{"tools":false}}`, `{"sampling":[1]}`, `{"sampling":"yes","roots":{"listChanged":true}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c ClientCapabilities
		if json.Unmarshal(data, &c) != nil {
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("encoding %+v: %v", c, err)
		}
		var back ClientCapabilities
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("re-decoding %s: %v", b, err)
		}
		shape := func(s *SamplingCapability) [3]bool {
			if s == nil {
				return [3]bool{}
			}
			return [3]bool{true, s.Tools != nil, s.Context != nil}
		}
		if shape(c.Sampling) != shape(back.Sampling) {
			t.Fatalf("sampling %v became %v", shape(c.Sampling), shape(back.Sampling))
		}
	})
}
