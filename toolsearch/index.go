package toolsearch

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mcpchain/mcp"
)

// BM25's parameters: k1 saturates a term's frequency, b weighs a tool's
// length against the average. The usual values.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// The weight of a term by the field it comes from: a word of the name
// says most about what a tool does, one of an argument's description
// least.
const (
	weightName    = 3
	weightTitle   = 2
	weightTag     = 2
	weightDesc    = 1
	weightArg     = 1.5
	weightArgDesc = 0.5
)

// maxArgs bounds the arguments of one tool that are analysed.
const maxArgs = 256

// doc is one tool as the index knows it: the fields of the mcp.Tool it was
// made from (to tell whether a listed tool is still that one), its terms,
// and what a result shows of it.
type doc struct {
	name, title, desc string
	schema            *jsonschema.Schema
	ann               *mcp.ToolAnnotations
	tags              []string

	terms  []termFreq // sorted by term
	length float64    // the sum of the weighted frequencies

	// The texts a regular expression is matched against, by rank: the
	// name, then the title and description, then the arguments (names
	// and descriptions) and tags.
	reName, reText, reArgs string

	encOnce sync.Once
	enc     json.RawMessage // the result form, made on first use
}

type termFreq struct {
	term string
	tf   float64
}

// same reports whether t is still the tool d was made from. Strings that
// share their bytes compare in constant time, so a tool that did not
// change costs a few comparisons.
func (d *doc) same(t *mcp.Tool) bool {
	return t.Name == d.name && t.InputSchema == d.schema && t.Description == d.desc &&
		t.Title == d.title && t.Annotations == d.ann && slices.Equal(t.Tags, d.tags)
}

// newDoc analyses t.
func newDoc(t *mcp.Tool) *doc {
	d := &doc{name: t.Name, title: t.Title, desc: t.Description, schema: t.InputSchema,
		ann: t.Annotations, tags: slices.Clone(t.Tags)}
	freq := map[string]float64{}
	add := func(s string, w float64) {
		terms(s, 0, func(term string) { freq[term] += w })
	}
	add(t.Name, weightName)
	add(t.Title, weightTitle)
	if t.Annotations != nil && t.Annotations.Title != t.Title {
		add(t.Annotations.Title, weightTitle)
	}
	add(t.Description, weightDesc)
	var args strings.Builder
	for _, tag := range t.Tags {
		add(tag, weightTag)
		args.WriteString(tag)
		args.WriteByte('\n')
	}
	for i, name := range argNames(t.InputSchema) {
		if i == maxArgs {
			break
		}
		add(name, weightArg)
		args.WriteString(name)
		args.WriteByte('\n')
		if p := t.InputSchema.Properties[name]; p != nil {
			desc := cmp.Or(p.Description, p.Title)
			add(desc, weightArgDesc)
			if desc != "" {
				args.WriteString(clip(desc))
				args.WriteByte('\n')
			}
		}
	}
	d.terms = make([]termFreq, 0, len(freq))
	for term, tf := range freq {
		d.terms = append(d.terms, termFreq{term, tf})
		d.length += tf
	}
	slices.SortFunc(d.terms, func(a, b termFreq) int { return strings.Compare(a.term, b.term) })
	d.reName = t.Name
	d.reText = clip(t.Title + "\n" + t.Description)
	d.reArgs = clip(args.String())
	return d
}

// clip cuts s to maxFieldBytes.
func clip(s string) string {
	if len(s) > maxFieldBytes {
		return s[:maxFieldBytes]
	}
	return s
}

