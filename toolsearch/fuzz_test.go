package toolsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"unicode/utf8"

	"github.com/mcpchain/mcp"
)

// fuzzTools is a small catalog for the fuzz targets.
func fuzzTools() []mcp.Tool {
	return []mcp.Tool{
		{Name: "delete_guild_member", Description: "Kick a member", Tags: []string{"admin"}},
		{Name: "getUserProfile", Title: "Profile", Description: "Read a user's profile (HTTPServer v2)"},
		{Name: "send_email", Description: "Send a message to someone's inbox — émoji ✓"},
	}
}

// FuzzQuery: any query or pattern a client sends is analysed, searched
// and matched without a panic; results are at most the limit, and every
// term a query yields is non-empty valid text.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{"", "kick a member", "getUserProfile", "(?i)^send_.*", "a{1000}", `\xff\xfe`, "((((", "ÉMOJI ✓", "x\x00y"} {
		f.Add(s, 3)
	}
	snap := newIndex().snapshot(fuzzTools())
	f.Fuzz(func(t *testing.T, q string, limit int) {
		limit = limit%60 - 5
		for _, term := range queryTerms(q) {
			if term == "" || !utf8.ValidString(term) && utf8.ValidString(q) {
				t.Fatalf("term %q of %q", term, q)
			}
		}
		if len(queryTerms(q)) > maxQueryTerms {
			t.Fatalf("%d terms", len(queryTerms(q)))
		}
		if got := snap.bm25(queryTerms(q), limit); len(got) > max(limit, 0) {
			t.Fatalf("%d results for limit %d", len(got), limit)
		}
		re, err := compilePattern(q)
		if err != nil {
			return
		}
		hits, _ := snap.regexSearch(context.Background(), re, limit, regexBudget)
		if len(hits) > max(limit, 0) {
			t.Fatalf("%d matches for limit %d", len(hits), limit)
		}
	})
}

// FuzzCallRewrite: the interceptor reads any params of a tools/call
// without a panic. What it hands the engine is either the request as it
// came or a tools/call of a tool other than the search and call tools,
// whose other members are the request's.
func FuzzCallRewrite(f *testing.F) {
	for _, s := range []string{
		`{"name":"call_tool","arguments":{"name":"status","arguments":{"a":1}},"_meta":{"progressToken":1}}`,
		`{"name":"call\u005ftool","arguments":{"name":"search_tools"}}`,
		`{"name":"call_tool","arguments":{"name":"x","arguments":[1]}}`,
		`{"name":"call_tool","arguments":{"name":"x","extra":1}}`,
		`{"name":"call_tool","arguments":null}`,
		`{"name":"call_tool"}`, `[]`, `null`, `{"name":1}`,
	} {
		f.Add([]byte(s))
	}
	srv := mcp.NewServer(mcp.Options{Name: "f", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	s, err := New(srv, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		var got []byte
		next := func(_ context.Context, c *mcp.Call) (any, error) {
			got = c.Params
			return &mcp.ContentResult{}, nil
		}
		if _, err := s.intercept(next)(context.Background(), &mcp.Call{Method: "tools/call", ID: json.RawMessage("1"), Params: params}); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(got, params) {
			return
		}
		var in, out map[string]json.RawMessage
		if json.Unmarshal(params, &in) != nil || json.Unmarshal(got, &out) != nil {
			t.Fatalf("rewrote %s into %s", params, got)
		}
		var name string
		if json.Unmarshal(out["name"], &name) != nil || name == "" || name == s.callName || name == s.searchName {
			t.Fatalf("rewrote %s into a call of %q", params, name)
		}
		for k, v := range in {
			var want, have bytes.Buffer
			_ = json.Compact(&want, v)
			_ = json.Compact(&have, out[k])
			if k != "name" && k != "arguments" && !bytes.Equal(want.Bytes(), have.Bytes()) {
				t.Fatalf("member %s changed: %s → %s", k, v, out[k])
			}
		}
		if a := out["arguments"]; len(a) == 0 || a[0] != '{' {
			t.Fatalf("arguments %s", a)
		}
	})
}
