package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpchain/mcp/internal/redistest"
)

// The client matrix: every client implementation × every transport of
// examples/everything × every revision the client negotiates by default or
// can be pinned to, each cell running the same behaviours. A cell or a
// behaviour that cannot work is listed with its reason (matrixLimits), never
// left out; a listed limit that starts to pass is reported as passing. The
// table goes to the test log and to $MATRIX_TABLE (make e2e prints it).

// matrixBehaviours are the behaviours of every cell, in table order.
var matrixBehaviours = []string{
	"list+call", "structured", "bad-arg", "unknown-tool", "resources", "prompts", "progress",
	"cancel+more", "concurrent-20", "timeout", "logging", "sampling", "elicitation",
}

// matrixTransport is a way to serve examples/everything.
type matrixTransport struct {
	name string
	args []string // the server's flags (HTTP transports)
	sse  bool     // the client speaks the deprecated HTTP+SSE transport at /sse
}

var matrixTransports = []matrixTransport{
	{name: "stdio"},
	{name: "http"},
	{name: "stateless", args: []string{"-stateless"}},
	{name: "json", args: []string{"-json"}},
	{name: "resumable", args: []string{"-resumable"}}, // with -redis, added at start
	{name: "legacy-sse", args: []string{"-legacy-sse"}, sse: true},
}

// outcome is one behaviour's result in one cell.
type outcome struct {
	Status string `json:"status"` // pass, fail, or n/a (see matrixLimits)
	Detail string `json:"detail"`
}

// matrixCell is one row of the table.
type matrixCell struct {
	client, transport, revision string
	negotiated                  string             // the revision the client ended up speaking
	skip                        string             // why the whole cell cannot run
	results                     map[string]outcome // by behaviour
}

// matrixLimit is a known limit: the behaviour cannot work in such a cell,
// for the reason given. Empty fields match anything.
type matrixLimit struct {
	client, transport, revision, behaviour, reason string
}

func (l matrixLimit) matches(c *matrixCell, behaviour string) bool {
	match := func(want, got string) bool { return want == "" || want == got }
	rev := c.negotiated
	if rev == "" {
		rev = c.revision
	}
	return match(l.client, c.client) && match(l.transport, c.transport) &&
		(l.revision == "" || strings.HasPrefix(rev, l.revision)) && match(l.behaviour, behaviour)
}

// The limits of the transports themselves, whatever the client.
const (
	noStatelessPeer = "stateless at a 2025 revision: no session keeps the client's capabilities or carries its answer back to a tool's question, so the tool answers isError"
	noJSONStream    = "-json answers each POST with one JSON object: a message sent during a request (progress, a log message, at 2025 revisions a question to the client) has no stream to travel on, and the server logs it at debug level"
)

var matrixLimits = []matrixLimit{
	{transport: "stateless", revision: "2025-", behaviour: "sampling", reason: noStatelessPeer},
	{transport: "stateless", revision: "2025-", behaviour: "elicitation", reason: noStatelessPeer},
	{transport: "json", behaviour: "progress", reason: noJSONStream},
	{transport: "json", behaviour: "logging", reason: noJSONStream},
	{transport: "json", revision: "2025-", behaviour: "sampling", reason: noJSONStream},
	{transport: "json", revision: "2025-", behaviour: "elicitation", reason: noJSONStream},
}

// limitFor returns the reason a behaviour cannot work in c, or "".
func limitFor(c *matrixCell, behaviour string) string {
	for _, l := range matrixLimits {
		if l.matches(c, behaviour) {
			return l.reason
		}
	}
	return ""
}

// matrixServers holds one examples/everything process per HTTP transport,
// shared by every client and revision.
type matrixServers struct {
	mu   sync.Mutex
	t    *testing.T
	urls map[string]string
}

func (s *matrixServers) url(tr matrixTransport) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.urls[tr.name]; ok {
		return u
	}
	args := tr.args
	if tr.name == "resumable" {
		args = append([]string{"-redis", "redis://" + redistest.Start(s.t) + "/0"}, args...)
	}
	u := httpServer(s.t, args...)
	if tr.sse {
		u = strings.TrimSuffix(u, "/mcp") + "/sse"
	}
	s.urls[tr.name] = u
	return u
}

