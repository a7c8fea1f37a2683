package mcphttp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

var testStateKey = []byte("0123456789abcdef0123456789abcdef")

func testSealer(t testing.TB, key []byte) *sealer {
	t.Helper()
	s, err := newSealer(key, time.Minute)
	require.NoError(t, err)
	return s
}

func TestSealerRoundTrip(t *testing.T) {
	t.Parallel()
	s := testSealer(t, testStateKey)
	alice, _ := principalOf(subj("alice"))
	p := statePayload{Method: "tools/call", Params: paramsDigest(json.RawMessage(`{"name":"x"}`)), Principal: alice,
		Expires: time.Now().Add(time.Minute).UnixMilli(), Round: 2,
		Answers: map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}}
	a, err := s.seal(p)
	require.NoError(t, err)
	b, err := s.seal(p)
	require.NoError(t, err)
	assert.NotEqual(t, a, b, "a fresh nonce each time: no two states are equal")
	for _, tok := range []string{a, b} {
		got, err := s.open(tok)
		require.NoError(t, err)
		assert.Equal(t, p, got)
	}
	assert.NotContains(t, a, "tools/call", "the payload is encrypted, not only signed")
}

func TestSealerRefuses(t *testing.T) {
	t.Parallel()
	s := testSealer(t, testStateKey)
	tok, err := s.seal(statePayload{Method: "tools/call", Expires: time.Now().Add(time.Minute).UnixMilli()})
	require.NoError(t, err)
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	require.NoError(t, err)
	alter := func(i int) string {
		b := bytes.Clone(raw)
		b[i] ^= 1
		return base64.RawURLEncoding.EncodeToString(b)
	}
	other := testSealer(t, []byte("another secret of enough bytes"))
	otherTok, err := other.seal(statePayload{Method: "tools/call", Expires: time.Now().Add(time.Minute).UnixMilli()})
	require.NoError(t, err)
	expired, err := s.seal(statePayload{Method: "tools/call", Expires: time.Now().Add(-time.Millisecond).UnixMilli()})
	require.NoError(t, err)
	tests := []struct {
		name string
		tok  string
		want error
	}{
		{"empty", "", errStateInvalid},
		{"not base64url", "a+b/c=", errStateInvalid},
		{"suffix appended", tok + "-TAMPERED", errStateInvalid},
		{"nonce altered", alter(0), errStateInvalid},
		{"ciphertext altered", alter(len(raw) / 2), errStateInvalid},
		{"tag altered", alter(len(raw) - 1), errStateInvalid},
		{"truncated", tok[:len(tok)-4], errStateInvalid},
		{"shorter than a nonce and tag", tok[:10], errStateInvalid},
		{"sealed under another key", otherTok, errStateInvalid},
		{"expired", expired, errStateExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.open(tt.tok)
			assert.ErrorIs(t, err, tt.want)
		})
	}
	t.Run("the clock decides expiry", func(t *testing.T) {
		s := testSealer(t, testStateKey)
		now := time.Now()
		s.now = func() time.Time { return now }
		tok, err := s.seal(statePayload{Method: "m", Expires: now.Add(s.ttl).UnixMilli()})
		require.NoError(t, err)
		s.now = func() time.Time { return now.Add(s.ttl - time.Second) }
		_, err = s.open(tok)
		require.NoError(t, err)
		s.now = func() time.Time { return now.Add(s.ttl + time.Second) }
		_, err = s.open(tok)
		assert.ErrorIs(t, err, errStateExpired)
	})
}

