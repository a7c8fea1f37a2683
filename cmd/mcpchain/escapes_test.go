package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
)

// evilText holds what a terminal acts on: OSC 52 (writes the clipboard),
// erase-line and a carriage return (rewrite what is shown), a
// right-to-left override, a C1 CSI, DEL.
const evilText = "x\x1b]52;c;ZXZpbA==\x07\x1b[2K\rfake\u202Etxt\u009b\x7f"

// evilURI is a resource URI the server accepts (no C0 controls) that
// still holds a bidi override and a C1 CSI.
const evilURI = "file:///r\u202Eexe.txt\u009b31m"

// TestCLIPrintsNoTerminalEscapes: every command that prints what a
// hostile server sent (inspect and its --json, call's progress, result,
// resource links, --raw and a JSON-RPC error's message, read's contents
// and URIs, prompt's description and messages, the HTTP error of a server
// that is not one) prints it without the escape sequences in it.
func TestCLIPrintsNoTerminalEscapes(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "hostile", Version: "1.0.0", Instructions: evilText})
	mcp.AddTool(srv, mcp.Tool{Name: "evil", Title: evilText, Description: evilText},
		func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			_ = c.ReportProgress(ctx, mcp.Progress{Progress: 1, Total: 2, Message: evilText})
			return "", &mcp.Error{Code: -32050, Message: evilText}
		})
	mcp.AddTool(srv, mcp.Tool{Name: "text", Description: "returns hostile content"},
		func(context.Context, *mcp.Context, struct{}) ([]mcp.Content, error) {
			return []mcp.Content{
				mcp.TextContent{Text: evilText},
				mcp.ResourceLink{URI: evilText, Name: evilText},
				mcp.ImageContent{Data: []byte{1}, MIMEType: evilText},
				mcp.EmbeddedResource{Resource: mcp.ResourceContents{URI: evilText, MIMEType: evilText, Text: evilText}},
			}, nil
		})
	srv.AddResource(mcp.Resource{URI: evilURI, Name: evilText, Description: evilText,
		Load: func(context.Context, *mcp.Context) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{URI: evilText, MIMEType: evilText, Text: evilText}, {URI: evilURI, Blob: []byte{1}, MIMEType: evilText}}, nil
		}})
	srv.AddPrompt(mcp.Prompt{Name: "p", Description: evilText,
		Load: func(context.Context, *mcp.Context, map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Description: evilText, Messages: []mcp.PromptMessage{{Role: mcp.RoleUser, Content: mcp.TextContent{Text: evilText}}}}, nil
		}})
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })
	// Not an MCP server: it answers every request with an HTTP error whose
	// body and headers hold the escapes, which the CLI's error quotes.
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(evilText))
	}))
	t.Cleanup(broken.Close)

	for _, tc := range []struct {
		args []string
		code int
		want string // a part of the output, to show the command printed the hostile text
	}{
		{[]string{"inspect", ts.URL}, 0, `x\x1b]52;c;ZXZpbA==\x07\x1b[2K\x0dfake\u202etxt\x9b\x7f`},
		{[]string{"inspect", "--json", ts.URL}, 0, `\u001b]52;c;ZXZpbA==\u0007`},
		{[]string{"call", ts.URL, "evil"}, 1, "progress 1/2"},
		{[]string{"call", ts.URL, "text"}, 0, `[resource link x\x1b]52`},
		{[]string{"call", "--raw", ts.URL, "text"}, 0, `\u202etxt\u009b\u007f`},
		{[]string{"read", ts.URL, evilURI}, 0, `[resource x\x1b]52`},
		{[]string{"read", "--raw", ts.URL, evilURI}, 0, `"text": "x\u001b]52`},
		{[]string{"prompt", ts.URL, "p"}, 0, `# x\x1b]52`},
		{[]string{"prompt", "--raw", ts.URL, "p"}, 0, `"description": "x\u001b]52`},
		{[]string{"inspect", broken.URL}, 1, `HTTP 400 Bad Request: x\x1b]52`},
		{[]string{"call", broken.URL, "evil"}, 1, `HTTP 400 Bad Request: x\x1b]52`},
	} {
		res := run(t, "", "", tc.args...)
		name := strings.Join(tc.args[:len(tc.args)-1], " ")
		require.Equal(t, tc.code, res.code, "%s: %s", name, res.stderr)
		assert.Contains(t, res.stdout+res.stderr, tc.want, name)
		for _, out := range []string{res.stdout, res.stderr} {
			for _, bad := range []string{"\x1b", "\x07", "\r", "\x7f", "\u202E", "\u009b"} {
				assert.NotContains(t, out, bad, "%s printed %q: %q", name, bad, out)
			}
		}
	}
}
