package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type decodeCase struct {
	name       string
	in         string
	wantCode   int    // 0: decodes
	wantMsg    string // substring of the error message
	wantID     string // the id of the message or of the error
	wantMethod string
	wantKind   string // "request", "notification" or "response"
}

var decodeCases = []decodeCase{
	{name: "request", in: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, wantID: "1", wantMethod: "tools/list", wantKind: "request"},
	{name: "request with string id", in: `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`, wantID: `"a-1"`, wantMethod: "ping", wantKind: "request"},
	{name: "request with negative id", in: `{"jsonrpc":"2.0","id":-5,"method":"ping"}`, wantID: "-5", wantMethod: "ping", wantKind: "request"},
	{name: "members in any order and white space", in: " \n{ \"method\" : \"ping\" ,\t\"id\" : 2 , \"jsonrpc\" : \"2.0\" }\n", wantID: "2", wantMethod: "ping", wantKind: "request"},
	{name: "escaped method value", in: `{"jsonrpc":"2.0","id":1,"method":"tools\/call"}`, wantID: "1", wantMethod: "tools/call", wantKind: "request"},
	{name: "unknown members are ignored", in: `{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"method":"x"}}`, wantID: "1", wantMethod: "ping", wantKind: "request"},
	{name: "params array", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}`, wantID: "1", wantMethod: "m", wantKind: "request"},
	{name: "notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, wantMethod: "notifications/initialized", wantKind: "notification"},
	{name: "result response", in: `{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}`, wantID: "7", wantKind: "response"},
	{name: "error response", in: `{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"no"}}`, wantID: `"x"`, wantKind: "response"},
	{name: "error response with null id", in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`, wantID: "null", wantKind: "response"},

	{name: "parse error", in: `{"jsonrpc":"2.0","id":1,"method":`, wantCode: CodeParseError, wantMsg: "not valid JSON"},
	{name: "empty input", in: ``, wantCode: CodeParseError},
	{name: "trailing garbage", in: `{"jsonrpc":"2.0","method":"a"} x`, wantCode: CodeParseError},
	{name: "not an object: array", in: `[1]`, wantCode: CodeInvalidRequest, wantMsg: "JSON object"},
	{name: "not an object: string", in: `"hello"`, wantCode: CodeInvalidRequest, wantMsg: "JSON object"},
	{name: "not an object: number", in: `42`, wantCode: CodeInvalidRequest, wantMsg: "JSON object"},
	{name: "empty object", in: `{}`, wantCode: CodeInvalidRequest, wantMsg: `"jsonrpc"`},
	{name: "missing jsonrpc", in: `{"id":1,"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: `"jsonrpc" must be "2.0"`, wantID: "1"},
	{name: "jsonrpc 1.0", in: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: `"jsonrpc" must be "2.0"`, wantID: "1"},
	{name: "jsonrpc number", in: `{"jsonrpc":2.0,"id":1,"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: `"jsonrpc" must be "2.0"`, wantID: "1"},
	{name: "id object", in: `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: `"id" must be a string or a number, not an object`},
	{name: "id array", in: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: "not an array"},
	{name: "id boolean", in: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: "not a boolean"},
	{name: "id null in a request", in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: "not null"},
	{name: "object id is not echoed in a later error", in: `{"id":{"0":0},"method":""}`, wantCode: CodeInvalidRequest, wantMsg: "non-empty"},
	{name: "method not a string", in: `{"jsonrpc":"2.0","id":1,"method":5}`, wantCode: CodeInvalidRequest, wantMsg: `"method" must be a string`, wantID: "1"},
	{name: "method empty", in: `{"jsonrpc":"2.0","id":1,"method":""}`, wantCode: CodeInvalidRequest, wantMsg: "non-empty", wantID: "1"},
	{name: "duplicate method", in: `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call"}`, wantCode: CodeInvalidRequest, wantMsg: `duplicate member "method"`, wantID: "1"},
	{name: "duplicate id", in: `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: `duplicate member "id"`, wantID: "1"},
	{name: "duplicate jsonrpc", in: `{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: `duplicate member "jsonrpc"`},
	{name: "case variant Method", in: `{"jsonrpc":"2.0","id":1,"method":"tools/list","Method":"tools/call"}`, wantCode: CodeInvalidRequest, wantMsg: `"Method"`, wantID: "1"},
	{name: "case variant alone", in: `{"jsonrpc":"2.0","id":1,"METHOD":"tools/call"}`, wantCode: CodeInvalidRequest, wantMsg: "case-sensitive", wantID: "1"},
	{name: "case variant ID", in: `{"jsonrpc":"2.0","ID":1,"method":"ping"}`, wantCode: CodeInvalidRequest, wantMsg: `"ID"`},
	{name: "escaped key duplicates method", in: `{"jsonrpc":"2.0","id":1,"method":"tools/list","\u006dethod":"tools/call"}`, wantCode: CodeInvalidRequest, wantMsg: `duplicate member "method"`, wantID: "1"},
	{name: "escaped key alone is method", in: `{"jsonrpc":"2.0","id":1,"\u006dethod":"ping"}`, wantID: "1", wantMethod: "ping", wantKind: "request"},
	{name: "escaped case variant", in: `{"jsonrpc":"2.0","id":1,"method":"a","\u004dethod":"b"}`, wantCode: CodeInvalidRequest, wantMsg: "case-sensitive", wantID: "1"},
	{name: "params number", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":5}`, wantCode: CodeInvalidRequest, wantMsg: `"params" must be an object`, wantID: "1"},
	{name: "params string", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, wantCode: CodeInvalidRequest, wantMsg: `"params" must be an object`, wantID: "1"},
	{name: "params null", in: `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`, wantCode: CodeInvalidRequest, wantMsg: `"params" must be an object`, wantID: "1"},
	{name: "result and error", in: `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, wantCode: CodeInvalidRequest, wantMsg: "not both", wantID: "1"},
	{name: "request with result", in: `{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`, wantCode: CodeInvalidRequest, wantMsg: `no "result" or "error"`, wantID: "1"},
	{name: "response without id", in: `{"jsonrpc":"2.0","result":{}}`, wantCode: CodeInvalidRequest, wantMsg: `needs an "id"`},
	{name: "neither method nor result", in: `{"jsonrpc":"2.0","id":1}`, wantCode: CodeInvalidRequest, wantMsg: `no "method", "result" or "error"`, wantID: "1"},
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := Decode([]byte(tt.in))
			if tt.wantCode != 0 {
				require.Error(t, err)
				require.Nil(t, m)
				var de *DecodeError
				require.ErrorAs(t, err, &de)
				assert.Equal(t, tt.wantCode, de.Code)
				assert.Contains(t, de.Message, tt.wantMsg)
				if tt.wantCode == CodeInvalidRequest {
					assert.True(t, strings.HasPrefix(de.Message, "Invalid Request: "), de.Message)
				}
				assert.Equal(t, tt.wantID, string(de.ID), "the error names the id when it could be read")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantMethod, m.Method)
			assert.Equal(t, tt.wantID, string(m.ID))
			assert.Equal(t, tt.wantKind == "request", m.IsRequest())
			assert.Equal(t, tt.wantKind == "notification", m.IsNotification())
			assert.Equal(t, tt.wantKind == "response", m.IsResponse())
		})
	}
}

func TestDecodeRawMembers(t *testing.T) {
	t.Parallel()
	m, err := Decode([]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"name":"add","arguments":{"a":1}}`, string(m.Params))
	assert.Equal(t, "3", m.IDKey())

	m, err = Decode([]byte(`{"jsonrpc":"2.0","id":"3","error":{"code":-32601,"message":"nope","data":[1]}}`))
	require.NoError(t, err)
	var e ResponseError
	require.NoError(t, json.Unmarshal(m.Error, &e))
	assert.EqualValues(t, -32601, e.Code)
	assert.Equal(t, "nope", e.Message)
	assert.Contains(t, e.Error(), "-32601")
	assert.NotEqual(t, "3", m.IDKey(), `the string id "3" and the number 3 stay distinct`)
}

func TestIsBatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want bool
	}{
		{`[{}]`, true},
		{" \r\n\t[1]", true},
		{`{"a":[1]}`, false},
		{``, false},
		{`   `, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, IsBatch([]byte(tt.in)), "%q", tt.in)
	}
}

func TestDecodeBatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		in       string
		wantCode int   // error of the whole batch
		wantErrs []int // code of each element's error, 0 for none
	}{
		{"two requests", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]`, 0, []int{0, 0}},
		{"one bad element", `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"1.0","id":2,"method":"b"},5]`, 0, []int{0, CodeInvalidRequest, CodeInvalidRequest}},
		{"empty batch", `[]`, CodeInvalidRequest, nil},
		{"not JSON", `[{"a":`, CodeParseError, nil},
		{"not an array", `{"jsonrpc":"2.0","method":"a"}`, CodeInvalidRequest, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs, errs, err := DecodeBatch([]byte(tt.in))
			if tt.wantCode != 0 {
				var de *DecodeError
				require.ErrorAs(t, err, &de)
				assert.Equal(t, tt.wantCode, de.Code)
				return
			}
			require.NoError(t, err)
			require.Len(t, msgs, len(tt.wantErrs))
			require.Len(t, errs, len(tt.wantErrs))
			for i, code := range tt.wantErrs {
				if code == 0 {
					assert.NoError(t, errs[i])
					assert.NotNil(t, msgs[i])
					continue
				}
				var de *DecodeError
				require.ErrorAs(t, errs[i], &de)
				assert.Equal(t, code, de.Code)
			}
		})
	}
}

func TestAppend(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"result", AppendResult(nil, json.RawMessage(`"a"`), []byte(`{}`)), `{"jsonrpc":"2.0","id":"a","result":{}}`},
		{"error with data", AppendError(nil, json.RawMessage(`1`), -32602, `bad "uri"`, map[string]string{"uri": "x://y"}),
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad \"uri\"","data":{"uri":"x://y"}}}`},
		{"error without id", AppendError(nil, nil, -32700, "parse", nil), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}`},
		{"notification", AppendNotification(nil, "notifications/message", []byte(`{"level":"info"}`)),
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}`},
		{"notification without params", AppendNotification(nil, "n", nil), `{"jsonrpc":"2.0","method":"n"}`},
		{"request", AppendRequest(nil, 9, "roots/list", []byte(`{}`)), `{"jsonrpc":"2.0","id":9,"method":"roots/list","params":{}}`},
		{"request without params", AppendRequest(nil, 9, "ping", nil), `{"jsonrpc":"2.0","id":9,"method":"ping"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, string(tt.got))
			_, err := Decode(tt.got)
			assert.NoError(t, err, "what we write, we read")
		})
	}
}

var appendStringCases = []string{
	"", "plain", `quote " and backslash \`, "new\nline\r\ttab", "\x00\x01\x1f\x7f",
	"<script>&amp;</script>", "héllo wörld ✓ 🎉", "\u2028\u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate",
}

func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range appendStringCases {
		checkAppendString(t, s)
	}
	assert.Equal(t, `"\u003c\u0026\u003e"`, string(AppendString(nil, "<&>")), "HTML characters are escaped as encoding/json does")
	assert.Equal(t, `"a\u2028b"`, string(AppendString(nil, "a\u2028b")))
	assert.Equal(t, `"x\ufffd"`, string(AppendString(nil, "x\xff")))
}