// argNames are the names of the top-level properties of s, in the
// schema's order when it has one, else sorted.
func argNames(s *jsonschema.Schema) []string {
	if s == nil || len(s.Properties) == 0 {
		return nil
	}
	if len(s.PropertyOrder) > 0 {
		return s.PropertyOrder
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// result is what a search returns of one tool: enough to call it.
type result struct {
	Name        string               `json:"name"`
	Title       string               `json:"title,omitempty"`
	Description string               `json:"description,omitempty"`
	InputSchema *jsonschema.Schema   `json:"inputSchema"`
	Annotations *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// encoded is d's result form, encoded once.
func (d *doc) encoded() json.RawMessage {
	d.encOnce.Do(func() {
		in := d.schema
		if in == nil {
			in = &jsonschema.Schema{Type: "object"}
		}
		b, err := json.Marshal(result{d.name, d.title, d.desc, in, d.ann})
		if err != nil { // the tool encoded when it was registered
			b, _ = json.Marshal(result{Name: d.name, Description: d.desc, InputSchema: &jsonschema.Schema{Type: "object"}})
		}
		d.enc = b
	})
	return d.enc
}

// snapshot is the index of one list of tools, as one caller sees it: the
// tools in list order and, for each term, the tools that have it. It is
// immutable once built, so queries run on it without a lock.
type snapshot struct {
	docs     []*doc
	postings map[string][]posting
	avgLen   float64
}

type posting struct {
	doc int32 // index into docs
	tf  float64
}

func newSnapshot(docs []*doc) *snapshot {
	s := &snapshot{docs: docs, postings: map[string][]posting{}}
	var total float64
	for i, d := range docs {
		total += d.length
		for _, tf := range d.terms {
			s.postings[tf.term] = append(s.postings[tf.term], posting{int32(i), tf.tf})
		}
	}
	if len(docs) > 0 {
		s.avgLen = total / float64(len(docs))
	}
	return s
}

// scored is a tool of a snapshot and its score for a query.
type scored struct {
	doc   int
	score float64
}

// scoresPool holds score arrays, one per query in flight.
var scoresPool sync.Pool

// bm25 returns the best limit tools of s for the query's terms (already
// analysed and without repeats), best first, ties in list order; tools
// that share no term with the query are not returned.
func (s *snapshot) bm25(query []string, limit int) []scored {
	n := len(s.docs)
	if n == 0 || len(query) == 0 || limit <= 0 {
		return nil
	}
	p, _ := scoresPool.Get().(*[]float64)
	if p == nil || cap(*p) < n {
		p = new(make([]float64, n))
	}
	scores := (*p)[:n]
	clear(scores)
	defer scoresPool.Put(p)
	var touched []int32
	for _, term := range query {
		post := s.postings[term]
		if len(post) == 0 {
			continue
		}
		df := float64(len(post))
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		for _, ps := range post {
			d := s.docs[ps.doc]
			norm := bm25K1 * (1 - bm25B + bm25B*d.length/s.avgLen)
			if scores[ps.doc] == 0 {
				touched = append(touched, ps.doc)
			}
			scores[ps.doc] += idf * ps.tf * (bm25K1 + 1) / (ps.tf + norm)
		}
	}
	best := make([]scored, 0, min(limit, len(touched))+1)
	for _, i := range touched {
		sc := scored{int(i), scores[i]}
		if len(best) == limit && !better(sc, best[len(best)-1]) {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, sc, func(a, b scored) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		best = slices.Insert(best, at, sc)
		if len(best) > limit {
			best = best[:limit]
		}
	}
	return best
}

// better orders results: higher score first, then earlier in the list.
func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc < b.doc
}

// maxSnapshots bounds the snapshots kept: one per distinct view of the
// catalog (callers whose access or session differ see different lists).
const maxSnapshots = 16

// index keeps the analysed tools and the snapshots of recent lists. A
// search lists the caller's tools (the server's own listing, with every
// access check) and looks for the snapshot of exactly that list: tool by
// tool, each compared with the snapshot's (a few comparisons while the
// tool did not change). When none fits, it finds the doc of each tool
// (analysed once, while the tool does not change) and builds the
// snapshot. A snapshot is shared only by callers who see the same tools,
// so what one caller alone sees (its session's tools) never reaches
// another's results, nor the statistics that rank them.
type index struct {
	mu     sync.Mutex
	byName map[string][]*doc
	snaps  []*snapshot // most recently used first
}

func newIndex() *index {
	return &index{byName: map[string][]*doc{}}
}

// snapshot returns the snapshot of tools, building what is missing.
func (x *index) snapshot(tools []mcp.Tool) *snapshot {
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, s := range x.snaps {
		if s.fits(tools) {
			copy(x.snaps[1:i+1], x.snaps[:i])
			x.snaps[0] = s
			return s
		}
	}
	docs := make([]*doc, len(tools))
	for i := range tools {
		docs[i] = x.docLocked(&tools[i])
	}
	s := newSnapshot(docs)
	x.snaps = slices.Insert(x.snaps, 0, s)
	if len(x.snaps) > maxSnapshots {
		x.snaps = x.snaps[:maxSnapshots]
		x.sweepLocked()
	}
	return s
}

// fits reports whether s is the snapshot of tools.
func (s *snapshot) fits(tools []mcp.Tool) bool {
	if len(s.docs) != len(tools) {
		return false
	}
	for i := range tools {
		if !s.docs[i].same(&tools[i]) {
			return false
		}
	}
	return true
}

// docLocked returns the doc of t, analysing it when it is new or changed.
func (x *index) docLocked(t *mcp.Tool) *doc {
	for _, d := range x.byName[t.Name] {
		if d.same(t) {
			return d
		}
	}
	d := newDoc(t)
	x.byName[t.Name] = append(x.byName[t.Name], d)
	return d
}

// sweepLocked drops every doc no kept snapshot holds: the docs of tools
// that were removed or changed, or that belonged to lists (sessions) no
// longer kept.
func (x *index) sweepLocked() {
	live := map[*doc]bool{}
	for _, s := range x.snaps {
		for _, d := range s.docs {
			live[d] = true
		}
	}
	for name, ds := range x.byName {
		ds = slices.DeleteFunc(ds, func(d *doc) bool { return !live[d] })
		if len(ds) == 0 {
			delete(x.byName, name)
		} else {
			x.byName[name] = ds
		}
	}
}
