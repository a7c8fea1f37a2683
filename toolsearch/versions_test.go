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

// A tool is found by the tags of the version the caller gets, never by
// those of a version the request's version filter hides or its own
// CanAccess denies (the versions of a name share their tags for Disable
// and Enable rules, not for what a caller is shown). The callers share
// one index: the admin's search, made first, indexes the newest version.
func TestSearchIgnoresHiddenVersionTags(t *testing.T) {
	t.Parallel()
	srv := notesServer(t)
	noop := func(context.Context, *mcp.Context, struct{}) (string, error) { return "", nil }
	mcp.AddTool(srv, mcp.Tool{Name: "export_report", Version: "1.0.0", Description: "Export a report", Tags: []string{"spreadsheet"}}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "export_report", Version: "2.0.0", Description: "Export a report", Tags: []string{"spreadsheet", "charting"}}, noop)
	mcp.AddTool(srv, mcp.Tool{Name: "export_report", Version: "2.1.0", Description: "Export a report", Tags: []string{"spreadsheet", "charting", "confidential"},
		CanAccess: func(_ context.Context, auth any) bool { return auth == "admin" }}, noop)
	s, err := toolsearch.New(srv, &toolsearch.Options{MaxResults: 50})
	require.NoError(t, err)
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	byMajor := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u := r.Header.Get("X-User"); u != "" {
				r = r.WithContext(mcp.WithAuth(r.Context(), u))
			}
			if major := r.Header.Get("X-Major"); major != "" {
				r = r.WithContext(mcp.WithVersionFilter(r.Context(), func(v string) bool { return strings.HasPrefix(v, major+".") }))
			}
			next.ServeHTTP(w, r)
		})
	}
	handler := s.Middleware(byMajor(h))
	for _, tc := range []struct {
		who, major string
		found      map[string]bool // by tag
	}{
		{"admin", "", map[string]bool{"spreadsheet": true, "charting": true, "confidential": true}},
		{"bob", "", map[string]bool{"spreadsheet": true, "charting": true}},
		{"admin", "1", map[string]bool{"spreadsheet": true}},
		{"bob", "1", map[string]bool{"spreadsheet": true}},
	} {
		hdr := http.Header{}
		hdr.Set("X-User", tc.who)
		if tc.major != "" {
			hdr.Set("X-Major", tc.major)
		}
		c, err := client.Connect(t.Context(), client.InProcess(handler, hdr), &client.Options{Logger: quiet()})
		require.NoError(t, err)
		for _, tag := range []string{"spreadsheet", "charting", "confidential"} {
			f, _ := search(t, c, map[string]any{"query": tag})
			g, _ := search(t, c, map[string]any{"pattern": tag})
			if tc.found[tag] {
				assert.Equal(t, []string{"export_report"}, f.names(), "%s, major %q: %s by words", tc.who, tc.major, tag)
				assert.Equal(t, []string{"export_report"}, g.names(), "%s, major %q: %s by pattern", tc.who, tc.major, tag)
			} else {
				assert.Empty(t, f.names(), "%s, major %q: %s by words", tc.who, tc.major, tag)
				assert.Empty(t, g.names(), "%s, major %q: %s by pattern", tc.who, tc.major, tag)
			}
		}
		require.NoError(t, c.Close())
	}
}