// checkAppendString: AppendString's output is one valid JSON string that
// decodes to s (invalid UTF-8 replaced by U+FFFD, as encoding/json does).
func checkAppendString(t *testing.T, s string) {
	t.Helper()
	prefix := []byte("prefix:")
	b := AppendString(append([]byte(nil), prefix...), s)
	require.Equal(t, prefix, b[:len(prefix)], "AppendString appends")
	out := b[len(prefix):]
	require.True(t, json.Valid(out), "%q gave invalid JSON %q", s, out)
	var got string
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, validRunes(s), got, "round trip of %q", s)
}

// validRunes replaces each invalid byte with U+FFFD, the way encoding/json
// does (strings.ToValidUTF8 would merge runs of them).
func validRunes(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		sb.WriteRune(r)
		i += size
	}
	return sb.String()
}

func FuzzAppendString(f *testing.F) {
	for _, s := range appendStringCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendString(nil, s)
		if !json.Valid(b) {
			t.Fatalf("AppendString(%q) = %q: not valid JSON", s, b)
		}
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("AppendString(%q) = %q: %v", s, b, err)
		}
		if want := validRunes(s); got != want {
			t.Fatalf("AppendString(%q) round-trips to %q, want %q", s, got, want)
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, tt := range decodeCases {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"a\"b","params":{"x":"}"}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1e3,"method":"m"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			de, ok := err.(*DecodeError)
			if !ok {
				t.Fatalf("Decode returned %T, want *DecodeError", err)
			}
			if de.Code != CodeParseError && de.Code != CodeInvalidRequest && de.Code != CodeInvalidParams {
				t.Fatalf("Decode error code %d", de.Code)
			}
			if de.Code == CodeParseError && json.Valid(data) {
				t.Fatalf("valid JSON %q reported as a parse error", data)
			}
			if de.ID != nil && !json.Valid(de.ID) {
				t.Fatalf("error id %q is not JSON", de.ID)
			}
			// The error response we would send must itself decode.
			if _, err := Decode(AppendError(nil, de.ID, int64(de.Code), de.Message, nil)); err != nil {
				t.Fatalf("error response for %q does not decode: %v", data, err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("Decode accepted invalid JSON %q", data)
		}
		// Cross-check with encoding/json on the members we care about.
		var generic map[string]json.RawMessage
		if err := json.Unmarshal(data, &generic); err != nil {
			t.Fatalf("Decode accepted %q, which is not an object: %v", data, err)
		}
		if string(generic["jsonrpc"]) != `"2.0"` {
			t.Fatalf("Decode accepted jsonrpc %s", generic["jsonrpc"])
		}
		kinds := 0
		for _, k := range []bool{m.IsRequest(), m.IsNotification(), m.IsResponse()} {
			if k {
				kinds++
			}
		}
		if kinds != 1 {
			t.Fatalf("%q is %d kinds of message", data, kinds)
		}
		if m.Method != "" {
			var method string
			if err := json.Unmarshal(generic["method"], &method); err != nil || method != m.Method {
				t.Fatalf("method %q, encoding/json reads %s", m.Method, generic["method"])
			}
			if m.Result != nil || m.Error != nil {
				t.Fatalf("a request with result or error: %q", data)
			}
		} else if (m.Result == nil) == (m.Error == nil) {
			t.Fatalf("a response needs exactly one of result and error: %q", data)
		}
		if m.ID != nil {
			if !json.Valid(m.ID) || string(m.ID) != string(compactRaw(generic["id"])) {
				t.Fatalf("id %q, encoding/json reads %s", m.ID, generic["id"])
			}
		}
		if m.IsRequest() {
			if m.ID[0] == 'n' || m.ID[0] == '{' || m.ID[0] == '[' || m.ID[0] == 't' || m.ID[0] == 'f' {
				t.Fatalf("request id %s", m.ID)
			}
		}
		if m.Params != nil && !json.Valid(m.Params) {
			t.Fatalf("params %q", m.Params)
		}
		// Re-encoding the key fields gives a message that decodes the same.
		var re []byte
		switch {
		case m.IsRequest():
			re = []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"method":` + string(AppendString(nil, m.Method)) + `}`)
		case m.IsNotification():
			re = AppendNotification(nil, m.Method, m.Params)
		case m.Result != nil:
			re = AppendResult(nil, m.ID, m.Result)
		default:
			re = []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":` + string(m.Error) + `}`)
		}
		m2, err := Decode(re)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", re, err)
		}
		if m2.Method != m.Method || string(m2.ID) != string(m.ID) {
			t.Fatalf("re-encoded %q decodes to method %q id %s, want %q %s", re, m2.Method, m2.ID, m.Method, m.ID)
		}
	})
}