func TestNewSealerKeys(t *testing.T) {
	t.Parallel()
	_, err := newSealer([]byte("0123456789abcde"), 0)
	require.Error(t, err, "15 bytes are too few")
	s16, err := newSealer([]byte("0123456789abcdef"), 0)
	require.NoError(t, err)
	assert.Equal(t, DefaultStateTTL, s16.ttl)
	// Without a key, each sealer draws its own: they do not open each other's states.
	a, b := testSealer(t, nil), testSealer(t, nil)
	tok, err := a.seal(statePayload{Expires: time.Now().Add(time.Minute).UnixMilli()})
	require.NoError(t, err)
	_, err = b.open(tok)
	require.ErrorIs(t, err, errStateInvalid)
	_, err = a.open(tok)
	require.NoError(t, err)
	// The same key in two processes (replicas): they do.
	c, d := testSealer(t, testStateKey), testSealer(t, testStateKey)
	tok, err = c.seal(statePayload{Expires: time.Now().Add(time.Minute).UnixMilli()})
	require.NoError(t, err)
	_, err = d.open(tok)
	require.NoError(t, err)
}

func TestParamsDigest(t *testing.T) {
	t.Parallel()
	base := paramsDigest(json.RawMessage(`{"name":"t","arguments":{"a":1,"b":[1,2]}}`))
	same := []string{
		`{"arguments":{"b":[1,2],"a":1},"name":"t"}`,
		` { "name" : "t", "arguments" : { "a" : 1 , "b" : [ 1 , 2 ] } } `,
		`{"name":"t","arguments":{"a":1,"b":[1,2]},"inputResponses":{"k":{}},"requestState":"x","_meta":{"progressToken":1}}`,
	}
	for _, p := range same {
		assert.Equal(t, base, paramsDigest(json.RawMessage(p)), p)
	}
	differ := []string{
		`{"name":"u","arguments":{"a":1,"b":[1,2]}}`,
		`{"name":"t","arguments":{"a":2,"b":[1,2]}}`,
		`{"name":"t","arguments":{"a":1,"b":[2,1]}}`,
		`{"name":"t","arguments":{"a":1,"b":[1,2]},"other":true}`,
		`{"name":"t"}`,
	}
	for _, p := range differ {
		assert.NotEqual(t, base, paramsDigest(json.RawMessage(p)), p)
	}
}

type subj string

func (s subj) Subject() string { return string(s) }

// TestPrincipalOf: a requestState binds its caller by the identity rule:
// nothing for an anonymous caller, the subject's key for a subject, and
// no binding at all (ok false) for auth data without a subject, which
// cannot be told from another user's.
func TestPrincipalOf(t *testing.T) {
	t.Parallel()
	p := func(auth any) []byte {
		b, ok := principalOf(auth)
		require.True(t, ok, "%T", auth)
		return b
	}
	assert.Nil(t, p(nil), "anonymous")
	assert.Equal(t, p(subj("alice")), p(subj("alice")))
	assert.NotEqual(t, p(subj("alice")), p(subj("bob")))
	type claims struct{ Sub, Tenant string }
	type hidden struct{ sub string }
	for _, auth := range []any{claims{"a", "t"}, hidden{"a"}, "a", subj("")} {
		_, ok := principalOf(auth)
		assert.False(t, ok, "%T has no subject: no principal", auth)
	}
}

