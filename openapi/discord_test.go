package openapi_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/internal/discord"
	"github.com/mcpchain/mcp/openapi/openapitest"
)

// discordOps is the number of operations of testdata/discord.json.
const discordOps = 242

// discordMultipart are the operations of Discord's document whose only
// body is multipart/form-data, which the package does not send (see
// docs/openapi.md): their tools have no body argument, and a call is the
// tool error naming it, before any request.
var discordMultipart = map[string]bool{
	"upload_application_attachment": true, // POST /applications/{application_id}/attachment
	"create_guild_sticker":          true, // POST /guilds/{guild_id}/stickers
	"update_invite_target_users":    true, // PUT /invites/{code}/target-users
}

// discordTools are the tools of Discord's document as openapi.Register
// makes them (no base URL: nothing calls them), registered once for the
// tests that only read the definitions: under the race detector one
// registration takes about ten CPU-seconds.
var discordTools = sync.OnceValues(func() ([]mcp.Tool, error) {
	spec, err := os.ReadFile("testdata/discord.json")
	if err != nil {
		return nil, err
	}
	srv := mcp.NewServer(mcp.Options{Name: "discord", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	if err := openapi.Register(srv, spec, openapi.Options{}); err != nil {
		return nil, err
	}
	return srv.ListTools(context.Background(), nil), nil
})

// TestDiscordCalls: every operation of Discord's document (242
// operations, OpenAPI 3.1, loaded with the strict Load; see
// testdata/README.md) registers as a tool, is listed by the client
// package over Streamable HTTP and, called once with arguments made from
// its parameters' schemas, sends a request the mock (which validates it
// against the same document) accepts; the three operations whose body
// is multipart only answer the tool error naming that.
func TestDiscordCalls(t *testing.T) {
	t.Parallel()
	doc, err := openapi.Load(readSpec(t, "discord.json"))
	require.NoError(t, err)
	for _, kind := range []string{"runtime", "generated"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			mock := openapitest.NewServer(doc)
			t.Cleanup(mock.Close)
			srv := mcp.NewServer(mcp.Options{Name: "discord", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
			if kind == "runtime" {
				require.NoError(t, openapi.RegisterDoc(srv, doc, openapi.Options{BaseURL: mock.BaseURL(), Client: mock.Client()}))
			} else {
				discord.Register(srv, mock.Client(), mock.BaseURL())
			}
			callThroughClient(t, doc, srv, discordOps, discordMultipart)
			sent := discordOps - len(discordMultipart)
			if kind == "generated" {
				sent = discordOps // the generated code does not validate before sending
			}
			require.Len(t, mock.Requests(), sent, "one request per operation")
		})
	}
}

// TestGeneratedDiscordRegisters: the generated Discord tools (242
// operations, openapi/internal/discord) register with the names they
// have at run time.
func TestGeneratedDiscordRegisters(t *testing.T) {
	t.Parallel()
	gen := mcp.NewServer(mcp.Options{Name: "d", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	discord.Register(gen, nil, "http://127.0.0.1:1")
	runTools, err := discordTools()
	require.NoError(t, err)
	var genNames, runNames []string
	for _, tl := range gen.ListTools(t.Context(), nil) {
		genNames = append(genNames, tl.Name)
	}
	for _, tl := range runTools {
		runNames = append(runNames, tl.Name)
	}
	require.Len(t, genNames, discordOps)
	require.Equal(t, sorted(runNames), sorted(genNames))
	require.Contains(t, genNames, "execute_webhook")
}

// callThroughClient connects the client package to srv over Streamable
// HTTP, lists the tools (want of them) and calls each operation of doc
// once; the tools in unsupported must answer the error of a body media
// type that is not supported, the others a result.
func callThroughClient(t *testing.T, doc *openapi3.T, srv *mcp.Server, want int, unsupported map[string]bool) {
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { h.Close() })
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	c, err := client.Connect(t.Context(), client.HTTP(ts.URL+"/mcp", nil), nil)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	tools, err := c.ListTools(t.Context())
	require.NoError(t, err)
	require.Len(t, tools, want)
	failed := 0
	forEachOperation(t, doc, tools, func(method, path, name string, args map[string]any) {
		r, err := c.CallTool(t.Context(), name, args, nil)
		require.NoError(t, err, name)
		if unsupported[name] {
			// At run time the request is refused before it is sent; the
			// generated code (which does not validate) sends it without a
			// body, which the mock refuses.
			require.True(t, r.IsError, name)
			require.Regexp(t, `this operation's body media type is not supported|the API answered 400 Bad Request`, text(t, r), name)
			return
		}
		if r.IsError {
			failed++
			t.Errorf("%s %s (%s): %s", method, path, name, text(t, r))
		}
	})
	require.Zero(t, failed)
}
