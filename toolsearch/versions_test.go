package toolsearch_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// A search sees the versions of a tool (mcp.Tool.Version) the request's
// version filter (mcp.WithVersionFilter) admits, as tools/list does: a
// tool whose every version the filter hides is never found, by words or
// by pattern, and call_tool cannot call it; a tool found is described by
// the version the caller gets, never by a newer one it may not use. The
// callers share one index, the newest first, so a snapshot built from
// the versions one caller sees must not answer another.
func TestSearchHonoursVersionFilter(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	for _, v := range []struct{ version, desc, answer string }{
		{"1.0.0", "Export the quarterly report as a CSV spreadsheet", "csv"},
		{"2.0.0", "Export the quarterly report as a PDF with charts", "pdf"},
	} {
		mcp.AddTool(srv, mcp.Tool{Name: "export_report", Version: v.version, Description: v.desc},
			func(context.Context, *mcp.Context, struct{}) (string, error) { return v.answer, nil })
	}
	mcp.AddTool(srv, mcp.Tool{Name: "archive_notes", Version: "2.1.0", Description: "Archive old notes into cold storage"},
		func(context.Context, *mcp.Context, struct{}) (string, error) { return "archived", nil })
	s, err := toolsearch.New(srv, &toolsearch.Options{MaxResults: 50})
	require.NoError(t, err)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	// X-Major chooses the major version a caller may use.
	byMajor := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if major := r.Header.Get("X-Major"); major != "" {
				r = r.WithContext(mcp.WithVersionFilter(r.Context(), func(v string) bool { return strings.HasPrefix(v, major+".") }))
			}
			next.ServeHTTP(w, r)
		})
	}
	handler := s.Middleware(byMajor(h))

	for _, tc := range []struct {
		major      string
		exportDesc string // export_report's description in a result
		export     string // what calling export_report answers
		archive    bool   // archive_notes is found and callable
	}{
		{major: "2", exportDesc: "PDF", export: "pdf", archive: true},
		{major: "1", exportDesc: "CSV", export: "csv", archive: false},
		{major: "", exportDesc: "PDF", export: "pdf", archive: true},
		{major: "3", archive: false},
	} {
		t.Run("major "+tc.major, func(t *testing.T) {
			hdr := http.Header{}
			if tc.major != "" {
				hdr.Set("X-Major", tc.major)
			}
			c, err := client.Connect(t.Context(), client.InProcess(handler, hdr), &client.Options{Logger: quiet()})
			require.NoError(t, err)
			defer func() { _ = c.Close() }()

			f, _ := search(t, c, map[string]any{"pattern": "."})
			require.Contains(t, f.names(), "create_note", "unversioned tools are not filtered")
			if tc.exportDesc == "" {
				assert.NotContains(t, f.names(), "export_report", "found by pattern")
				f, _ = search(t, c, map[string]any{"query": "export the quarterly report"})
				assert.NotContains(t, f.names(), "export_report", "found by words")
				res := callVia(t, c, "export_report", nil)
				assert.True(t, res.IsError)
				assert.Contains(t, res.Text(), "Unknown tool")
			} else {
				f, _ = search(t, c, map[string]any{"query": "export the quarterly report"})
				require.NotEmpty(t, f.Tools)
				assert.Equal(t, "export_report", f.Tools[0].Name)
				assert.Contains(t, f.Tools[0].Description, tc.exportDesc)
				if tc.exportDesc == "CSV" {
					f, _ = search(t, c, map[string]any{"query": "pdf charts"})
					assert.NotContains(t, f.names(), "export_report", "found by a hidden version's words")
					f, _ = search(t, c, map[string]any{"pattern": "PDF"})
					assert.Empty(t, f.Tools, "found by a hidden version's text")
				}
				assert.Equal(t, tc.export, callVia(t, c, "export_report", nil).Text())
			}

			f, _ = search(t, c, map[string]any{"query": "archive old notes cold storage"})
			g, _ := search(t, c, map[string]any{"pattern": "archive"})
			res := callVia(t, c, "archive_notes", nil)
			if tc.archive {
				assert.Contains(t, f.names(), "archive_notes")
				assert.Equal(t, []string{"archive_notes"}, g.names())
				assert.Equal(t, "archived", res.Text())
			} else {
				assert.NotContains(t, f.names(), "archive_notes", "found by words")
				assert.Empty(t, g.Tools, "found by pattern")
				assert.True(t, res.IsError)
				assert.Contains(t, res.Text(), "Unknown tool")
				assert.NotContains(t, res.Text(), "archived")
			}
		})
	}
}
