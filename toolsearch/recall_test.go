package toolsearch

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
)

// corpus loads the tools an OpenAPI document of openapi/testdata becomes,
// once per test binary, from testdata/openapi-corpus.json: what this index
// reads of each tool (name, titles, description, tags, top-level arguments
// in order with their descriptions). Package openapi is a module of its own,
// which this one does not require; its TestToolsearchCorpus keeps the file
// equal to what openapi.Register makes of those documents.
var corpora sync.Map // name → []mcp.Tool

func corpus(t testing.TB, name string) []mcp.Tool {
	t.Helper()
	if v, ok := corpora.Load(name); ok {
		return v.([]mcp.Tool)
	}
	b, err := os.ReadFile("testdata/openapi-corpus.json")
	require.NoError(t, err)
	var recorded []struct {
		Corpus, Name, Title, AnnotationTitle, Description string
		Tags                                              []string
		Args                                              []struct{ Name, Description string }
	}
	require.NoError(t, json.Unmarshal(b, &recorded))
	var tools []mcp.Tool
	for _, r := range recorded {
		if r.Corpus != name {
			continue
		}
		tl := mcp.Tool{Name: r.Name, Title: r.Title, Description: r.Description, Tags: r.Tags}
		if r.AnnotationTitle != "" {
			tl.Annotations = &mcp.ToolAnnotations{Title: r.AnnotationTitle}
		}
		if len(r.Args) > 0 {
			tl.InputSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}}
			for _, a := range r.Args {
				tl.InputSchema.Properties[a.Name] = &jsonschema.Schema{Description: a.Description}
				tl.InputSchema.PropertyOrder = append(tl.InputSchema.PropertyOrder, a.Name)
			}
		}
		tools = append(tools, tl)
	}
	require.NotEmpty(t, tools, "testdata/openapi-corpus.json has no tools of %s", name)
	corpora.Store(name, tools)
	return tools
}

// regexFor is the pattern a model that writes keyword alternations would
// send for a request: its terms (as the index cuts them) joined by |.
func regexFor(request string) string {
	var alts []string
	for _, term := range queryTerms(request) {
		alts = append(alts, regexp.QuoteMeta(term))
	}
	return strings.Join(alts, "|")
}

// recall counts the requests of a query set whose tool is among the
// first k results, for k = 1, 3, 5, with BM25 and with regexFor's
// patterns.
type recall struct{ bm25, regex [3]int }

func measureRecall(t testing.TB, qs []query) (recall, []string) {
	t.Helper()
	var r recall
	var misses []string
	snaps := map[string]*snapshot{}
	for _, q := range qs {
		s := snaps[q.Corpus]
		if s == nil {
			s = newIndex().snapshot(corpus(t, q.Corpus))
			snaps[q.Corpus] = s
		}
		var bm, re []string
		for _, h := range s.bm25(queryTerms(q.Request), 5) {
			bm = append(bm, s.docs[h.doc].name)
		}
		rx, err := compilePattern(regexFor(q.Request))
		require.NoError(t, err)
		hits, stopped := s.regexSearch(t.Context(), rx, 5, time.Minute)
		require.False(t, stopped)
		for _, h := range hits {
			re = append(re, s.docs[h].name)
		}
		for i, k := range []int{1, 3, 5} {
			if rank(bm, q.Want) < k {
				r.bm25[i]++
			}
			if rank(re, q.Want) < k {
				r.regex[i]++
			}
		}
		if rank(bm, q.Want) >= 5 {
			misses = append(misses, fmt.Sprintf("%s: %q wants %s, got %v", q.Corpus, q.Request, q.Want, bm))
		}
	}
	return r, misses
}

// of is the requests of the query set on one corpus.
func of(corpus string) []query {
	var out []query
	for _, q := range querySet {
		if q.Corpus == corpus {
			out = append(out, q)
		}
	}
	return out
}

func rank(names []string, want string) int {
	for i, n := range names {
		if n == want {
			return i
		}
	}
	return len(names) + 100
}

// TestRecall measures recall at 1, 3 and 5 on the query set (see
// queries_test.go), for BM25 and for keyword-alternation patterns, and
// holds the figures as floors. BENCHMARKS.md has them.
func TestRecall(t *testing.T) {
	t.Parallel()
	require.GreaterOrEqual(t, len(querySet), 50)
	for _, tc := range []struct {
		name  string
		qs    []query
		floor recall
	}{
		// The floors are the counts measured when the set was written.
		{"discord", of("discord"), recall{bm25: [3]int{10, 17, 21}, regex: [3]int{4, 8, 9}}},
		{"blockfrost", of("blockfrost"), recall{bm25: [3]int{12, 20, 21}, regex: [3]int{2, 6, 8}}},
		{"all", querySet, recall{bm25: [3]int{22, 37, 42}, regex: [3]int{6, 14, 17}}},
	} {
		r, misses := measureRecall(t, tc.qs)
		n := float64(len(tc.qs))
		t.Logf("%s (%d requests): BM25 recall@1 %.2f (%d) @3 %.2f (%d) @5 %.2f (%d); regex recall@1 %.2f (%d) @3 %.2f (%d) @5 %.2f (%d)",
			tc.name, len(tc.qs), float64(r.bm25[0])/n, r.bm25[0], float64(r.bm25[1])/n, r.bm25[1], float64(r.bm25[2])/n, r.bm25[2],
			float64(r.regex[0])/n, r.regex[0], float64(r.regex[1])/n, r.regex[1], float64(r.regex[2])/n, r.regex[2])
		if tc.name == "all" {
			for _, m := range misses {
				t.Log("BM25 miss:", m)
			}
		}
		for i := range 3 {
			assert.GreaterOrEqual(t, r.bm25[i], tc.floor.bm25[i], "BM25 recall@%d", []int{1, 3, 5}[i])
			assert.GreaterOrEqual(t, r.regex[i], tc.floor.regex[i], "regex recall@%d", []int{1, 3, 5}[i])
		}
	}
}
