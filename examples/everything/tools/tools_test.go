package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/mcptest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRegisterAddsNamesAndCustomWhoami(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts *Options
		want string
	}{
		{"default whoami", nil, `{"session":null,"client":{"name":"mcptest","version":"1.0.0"}}`},
		{"custom whoami", &Options{Whoami: func(context.Context, *mcp.Context, struct{}) (any, error) {
			return map[string]string{"me": "custom"}, nil
		}}, `{"me":"custom"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Options{Name: "t", Version: "1.0.0"})
			Register(srv, tt.opts)
			e := mcptest.NewSession(t, srv, nil).Client()
			list, err := e.ListTools(context.Background())
			require.NoError(t, err)
			var names []string
			for _, tool := range list {
				names = append(names, tool.Name)
			}
			require.ElementsMatch(t, Names, names)
			res, err := e.CallTool(context.Background(), "whoami", nil, nil)
			require.NoError(t, err)
			require.False(t, res.IsError, res.Text())
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(res.Text()), &got))
			delete(got, "sessionId") // random
			b, _ := json.Marshal(got)
			require.JSONEq(t, tt.want, string(b))
		})
	}
}
