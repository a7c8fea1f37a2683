package audit_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/audit"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/codemode"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/toolsearch"
)

// transformedServer is server() with transforms of login: "signin" renames
// the tagged and the secret-named arguments to innocent names, and its
// own transform "signin2" renames them again; a child server with the
// same transform is mounted under "m" and imported under "i".
func transformedServer() *mcp.Server {
	renames := map[string]mcp.ArgTransform{
		"note":     {Name: "memo"},     // audit:"redact"
		"password": {Name: "phrase"},   // redacted by its name
		"api_key":  {Name: "handle"},   // redacted by its name
		"blob":     {Name: "payload"},  // audit:"omit"
		"keyword":  {Name: "password"}, // audit:"keep", under a secret's name
		"user":     {Name: "note"},     // a plain argument under the tagged one's old name
		"nested":   {Name: "inner"},    // a struct: its members keep their policy
	}
	srv := server()
	srv.AddTransformedTool("login", mcp.Transform{Name: "signin", Args: renames})
	srv.AddTransformedTool("signin", mcp.Transform{Name: "signin2", Args: map[string]mcp.ArgTransform{
		"memo": {Name: "remark"}, "phrase": {Name: "words"}}})
	for _, prefix := range []string{"m", "i"} {
		child := server()
		child.AddTransformedTool("login", mcp.Transform{Name: "signin", Args: renames})
		if prefix == "m" {
			srv.Mount(prefix, child, nil)
		} else {
			srv.Import(prefix, child, nil)
		}
	}
	return srv
}

// TestAuditOfTransformedTools: a tool derived by a transform is recorded
// under its source's redaction policy, mapped through the transform's
// renames: an argument tagged audit:"redact" or named like a secret in
// the source stays redacted under an innocent new name, an omitted one
// stays out, a kept one stays shown; a transform of a transform, a
// mounted or imported server's transform, and calls made through tool
// search's call_tool and code mode's call() are recorded the same way.
func TestAuditOfTransformedTools(t *testing.T) {
	t.Parallel()
	srv := transformedServer()
	search, err := toolsearch.New(srv, nil)
	require.NoError(t, err)
	scripts, err := codemode.New(srv, nil)
	require.NoError(t, err)
	var out syncBuf
	trail := audit.New(&audit.Options{Logger: slog.New(slog.NewJSONHandler(&out, nil))})
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { _ = h.Close() })
	ctx := context.Background()
	c, err := client.Connect(ctx, client.InProcess(scripts.Middleware(search.Middleware(trail.Middleware(h))),
		http.Header{"Authorization": {"Bearer " + bearerToken}}), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })

	signin := map[string]any{"note": "alice", "memo": noteSecret, "phrase": password, "handle": apiKey,
		"payload": "omitted-blob", "password": "kept keyword", "inner": map[string]any{"token": nestedToken, "depth": 1}}
	calls := []struct{ via, name string }{
		{"", "signin"}, {"", "m_signin"}, {"", "i_signin"},
		{toolsearch.DefaultCallTool, "signin"}, {codemode.DefaultTool, "signin"},
	}
	for _, cl := range calls {
		var res *mcp.ContentResult
		switch cl.via {
		case "":
			res, err = c.CallTool(ctx, cl.name, signin, nil)
		case toolsearch.DefaultCallTool:
			res, err = c.CallTool(ctx, cl.via, map[string]any{"name": cl.name, "arguments": signin}, nil)
		case codemode.DefaultTool:
			script := `result = call("signin", {"note": "alice", "memo": "` + noteSecret + `", "phrase": "` + password +
				`", "handle": "` + apiKey + `", "payload": "omitted-blob", "password": "kept keyword", "inner": {"token": "` +
				nestedToken + `", "depth": 1}})`
			res, err = c.CallTool(ctx, cl.via, map[string]any{"script": script}, nil)
		}
		require.NoError(t, err, cl)
		require.False(t, res.IsError, "%v: %s", cl, res.Text())
	}
	res, err := c.CallTool(ctx, "signin2", map[string]any{"note": "alice", "remark": noteSecret, "words": password,
		"handle": apiKey, "password": "kept keyword", "inner": map[string]any{"token": nestedToken, "depth": 2}}, nil)
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())

	// The script tool's own event records the script's text, as it
	// records any tool's free text: only the events of the derived tool
	// are searched.
	all := out.String()
	var signins []map[string]any
	for _, e := range events(t, all) {
		if name, _ := e["name"].(string); strings.HasSuffix(name, "signin") || name == "signin2" {
			signins = append(signins, e)
		}
	}
	require.Len(t, signins, len(calls)+1, all)
	recorded, err := json.Marshal(signins)
	require.NoError(t, err)
	for _, s := range []string{noteSecret, password, apiKey, nestedToken, "omitted-blob"} {
		assert.NotContains(t, string(recorded), s)
	}
	last := signins[len(calls)]
	signins = signins[:len(calls)]
	for i, e := range signins {
		args, _ := e["arguments"].(map[string]any)
		assert.Equal(t, calls[i].name, e["name"], calls[i])
		assert.Equal(t, "alice", args["note"], "%v: a plain argument under a tagged one's old name", calls[i])
		assert.Equal(t, audit.Redacted, args["memo"], "%v: tagged audit:\"redact\" in the source", calls[i])
		assert.Equal(t, audit.Redacted, args["phrase"], "%v: the source's password", calls[i])
		assert.Equal(t, audit.Redacted, args["handle"], "%v: the source's api_key", calls[i])
		assert.NotContains(t, args, "payload", "%v: tagged audit:\"omit\" in the source", calls[i])
		assert.Equal(t, "kept keyword", args["password"], "%v: tagged audit:\"keep\" in the source", calls[i])
		assert.Equal(t, map[string]any{"token": audit.Redacted, "depth": float64(1)}, args["inner"], calls[i])
	}
	args, _ := last["arguments"].(map[string]any)
	assert.Equal(t, "signin2", last["name"])
	assert.Equal(t, map[string]any{"note": "alice", "remark": audit.Redacted, "words": audit.Redacted,
		"handle": audit.Redacted, "password": "kept keyword", "inner": map[string]any{"token": audit.Redacted, "depth": float64(2)}}, args, "a transform of a transform")
}