func TestClientMatrix(t *testing.T) {
	t.Parallel()
	bin := requireBinary(t)
	servers := &matrixServers{t: t, urls: map[string]string{}}

	var cells []*matrixCell
	add := func(client, transport, revision, skip string) *matrixCell {
		c := &matrixCell{client: client, transport: transport, revision: revision, skip: skip, results: map[string]outcome{}}
		cells = append(cells, c)
		return c
	}
	type job struct {
		cell *matrixCell
		run  func(c *matrixCell)
	}
	var jobs []job

	// go-sdk v1.8.0: its default (2026-07-28 through server/discover) and
	// each older revision it can be pinned to; 2024-11-05 only over HTTP+SSE.
	for _, tr := range matrixTransports {
		revs := []string{"default", "2025-11-25", "2025-06-18", "2025-03-26"}
		if tr.sse {
			revs = []string{"2024-11-05"}
		}
		for _, rev := range revs {
			c := add("go-sdk v1.8.0", tr.name, rev, "")
			tr, rev := tr, rev
			jobs = append(jobs, job{c, func(c *matrixCell) { runGoSDKCell(t, c, tr, rev, bin, servers) }})
		}
	}
	// The TypeScript SDK v1 (1.32.2): 2025-11-25, its only revision (it
	// cannot be pinned).
	for _, tr := range matrixTransports {
		c := add("ts-sdk v1.32.2", tr.name, "default", "")
		tr := tr
		jobs = append(jobs, job{c, func(c *matrixCell) { runTSCell(t, c, "v1", "default", tr, bin, servers) }})
	}
	// The TypeScript SDK v2 client (2.4.0) in its three version
	// negotiation modes: 'legacy' (its default: initialize, 2025-11-25),
	// 'auto', and pinned to 2026-07-28; the deprecated HTTP+SSE transport
	// has no 2026 revision.
	for _, tr := range matrixTransports {
		for _, mode := range []string{"legacy", "auto", "pin:2026-07-28"} {
			if tr.sse && mode != "legacy" {
				add("ts-sdk v2.4.0", tr.name, mode, "the deprecated HTTP+SSE transport has no revision 2026-07-28: the client's "+mode+" mode needs server/discover")
				continue
			}
			c := add("ts-sdk v2.4.0", tr.name, mode, "")
			tr, mode := tr, mode
			jobs = append(jobs, job{c, func(c *matrixCell) { runTSCell(t, c, "v2", mode, tr, bin, servers) }})
		}
	}
	// The MCP Inspector CLI (2.12.0): --protocol-era legacy (its default)
	// and modern: the inspector's own names for the 2025 revisions and
	// 2026-07-28.
	for _, tr := range matrixTransports {
		for _, era := range []string{"legacy", "modern"} {
			if tr.sse && era == "modern" {
				add("inspector-cli 2.12.0", tr.name, era, "the deprecated HTTP+SSE transport has no revision 2026-07-28")
				continue
			}
			c := add("inspector-cli 2.12.0", tr.name, era, "")
			tr, era := tr, era
			jobs = append(jobs, job{c, func(c *matrixCell) { runInspectorCell(t, c, era, tr, bin, servers) }})
		}
	}
	// mcpchain's own client (package client): its default (2025-11-25),
	// 2026-07-28 and 2025-03-26; over HTTP+SSE, that transport's one
	// revision.
	for _, tr := range matrixTransports {
		revs := mcpchainRevisions
		if tr.sse {
			revs = []string{"2024-11-05"}
		}
		for _, rev := range revs {
			c := add("mcpchain client", tr.name, rev, "")
			tr, rev := tr, rev
			jobs = append(jobs, job{c, func(c *matrixCell) { runMcpchainCell(c, tr, rev, bin, servers) }})
		}
	}

	// The servers first (a failure to start fails the test here, on the
	// test's goroutine), then the cells, twelve at a time: most of a cell's
	// time is spent waiting (timeouts, cancellations, Node's start). Alone
	// on the 2-core machine the matrix used a third of the CPU six at a
	// time (231 s); twelve take 142 s for the same CPU time.
	for _, tr := range matrixTransports {
		if tr.name != "stdio" {
			servers.url(tr)
		}
	}
	sem := make(chan struct{}, 12)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			j.run(j.cell)
		}()
	}
	wg.Wait()

	table := matrixTable(cells)
	t.Logf("client matrix:\n%s", table)
	if path := os.Getenv("MATRIX_TABLE"); path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			_ = os.WriteFile(path, []byte(table), 0o644)
		}
	}
	for _, c := range cells {
		for _, b := range matrixBehaviours {
			if o, ok := c.results[b]; ok && o.Status == "fail" {
				t.Errorf("%s × %s × %s: %s: %s", c.client, c.transport, c.revisionLabel(), b, o.Detail)
			}
		}
	}
}

