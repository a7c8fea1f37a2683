// Command bleve-compare measures bleve v2 (BM25 scoring, an in-memory
// index, the English analyzer) on the corpus and query set of package
// toolsearch's own BM25 (toolsearch/testdata/queries.json; Discord's and
// Blockfrost's operations as package openapi registers them), for
// BENCHMARKS.md's section on tool search. A module of its own, so that
// bleve never enters the root module's dependencies.
//
//	cd perf/bleve-compare && go run .
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/openapi"
)

// doc is what toolsearch indexes of a tool, field by field.
type doc struct{ name, title, desc, args, argDesc, tags string }

var camel = regexp.MustCompile(`([a-z0-9])([A-Z])`)

// split cuts a name at snake_case and camelCase joints, as toolsearch
// does (bleve's tokenizer keeps "get_user" whole).
func split(name string) string {
	return strings.NewReplacer("_", " ", "-", " ", ".", " ").Replace(camel.ReplaceAllString(name, "$1 $2"))
}

func docOf(t mcp.Tool) doc {
	d := doc{name: split(t.Name), title: t.Title, desc: t.Description, tags: strings.Join(t.Tags, " ")}
	if s := t.InputSchema; s != nil {
		var args, descs []string
		for n, p := range s.Properties {
			args = append(args, split(n))
			if p != nil {
				descs = append(descs, p.Description)
			}
		}
		sort.Strings(args)
		d.args, d.argDesc = strings.Join(args, " "), strings.Join(descs, "\n")
	}
	return d
}

func load(name string) []mcp.Tool {
	file := map[string]string{"discord": "discord.json", "blockfrost": "blockfrost.yaml"}[name]
	spec, err := os.ReadFile("../../openapi/testdata/" + file)
	check(err)
	srv := mcp.NewServer(mcp.Options{Name: name, Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	check(openapi.Register(srv, spec, openapi.Options{Lenient: true}))
	return srv.ListTools(context.Background(), nil)
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// fields are toolsearch's field weights, as bleve boosts.
var fields = map[string]float64{"name": 3, "title": 2, "desc": 1, "args": 1.5, "argdesc": 0.5, "tags": 2}

func build(docs map[string]doc) bleve.Index {
	im := bleve.NewIndexMapping()
	im.ScoringModel = "bm25"
	im.DefaultAnalyzer = en.AnalyzerName
	dm := mapping.NewDocumentMapping()
	for f := range fields {
		fm := mapping.NewTextFieldMapping()
		fm.Analyzer = en.AnalyzerName
		fm.Store, fm.IncludeTermVectors = false, false
		dm.AddFieldMappingsAt(f, fm)
	}
	im.DefaultMapping = dm
	idx, err := bleve.NewMemOnly(im)
	check(err)
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	b := idx.NewBatch()
	for _, id := range ids {
		d := docs[id]
		check(b.Index(id, map[string]string{"name": d.name, "title": d.title, "desc": d.desc, "args": d.args, "argdesc": d.argDesc, "tags": d.tags}))
		if b.Size() >= 1000 {
			check(idx.Batch(b))
			b = idx.NewBatch()
		}
	}
	check(idx.Batch(b))
	return idx
}

// search is a match query on every field, boosted by its weight.
func search(idx bleve.Index, q string, k int) []string {
	var qs []query.Query
	for f, boost := range fields {
		m := bleve.NewMatchQuery(q)
		m.SetField(f)
		m.SetBoost(boost)
		qs = append(qs, m)
	}
	res, err := idx.Search(bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), k, 0, false))
	check(err)
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	return out
}

func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	raw, err := os.ReadFile("../../toolsearch/testdata/queries.json")
	check(err)
	var qs []struct{ Corpus, Request, Want string }
	check(json.Unmarshal(raw, &qs))
	corpora := map[string][]mcp.Tool{"discord": load("discord"), "blockfrost": load("blockfrost")}
	idxs := map[string]bleve.Index{}
	for c, tools := range corpora {
		m := map[string]doc{}
		for _, t := range tools {
			m[t.Name] = docOf(t)
		}
		idxs[c] = build(m)
	}
	var all [3]int
	per := map[string]*[3]int{"discord": {}, "blockfrost": {}}
	for _, q := range qs {
		got := search(idxs[q.Corpus], q.Request, 5)
		for i, k := range []int{1, 3, 5} {
			for j := 0; j < k && j < len(got); j++ {
				if got[j] == q.Want {
					all[i]++
					per[q.Corpus][i]++
				}
			}
		}
	}
	fmt.Printf("recall (requests found among the first 1, 3, 5): all %d/%d/%d of %d; discord %v; blockfrost %v\n",
		all[0], all[1], all[2], len(qs), *per["discord"], *per["blockfrost"])

	// 10,017 tools: both corpora under 27 prefixes, as toolsearch's
	// benchmarks list them.
	big := map[string]doc{}
	for p := range 27 {
		for _, c := range []string{"discord", "blockfrost"} {
			for _, t := range corpora[c] {
				big[fmt.Sprintf("s%d_%s", p, t.Name)] = docOf(t)
			}
		}
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0, t0 := cpu(), time.Now()
	idx := build(big)
	buildCPU, buildWall := cpu()-c0, time.Since(t0)
	runtime.GC()
	runtime.ReadMemStats(&m1)
	const rounds = 10
	c0, t0 = cpu(), time.Now()
	for range rounds {
		for _, q := range qs {
			search(idx, q.Request, 5)
		}
	}
	n := time.Duration(rounds * len(qs))
	fmt.Printf("%d tools: build %v CPU (%v wall), heap %.1f MB; a query %v CPU (%v wall), mean of %d\n",
		len(big), buildCPU, buildWall, float64(m1.HeapAlloc-m0.HeapAlloc)/1e6, (cpu()-c0)/n, time.Since(t0)/n, n)
}