// compactRaw is raw as encoding/json keeps it in a RawMessage: verbatim.
func compactRaw(raw json.RawMessage) json.RawMessage { return raw }

func BenchmarkDecode(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":{"progressToken":"p-1"}}}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		m, err := Decode(msg)
		if err != nil || m.Method != "tools/call" {
			b.Fatal(err)
		}
	}
}

func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

func TestLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		limits   Limits
		in       string
		wantCode int // 0: decodes
		wantMsg  string
		wantID   string
	}{
		{name: "arguments at the default depth", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"a":` + deep(DefaultMaxDepth-3) + `}}}`},
		{name: "arguments past the default depth", in: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"a":` + deep(DefaultMaxDepth-2) + `}}}`,
			wantCode: CodeInvalidRequest, wantMsg: "deeper than the limit of 64 levels", wantID: "1"},
		{name: "9,990 deep", in: `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"add","arguments":{"a":` + deep(9990) + `}}}`,
			wantCode: CodeInvalidRequest, wantMsg: "deeper than", wantID: `"x"`},
		{name: "a configured depth", limits: Limits{MaxDepth: 8}, in: `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":` + deep(7) + `}}`,
			wantCode: CodeInvalidRequest, wantMsg: "deeper than the limit of 8 levels", wantID: "1"},
		{name: "duplicate in params", in: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","name":"echo"}}`,
			wantCode: CodeInvalidParams, wantMsg: `Invalid params: duplicate member "name"`, wantID: "3"},
		{name: "duplicate in arguments", in: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"a":2}}}`,
			wantCode: CodeInvalidParams, wantMsg: `duplicate member "a"`, wantID: "3"},
		{name: "duplicate in a result", in: `{"jsonrpc":"2.0","id":4,"result":{"roots":[],"roots":[]}}`,
			wantCode: CodeInvalidRequest, wantMsg: `duplicate member "roots"`, wantID: "4"},
		{name: "duplicate in the envelope still named there", in: `{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
			wantCode: CodeInvalidRequest, wantMsg: `duplicate member "method"`, wantID: "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := tt.limits.Decode([]byte(tt.in))
			if tt.wantCode == 0 {
				require.NoError(t, err)
				require.NotNil(t, m)
				return
			}
			var de *DecodeError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, tt.wantCode, de.Code)
			assert.Contains(t, de.Message, tt.wantMsg)
			assert.Equal(t, tt.wantID, string(de.ID))
		})
	}
}