func (c *matrixCell) revisionLabel() string {
	switch {
	case c.negotiated == "" || c.negotiated == c.revision:
		return c.revision
	default:
		return c.revision + " → " + c.negotiated
	}
}

// record sets a behaviour's outcome from its error, applying the known
// limits: a failure a limit explains is n/a with the limit's reason.
func (c *matrixCell) record(behaviour string, err error, detail string) {
	if err == nil {
		c.results[behaviour] = outcome{Status: "pass", Detail: detail}
		return
	}
	if reason := limitFor(c, behaviour); reason != "" {
		c.results[behaviour] = outcome{Status: "n/a", Detail: reason + " (" + err.Error() + ")"}
		return
	}
	c.results[behaviour] = outcome{Status: "fail", Detail: err.Error()}
}

// notApplicable marks behaviours the client cannot perform at all.
func (c *matrixCell) notApplicable(reason string, behaviours ...string) {
	for _, b := range behaviours {
		c.results[b] = outcome{Status: "n/a", Detail: reason}
	}
}

// matrixSummary renders one row per client and revision with a column
// per transport: how many behaviours passed, were n/a, or failed.
func matrixSummary(cells []*matrixCell) string {
	type rowKey struct{ client, revision string }
	var rows []rowKey
	byRow := map[rowKey]map[string]*matrixCell{}
	for _, c := range cells {
		k := rowKey{c.client, c.revision}
		if byRow[k] == nil {
			rows = append(rows, k)
			byRow[k] = map[string]*matrixCell{}
		}
		byRow[k][c.transport] = c
	}
	var b strings.Builder
	b.WriteString("| client | revision |")
	for _, tr := range matrixTransports {
		b.WriteString(" " + tr.name + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(matrixTransports)) + "\n")
	for _, k := range rows {
		rev := k.revision
		for _, c := range byRow[k] {
			if c.negotiated != "" && c.negotiated != c.revision {
				rev = c.revision + " → " + c.negotiated
			}
		}
		fmt.Fprintf(&b, "| %s | %s |", k.client, rev)
		for _, tr := range matrixTransports {
			c := byRow[k][tr.name]
			if c == nil || c.skip != "" {
				b.WriteString(" – |")
				continue
			}
			pass, na, fail := 0, 0, 0
			for _, name := range matrixBehaviours {
				switch c.results[name].Status {
				case "pass":
					pass++
				case "n/a":
					na++
				default:
					fail++
				}
			}
			cell := fmt.Sprintf(" ✓ %d", pass)
			if na > 0 {
				cell += fmt.Sprintf(", n/a %d", na)
			}
			if fail > 0 {
				cell += fmt.Sprintf(", ✗ %d", fail)
			}
			b.WriteString(cell + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// matrixTable renders the summary, then every cell as a row of a Markdown
// table, then the details of everything that did not pass.
func matrixTable(cells []*matrixCell) string {
	var b strings.Builder
	b.WriteString(matrixSummary(cells))
	b.WriteString("\n")
	b.WriteString("| client | transport | revision |")
	for _, name := range matrixBehaviours {
		b.WriteString(" " + name + " |")
	}
	b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(matrixBehaviours)) + "\n")
	var notes []string
	passed, failed, na := 0, 0, 0
	for _, c := range cells {
		fmt.Fprintf(&b, "| %s | %s | %s |", c.client, c.transport, c.revisionLabel())
		for _, name := range matrixBehaviours {
			o, ok := c.results[name]
			switch {
			case c.skip != "":
				b.WriteString(" – |")
			case !ok:
				b.WriteString(" ? |")
				notes = append(notes, fmt.Sprintf("%s × %s × %s: %s: not run", c.client, c.transport, c.revisionLabel(), name))
				failed++
			case o.Status == "pass":
				b.WriteString(" ✓ |")
				passed++
			case o.Status == "n/a":
				b.WriteString(" n/a |")
				na++
			default:
				b.WriteString(" ✗ |")
				failed++
			}
			if ok && o.Status != "pass" {
				notes = append(notes, fmt.Sprintf("%s × %s × %s: %s: %s: %s", c.client, c.transport, c.revisionLabel(), name, o.Status, o.Detail))
			}
		}
		b.WriteString("\n")
		if c.skip != "" {
			notes = append(notes, fmt.Sprintf("%s × %s × %s: not run: %s", c.client, c.transport, c.revision, c.skip))
		}
	}
	fmt.Fprintf(&b, "\n%d passed, %d failed, %d n/a\n", passed, failed, na)
	sort.Strings(notes)
	if len(notes) > 0 {
		b.WriteString("\nNot passing, and why:\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	return b.String()
}
