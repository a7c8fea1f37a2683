package hostcheck

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNewIgnoresMalformedEntries(t *testing.T) {
	t.Parallel()
	p := New(nil, []string{"mcp.example.com", " ", "", "https://mcp.example.com", "mcp.example.com/mcp",
		"*.127.0.0.1", "bücher.example", "a b", "x:1:2", "[::1", "*.", "*", "xn--bcher-kva.example", "*.Tenants.Example:8443"})
	assert.Equal(t, []string{"https://mcp.example.com", "mcp.example.com/mcp", "*.127.0.0.1", "bücher.example", "a b", "x:1:2", "[::1", "*."}, p.Ignored())
	assert.True(t, p.anyHost)
	assert.Equal(t, []entry{{name: "mcp.example.com"}, {name: "xn--bcher-kva.example"}, {name: "tenants.example", port: "8443", suffix: true}}, p.hosts)
}

func TestHostAllowed(t *testing.T) {
	t.Parallel()
	local := netip.MustParseAddr("10.0.0.5")
	p := New(nil, []string{"mcp.example.com", "*.tenants.example:8443", "203.0.113.7"})
	tests := []struct {
		host string
		want bool
	}{
		{"mcp.example.com", true},
		{"mcp.example.com:1", true},
		{"mcp.example.com.", true},
		{"mcp.example.com..", false},
		{"Mcp.Example.Com", true},
		{"mcp.example.com:", true},
		{"mcp.example.com:x", false},
		{"mcp.example.com:80:90", false},
		{"mcp.example.co", false},
		{"xmcp.example.com", false},
		{"a.tenants.example:8443", true},
		{"a.b.tenants.example:8443", true},
		{"a.tenants.example:443", false},
		{"a.tenants.example", false},
		{"tenants.example:8443", false},
		{".tenants.example:8443", false},
		{" .tenants.example:8443", false},
		{"a b.tenants.example:8443", false},
		{"a_b.tenants.example:8443", true},
		{"mcp.example.com\t", false},
		{"203.0.113.7:8000", true},
		{"[::ffff:203.0.113.7]", true},
		{"10.0.0.5", true},
		{"[::ffff:10.0.0.5]:1", true},
		{"10.0.0.6", false},
		{"127.8.9.10", true},
		{"[::1]", true},
		{"::1", true},
		{"[::1]x", false},
		{"[10.0.0.5]", false},
		{"localhost", true},
		{"LOCALHOST.", true},
		{"sub.localhost", false},
		{"", false},
		{":8000", false},
		{"0.0.0.0", false},
		{"[::]:8000", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, p.HostAllowed(tt.host, local), tt.host)
	}
	assert.False(t, (*Policy)(nil).HostAllowed("mcp.example.com", local), "a nil policy lists nothing")
	assert.True(t, (*Policy)(nil).HostAllowed("localhost", netip.Addr{}))
}
