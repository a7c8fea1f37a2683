package mcphttp

import (
	"encoding/json"

	"github.com/mcpchain/mcp"
)

// serverInfo is the server's identity as initialize's serverInfo and
// server/discover send it: name, title, version, icons and website.
func serverInfo(o mcp.Options) mcp.Implementation {
	return mcp.Implementation{Name: o.Name, Title: o.Title, Version: o.Version, Icons: o.Icons, WebsiteURL: o.WebsiteURL}
}

// discoverMeta is the _meta of server/discover: the server's whole
// identity. Other results of 2026-07-28 carry only its name, title and
// version (rev20260728Result), so that icons, which may be data: URIs of up to
// 64 KiB, are not repeated on every tools/call.
func discoverMeta(o mcp.Options) (map[string]json.RawMessage, error) {
	si, err := json.Marshal(serverInfo(o))
	if err != nil {
		return nil, err
	}
	return map[string]json.RawMessage{metaServerInfo: si}, nil
}
