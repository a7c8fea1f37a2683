package mcphttp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunOptionsFromEnvironment: Run takes the transport, host and port
// from MCP_TRANSPORT, MCP_HOST and MCP_PORT where its options leave them
// zero, and refuses a value it cannot use with an error naming the
// variable.
func TestRunOptionsFromEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		opts    *StartOptions
		want    StartOptions
		wantErr string
	}{
		{"nothing set: stdio", nil, nil, StartOptions{TransportType: TransportStdio}, ""},
		{"http", map[string]string{"MCP_TRANSPORT": "http", "MCP_HOST": "127.0.0.1", "MCP_PORT": "9001"}, nil,
			StartOptions{TransportType: TransportHTTPStream, Host: "127.0.0.1", Port: 9001}, ""},
		{"httpStream, any case", map[string]string{"MCP_TRANSPORT": " HTTPSTREAM "}, nil, StartOptions{TransportType: TransportHTTPStream}, ""},
		{"stdio spelled out", map[string]string{"MCP_TRANSPORT": "stdio"}, nil, StartOptions{TransportType: TransportStdio}, ""},
		{"port 0 is any free port", map[string]string{"MCP_TRANSPORT": "http", "MCP_PORT": "0"}, nil,
			StartOptions{TransportType: TransportHTTPStream, Port: -1}, ""},
		{"options win", map[string]string{"MCP_TRANSPORT": "http", "MCP_HOST": "0.0.0.0", "MCP_PORT": "9001"},
			&StartOptions{TransportType: TransportStdio, Host: "::1", Port: 7000},
			StartOptions{TransportType: TransportStdio, Host: "::1", Port: 7000}, ""},
		{"unknown transport", map[string]string{"MCP_TRANSPORT": "sse"}, nil, StartOptions{}, `MCP_TRANSPORT="sse" is not a transport`},
		{"port not a number", map[string]string{"MCP_PORT": "80a"}, nil, StartOptions{}, `MCP_PORT="80a" is not a port number`},
		{"port out of range", map[string]string{"MCP_PORT": "70000"}, nil, StartOptions{}, `MCP_PORT="70000" is not a port number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := runOptions(tt.opts, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
