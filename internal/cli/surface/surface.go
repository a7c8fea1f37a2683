// Package surface reads what an MCP server offers (server info,
// capabilities, tools, resources, templates, prompts) into a stable form:
// a readable report, JSON that can be committed (sorted keys and lists,
// nothing that changes between runs), and a diff of two of them.
package surface

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/cli/termtext"
)

// Surface is a server's surface as generic JSON values, so that every
// member the server sends is kept and compared.
type Surface struct {
	ProtocolVersion   string           `json:"protocolVersion"`
	Server            map[string]any   `json:"server"`
	Capabilities      map[string]any   `json:"capabilities"`
	Instructions      string           `json:"instructions,omitempty"`
	Tools             []map[string]any `json:"tools"`
	Resources         []map[string]any `json:"resources"`
	ResourceTemplates []map[string]any `json:"resourceTemplates"`
	Prompts           []map[string]any `json:"prompts"`
}

// Read lists everything c's server offers (following pagination; a list
// the server's capabilities do not declare is left empty).
func Read(ctx context.Context, c *client.Client) (*Surface, error) {
	init := c.Initialize()
	s := &Surface{ProtocolVersion: string(c.ProtocolVersion()), Instructions: init.Instructions}
	if err := roundTrip(init.ServerInfo, &s.Server); err != nil {
		return nil, err
	}
	if err := roundTrip(init.Capabilities, &s.Capabilities); err != nil {
		return nil, err
	}
	caps := init.Capabilities
	var err error
	if caps.Tools != nil {
		if s.Tools, err = list(ctx, c, "tools/list", "tools"); err != nil {
			return nil, err
		}
	}
	if caps.Resources != nil {
		if s.Resources, err = list(ctx, c, "resources/list", "resources"); err != nil {
			return nil, err
		}
		if s.ResourceTemplates, err = list(ctx, c, "resources/templates/list", "resourceTemplates"); err != nil {
			var rpc *mcp.Error
			if !errors.As(err, &rpc) || rpc.Code != mcp.CodeMethodNotFound {
				return nil, err
			}
		}
	}
	if caps.Prompts != nil {
		if s.Prompts, err = list(ctx, c, "prompts/list", "prompts"); err != nil {
			return nil, err
		}
	}
	s.sort()
	return s, nil
}

func roundTrip(v any, out *map[string]any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return decode(b, out)
}

func decode(b []byte, out any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(out)
}

func list(ctx context.Context, c *client.Client, method, member string) ([]map[string]any, error) {
	var all []map[string]any
	cursor := ""
	for range 1000 {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		var raw json.RawMessage
		if err := c.Call(ctx, method, params, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var page map[string]any
		if err := decode(raw, &page); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		items, _ := page[member].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				all = append(all, m)
			}
		}
		next, _ := page["nextCursor"].(string)
		if next == "" || next == cursor {
			return all, nil
		}
		cursor = next
	}
	return nil, fmt.Errorf("%s: more than 1000 pages", method)
}

// key names an item of a list: its URI (template), or its name.
func key(m map[string]any) string {
	for _, k := range []string{"uri", "uriTemplate", "name"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func (s *Surface) sort() {
	for _, l := range []*[]map[string]any{&s.Tools, &s.Resources, &s.ResourceTemplates, &s.Prompts} {
		if *l == nil {
			*l = []map[string]any{}
		}
		slices.SortStableFunc(*l, func(a, b map[string]any) int { return strings.Compare(key(a), key(b)) })
	}
}

// JSON encodes s stably: indented, map keys sorted (encoding/json sorts
// them), lists sorted by name or URI, a final newline. The characters a
// terminal acts on are written as \u escapes (termtext.JSON), so the file
// can be printed safely and means the same.
func (s *Surface) JSON() ([]byte, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetIndent("", "  ")
	e.SetEscapeHTML(false)
	if err := e.Encode(s); err != nil {
		return nil, err
	}
	return termtext.JSON(buf.Bytes()), nil
}

// Parse reads a surface written by JSON.
func Parse(b []byte) (*Surface, error) {
	var s Surface
	if err := decode(b, &s); err != nil {
		return nil, fmt.Errorf("not an mcpchain inspect --json file: %w", err)
	}
	s.sort()
	return &s, nil
}