func TestRoundInputs(t *testing.T) {
	t.Parallel()
	h := &Handler{states: testSealer(t, testStateKey)}
	ask := map[string]mcp.InputRequest{"a": {Method: "elicitation/create"}, "b": {Method: "roots/list"}}
	rd, err := h.openRound("tools/call", json.RawMessage(`{"name":"t","inputResponses":{"a":{"action":"accept"}}}`), nil)
	require.NoError(t, err)
	_, err = rd.Inputs(t.Context(), ask)
	require.ErrorIs(t, err, mcp.ErrInputRequired)
	out, err := rd.finish(h.states, "ignored", errors.New("the tool's own error"))
	require.NoError(t, err)
	var res struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	require.NoError(t, json.Unmarshal(out.(json.RawMessage), &res))
	assert.Equal(t, "input_required", res.ResultType)
	assert.Equal(t, map[string]json.RawMessage{"b": json.RawMessage(`{"method":"roots/list","params":{}}`)}, res.InputRequests,
		"only the open question; nil params are {}")
	st, err := h.states.open(res.RequestState)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Round)
	assert.Empty(t, st.Answers, "an answer the handler did not take is not carried")

	// The next round answers b; a comes again from inputResponses.
	rd, err = h.openRound("tools/call", json.RawMessage(`{"name":"t","requestState":"`+res.RequestState+`","inputResponses":{"a":{"action":"accept"},"b":{"roots":[]}}}`), nil)
	require.NoError(t, err)
	got, err := rd.Inputs(t.Context(), ask)
	require.NoError(t, err)
	assert.Len(t, got, 2)
	out, err = rd.finish(h.states, "done", nil)
	require.NoError(t, err)
	assert.Equal(t, "done", out)

	rd, err = h.openRound("tools/list", nil, nil)
	require.NoError(t, err)
	_, err = rd.Inputs(t.Context(), ask)
	assert.ErrorIs(t, err, ErrInputNotAllowed)
}

// FuzzRequestState feeds arbitrary params (requestState, inputResponses,
// anything) to openRound, with seeds that hold a valid state: it must
// never panic, refuse with -32602 only, and a round it opens holds only
// object answers, which Inputs checks without panicking.
func FuzzRequestState(f *testing.F) {
	s, err := newSealer(testStateKey, time.Hour)
	if err != nil {
		f.Fatal(err)
	}
	h := &Handler{states: s}
	valid, err := s.seal(statePayload{Method: "tools/call", Params: paramsDigest(json.RawMessage(`{"name":"t"}`)),
		Expires: time.Now().Add(time.Hour).UnixMilli(), Round: 1,
		Answers: map[string]json.RawMessage{"a": json.RawMessage(`{"action":"accept"}`)}})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"name":"t"}`,
		`{"name":"t","requestState":"` + valid + `"}`,
		`{"name":"t","requestState":"` + valid + `-TAMPERED","inputResponses":{"a":{"action":"accept"}}}`,
		`{"name":"t","requestState":"` + valid + `","inputResponses":{"b":{"roots":[]},"c":{"role":"assistant","content":{}}}}`,
		`{"name":"t","inputResponses":{"user_name":12345}}`,
		`{"name":"t","inputResponses":null}`,
		`{"name":"t","inputResponses":{"a":{"action":7}},"requestState":null}`,
		`{"name":"u","requestState":"` + valid + `"}`,
		`[]`, `null`, `{"requestState":""}`, `{"inputResponses":{"a":{}}`,
	} {
		f.Add(seed)
	}
	ask := map[string]mcp.InputRequest{
		"a": {Method: "elicitation/create"}, "b": {Method: "roots/list"}, "c": {Method: "sampling/createMessage"},
	}
	f.Fuzz(func(t *testing.T, params string) {
		rd, err := h.openRound("tools/call", json.RawMessage(params), nil)
		if err != nil {
			var je *mcp.Error
			if !errors.As(err, &je) || je.Code != mcp.CodeInvalidParams {
				t.Fatalf("openRound(%q): %v, want a -32602 error", params, err)
			}
			return
		}
		for k, v := range rd.answers {
			if v := bytes.TrimSpace(v); len(v) == 0 || v[0] != '{' {
				t.Fatalf("answer %q is %q, not an object", k, v)
			}
		}
		_, err = rd.Inputs(t.Context(), ask)
		var je *mcp.Error
		if err != nil && !errors.Is(err, mcp.ErrInputRequired) && (!errors.As(err, &je) || je.Code != mcp.CodeInvalidParams) {
			t.Fatalf("Inputs: %v", err)
		}
		if _, err := rd.finish(s, nil, nil); err != nil && (!errors.As(err, &je) || je.Code != mcp.CodeInvalidParams) {
			t.Fatalf("finish: %v", err)
		}
	})
}
