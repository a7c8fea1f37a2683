package openapi_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/schemajson"
	"github.com/mcpchain/mcp/openapi"
)

// TestMarshalDiscordTools: the input and output schemas of the tools made
// from Discord's 242 operations (deep and inlined) encode as json.Marshal
// encodes them. It tests internal/schemajson (of the root module, which
// does not require this one) on the schemas this package makes.
func TestMarshalDiscordTools(t *testing.T) {
	t.Parallel()
	tools, err := discordTools()
	require.NoError(t, err)
	require.Len(t, tools, 242)
	for _, tl := range tools {
		for _, s := range []*jsonschema.Schema{tl.InputSchema, tl.OutputSchema} {
			want, err := json.Marshal(s)
			require.NoError(t, err)
			got, err := schemajson.Marshal(s)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got), tl.Name)
		}
	}
}

// BenchmarkMarshalDiscord encodes the input and output schemas of the
// tools made from Discord's operations, with this package and with
// json.Marshal.
func BenchmarkMarshalDiscord(b *testing.B) {
	spec, err := os.ReadFile("testdata/discord.json")
	require.NoError(b, err)
	srv := mcp.NewServer(mcp.Options{Name: "discord", Version: "1.0.0"})
	require.NoError(b, openapi.Register(srv, spec, openapi.Options{BaseURL: "http://127.0.0.1:1"}))
	var schemas []*jsonschema.Schema
	for _, tl := range srv.ListTools(context.Background(), nil) {
		schemas = append(schemas, tl.InputSchema, tl.OutputSchema)
	}
	for _, bm := range []struct {
		name    string
		marshal func(*jsonschema.Schema) ([]byte, error)
	}{
		{"schemajson", schemajson.Marshal},
		{"encoding_json", func(s *jsonschema.Schema) ([]byte, error) { return json.Marshal(s) }},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range schemas {
					if _, err := bm.marshal(s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
