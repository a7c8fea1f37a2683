package openapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/internal/petstore"
	"github.com/mcpchain/mcp/openapi/openapitest"
	"github.com/mcpchain/mcp/stdio"
)

// pipe is the client's end of two pipes.
type pipe struct {
	io.Reader
	io.WriteCloser
}

func readSpec(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

// petstore is a server with the Petstore's tools, calling a mock of the
// Petstore built from the same document.
func petstoreServer(t testing.TB, opts openapi.Options) (*mcp.Server, *openapitest.Server) {
	t.Helper()
	spec := readSpec(t, "petstore-expanded.yaml")
	doc, err := openapi.Load(spec)
	require.NoError(t, err)
	mock := openapitest.NewServer(doc)
	t.Cleanup(mock.Close)
	srv := mcp.NewServer(mcp.Options{Name: "petstore", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	if opts.BaseURL == "" {
		opts.BaseURL = mock.BaseURL()
	}
	opts.Client = mock.Client()
	require.NoError(t, openapi.Register(srv, spec, opts))
	return srv, mock
}

// clients connects a client to srv in process, over HTTP and over
// stdio. Each sends an Authorization header (stdio aside), which must not
// reach the API.
func clients(t *testing.T, srv *mcp.Server) map[string]*client.Client {
	h := mcphttp.New(srv, nil)
	t.Cleanup(func() { h.Close() })
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	auth := http.Header{"Authorization": {"Bearer mcp-caller-secret"}}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), h, inR, outW, nil); _ = outW.Close() }()
	t.Cleanup(func() {
		_ = inW.Close()
		<-done
	})
	out := map[string]*client.Client{}
	for name, tr := range map[string]client.Transport{
		"inprocess": client.InProcess(h, auth),
		"http":      client.HTTP(ts.URL+"/mcp", &client.HTTPOptions{Header: auth}),
		"stdio":     client.Stdio(pipe{outR, inW}),
	} {
		c, err := client.Connect(t.Context(), tr, nil)
		require.NoError(t, err, name)
		t.Cleanup(func() { c.Close() })
		out[name] = c
	}
	return out
}

// generatedPetstore is a server with the generated Petstore tools
// (openapi/internal/petstore, the golden file of TestGenerateGolden),
// calling a mock of the Petstore.
func generatedPetstore(t testing.TB) (*mcp.Server, *openapitest.Server) {
	doc, err := openapi.Load(readSpec(t, "petstore-expanded.yaml"))
	require.NoError(t, err)
	mock := openapitest.NewServer(doc)
	t.Cleanup(mock.Close)
	srv := mcp.NewServer(mcp.Options{Name: "petstore", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	petstore.Register(srv, mock.Client(), mock.BaseURL())
	return srv, mock
}

// TestPetstoreThroughClients: the Petstore's tools, registered at run
// time and generated, listed and called by the client package in
// process, over HTTP and over stdio against a mock built from the same document.
func TestPetstoreThroughClients(t *testing.T) {
	for _, kind := range []string{"runtime", "generated"} {
		t.Run(kind, func(t *testing.T) {
			var srv *mcp.Server
			var mock *openapitest.Server
			if kind == "runtime" {
				srv, mock = petstoreServer(t, openapi.Options{})
			} else {
				srv, mock = generatedPetstore(t)
			}
			testPetstoreClients(t, srv, mock)
		})
	}
}

func testPetstoreClients(t *testing.T, srv *mcp.Server, mock *openapitest.Server) {
	for name, c := range clients(t, srv) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			tools, err := c.ListTools(ctx)
			require.NoError(t, err)
			var names []string
			byName := map[string]mcp.Tool{}
			for _, tl := range tools {
				names = append(names, tl.Name)
				byName[tl.Name] = tl
			}
			require.Equal(t, []string{"addPet", "deletePet", "findPets", "find_pet_by_id"}, sorted(names))
			require.True(t, byName["findPets"].Annotations.ReadOnlyHint)
			require.True(t, *byName["deletePet"].Annotations.DestructiveHint)
			require.NotNil(t, byName["addPet"].OutputSchema, "Pet (an allOf of objects) is an object")
			require.Nil(t, byName["findPets"].OutputSchema, "an array is no output schema")

			res, err := c.CallTool(ctx, "addPet", map[string]any{"name": "Rex", "tag": "dog"}, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, "%+v", res)
			last := mock.Last()
			require.Empty(t, last.Header.Get("Authorization"), "nothing of the MCP caller is forwarded")
			require.Equal(t, "POST", last.Method)
			require.Equal(t, "/api/pets", last.Path)
			require.JSONEq(t, `{"name":"Rex","tag":"dog"}`, string(last.Body))
			require.Equal(t, "application/json", last.Header.Get("Content-Type"))
			sc, ok := res.StructuredContent.(map[string]any)
			require.True(t, ok, "structuredContent: %#v", res.StructuredContent)
			require.Contains(t, sc, "id")

			res, err = c.CallTool(ctx, "findPets", map[string]any{"tags": []string{"dog", "cat"}, "limit": 5}, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, "%+v", res)
			require.Equal(t, "limit=5&tags=dog&tags=cat", mock.Last().Query)
			var pets []map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &pets))
			require.Len(t, pets, 1)

			res, err = c.CallTool(ctx, "find_pet_by_id", map[string]any{"id": 42}, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, "%+v", res)
			require.Equal(t, "/api/pets/42", mock.Last().Path)

			res, err = c.CallTool(ctx, "deletePet", map[string]any{"id": 7}, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, "%+v", res)
			require.Equal(t, "204 No Content", res.Content[0].(mcp.TextContent).Text)
			require.Equal(t, "DELETE", mock.Last().Method)

			// A missing required argument: the input schema refuses it.
			res, err = c.CallTool(ctx, "addPet", map[string]any{"tag": "dog"}, nil)
			require.NoError(t, err)
			require.True(t, res.IsError)
			require.Contains(t, res.Content[0].(mcp.TextContent).Text, "name")
		})
	}
}
