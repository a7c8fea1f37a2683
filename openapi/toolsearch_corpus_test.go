package openapi_test

import (
	"cmp"
	"encoding/json"
	"flag"
	"log/slog"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/openapi"
)

var updateCorpus = flag.Bool("update-corpus", false, "rewrite ../toolsearch/testdata/openapi-corpus.json (TestToolsearchCorpus)")

// corpusTool is what package toolsearch indexes of one tool (its TestRecall
// corpus), as ../toolsearch/testdata/openapi-corpus.json records it.
type corpusTool struct {
	Corpus          string      `json:"corpus"`
	Name            string      `json:"name"`
	Title           string      `json:"title,omitempty"`
	AnnotationTitle string      `json:"annotationTitle,omitempty"`
	Description     string      `json:"description,omitempty"`
	Tags            []string    `json:"tags,omitempty"`
	Args            []corpusArg `json:"args,omitempty"`
}

// corpusArg is a top-level argument, in the order toolsearch reads them,
// with its description (or title).
type corpusArg struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// TestToolsearchCorpus: the tools Discord's and Blockfrost's documents
// (testdata) become are those toolsearch's recall test reads from
// ../toolsearch/testdata/openapi-corpus.json. Package toolsearch is in the
// root module, which does not require this one, so its test reads them from
// that file; after a change to what Register makes, rewrite it with
//
//	go test -run TestToolsearchCorpus -update-corpus .
func TestToolsearchCorpus(t *testing.T) {
	t.Parallel()
	var all []corpusTool
	discord, err := discordTools()
	require.NoError(t, err)
	spec, err := os.ReadFile("testdata/blockfrost.yaml")
	require.NoError(t, err)
	srv := mcp.NewServer(mcp.Options{Name: "blockfrost", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, openapi.Register(srv, spec, openapi.Options{Lenient: true}))
	for _, c := range []struct {
		name  string
		tools []mcp.Tool
	}{{"discord", discord}, {"blockfrost", srv.ListTools(t.Context(), nil)}} {
		for _, tl := range c.tools {
			ct := corpusTool{Corpus: c.name, Name: tl.Name, Title: tl.Title, Description: tl.Description, Tags: tl.Tags}
			if tl.Annotations != nil {
				ct.AnnotationTitle = tl.Annotations.Title
			}
			if s := tl.InputSchema; s != nil && len(s.Properties) > 0 {
				names := s.PropertyOrder
				if len(names) == 0 {
					for n := range s.Properties {
						names = append(names, n)
					}
					slices.Sort(names)
				}
				for _, n := range names {
					a := corpusArg{Name: n}
					if p := s.Properties[n]; p != nil {
						a.Description = cmp.Or(p.Description, p.Title)
					}
					ct.Args = append(ct.Args, a)
				}
			}
			all = append(all, ct)
		}
	}
	var b []byte
	b = append(b, "[\n"...)
	for i, ct := range all {
		line, err := json.Marshal(ct)
		require.NoError(t, err)
		b = append(b, line...)
		if i < len(all)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	b = append(b, "]\n"...)
	const file = "../toolsearch/testdata/openapi-corpus.json"
	if *updateCorpus {
		require.NoError(t, os.WriteFile(file, b, 0o644))
		return
	}
	want, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, string(want), string(b), "%s is stale: rewrite it with go test -run TestToolsearchCorpus -update-corpus .", file)
}
