package e2e

import (
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/openapi"
	"github.com/mcpchain/mcp/openapi/openapitest"
)

// TestTypeScriptOpenAPI: the Petstore's tools made by openapi.Register,
// listed and called by the official TypeScript SDK clients (1.32.2 at
// 2025-11-25 and 2.4.0 at 2026-07-28) against a mock of the Petstore built
// from the same document. The SDK checks the tools/list entries against
// its schema and each structuredContent against the tool's outputSchema
// (the Pet of addPet and find_pet_by_id, an allOf the package merged).
func TestTypeScriptOpenAPI(t *testing.T) {
	t.Parallel()
	spec, err := os.ReadFile("../openapi/testdata/petstore-expanded.yaml")
	require.NoError(t, err)
	doc, err := openapi.Load(spec)
	require.NoError(t, err)
	mock := openapitest.NewServer(doc)
	t.Cleanup(mock.Close)
	srv := mcp.NewServer(mcp.Options{Name: "petstore", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, openapi.RegisterDoc(srv, doc, openapi.Options{BaseURL: mock.BaseURL(), Client: mock.Client()}))
	h := mcphttp.New(srv, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.Close(); _ = h.Close() })

	calls, err := json.Marshal([]map[string]any{
		{"name": "addPet", "arguments": map[string]any{"name": "Rex", "tag": "dog"}},
		{"name": "findPets", "arguments": map[string]any{"tags": []string{"dog"}, "limit": 2}},
		{"name": "find_pet_by_id", "arguments": map[string]any{"id": 42}},
		{"name": "deletePet", "arguments": map[string]any{"id": 42}},
		{"name": "find_pet_by_id", "arguments": map[string]any{"id": "not a number"}},
	})
	require.NoError(t, err)
	type output struct {
		ProtocolVersion string `json:"protocolVersion"`
		Tools           []struct {
			Name         string               `json:"name"`
			InputSchema  map[string]any       `json:"inputSchema"`
			OutputSchema map[string]any       `json:"outputSchema"`
			Annotations  *mcp.ToolAnnotations `json:"annotations"`
		} `json:"tools"`
		Calls []struct {
			Result *mcp.ContentResult `json:"result"`
			Error  string             `json:"error"`
		} `json:"calls"`
		Error string `json:"error"`
	}
	for _, tc := range []struct{ sdk, version string }{{"v1", string(mcp.Version20251125)}, {"v2", "2026-07-28"}} {
		t.Run(tc.sdk, func(t *testing.T) {
			before := len(mock.Requests())
			r := runNode(t, 60*time.Second, "openapi-client.mjs", ts.URL, string(calls), tc.sdk)
			require.Equal(t, 0, r.exitCode, "stderr:\n%s", r.stderr)
			var out output
			require.NoError(t, json.Unmarshal(r.stdout, &out), "%s", r.stdout)
			require.Empty(t, out.Error)
			assert.Equal(t, tc.version, out.ProtocolVersion)
			var names []string
			for _, tl := range out.Tools {
				names = append(names, tl.Name)
				if tl.Name == "addPet" {
					assert.Equal(t, "object", tl.OutputSchema["type"])
					assert.Equal(t, []any{"name"}, tl.InputSchema["required"])
				}
				if tl.Name == "findPets" {
					require.NotNil(t, tl.Annotations)
					assert.True(t, tl.Annotations.ReadOnlyHint)
				}
			}
			assert.ElementsMatch(t, []string{"addPet", "deletePet", "findPets", "find_pet_by_id"}, names)
			require.Len(t, out.Calls, 5)
			for i, c := range out.Calls[:4] {
				require.Empty(t, c.Error, "call %d", i)
				require.False(t, c.Result.IsError, "call %d: %s", i, c.Result.Text())
			}
			assert.Contains(t, out.Calls[0].Result.StructuredContent, "id")
			assert.Contains(t, out.Calls[2].Result.StructuredContent, "name")
			assert.Equal(t, "204 No Content", out.Calls[3].Result.Text())
			// A bad argument: the input schema refuses it, naming it.
			bad := out.Calls[4]
			if bad.Error == "" {
				require.True(t, bad.Result.IsError)
				assert.Contains(t, bad.Result.Text(), "id")
			} else {
				assert.Contains(t, bad.Error, "id")
			}
			got := mock.Requests()[before:]
			require.Len(t, got, 4, "the bad call never reached the API")
			assert.Equal(t, "/api/pets", got[0].Path)
			assert.Equal(t, "limit=2&tags=dog", got[1].Query)
			assert.Equal(t, "/api/pets/42", got[2].Path)
			assert.Equal(t, "DELETE", got[3].Method)
		})
	}
}