func TestBatchLimits(t *testing.T) {
	t.Parallel()
	elem := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	batch := func(n int) []byte { return []byte("[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]") }

	msgs, errs, err := DecodeBatch(batch(DefaultMaxBatch))
	require.NoError(t, err)
	assert.Len(t, msgs, DefaultMaxBatch)
	assert.Len(t, errs, DefaultMaxBatch)

	_, _, err = DecodeBatch(batch(36000))
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, CodeInvalidRequest, de.Code)
	assert.Contains(t, de.Message, "a batch of 36000 messages exceeds the limit of 100")

	_, _, err = Limits{MaxBatch: 2}.DecodeBatch(batch(3))
	require.ErrorAs(t, err, &de)
	assert.Contains(t, de.Message, "a batch of 3 messages exceeds the limit of 2;")

	_, _, err = Limits{MaxBatch: 2, Setting: "mcphttp.Options"}.DecodeBatch(batch(150))
	require.ErrorAs(t, err, &de)
	assert.Equal(t, "Invalid Request: a batch of 150 messages exceeds the limit of 2 (mcphttp.Options.MaxBatch); send fewer messages per POST", de.Message)

	_, err = Limits{MaxDepth: 4, Setting: "stdio.Options"}.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":` + deep(3) + `}}`))
	require.ErrorAs(t, err, &de)
	assert.Contains(t, de.Message, "deeper than the limit of 4 levels (stdio.Options.MaxDepth)")

	_, _, err = DecodeBatch([]byte("[" + deep(DefaultMaxDepth+1) + "]"))
	require.ErrorAs(t, err, &de)
	assert.Contains(t, de.Message, "deeper than the limit of 64 levels")

	// A duplicate inside one element fails that element only.
	msgs, errs, err = DecodeBatch([]byte(`[` + elem + `,{"jsonrpc":"2.0","id":2,"method":"m","params":{"x":1,"x":2}}]`))
	require.NoError(t, err)
	require.NoError(t, errs[0])
	assert.NotNil(t, msgs[0])
	require.ErrorAs(t, errs[1], &de)
	assert.Equal(t, CodeInvalidParams, de.Code)
	assert.Equal(t, "2", string(de.ID))
}

// TestDecodeMethodNames: a common method's name, plain or escaped, and an
// uncommon one decode to the name sent.
func TestDecodeMethodNames(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`"tools/call"`, "tools/call"},
		{`"tools\/call"`, "tools/call"},
		{`"notifications/initialized"`, "notifications/initialized"},
		{`"ping"`, "ping"},
		{`"tools/callx"`, "tools/callx"},
		{`"x/\u00e9"`, "x/é"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			m, err := Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":` + tt.raw + `}`))
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.Method)
		})
	}
}
