package proxy_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/proxy"
)

// scripted is an upstream that answers initialize, and every list method
// with items (a JSON array, as the upstream sent it).
type scripted struct{ items json.RawMessage }

func (s scripted) Connect(context.Context) (client.Conn, error) {
	return &scriptedConn{items: s.items, in: make(chan []byte, 16), done: make(chan struct{})}, nil
}

type scriptedConn struct {
	items json.RawMessage
	in    chan []byte
	once  sync.Once
	done  chan struct{}
}

func (c *scriptedConn) Send(_ context.Context, msg []byte) error {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var result any = map[string]any{}
	switch m.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]string{"name": "fuzz", "version": "1.0.0"},
			"capabilities": map[string]any{"tools": map[string]any{}, "resources": map[string]any{"subscribe": true}, "prompts": map[string]any{}}}
	case "tools/list":
		result = map[string]json.RawMessage{"tools": c.items}
	case "resources/list":
		result = map[string]json.RawMessage{"resources": c.items}
	case "resources/templates/list":
		result = map[string]json.RawMessage{"resourceTemplates": c.items}
	case "prompts/list":
		result = map[string]json.RawMessage{"prompts": c.items}
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
	if err != nil {
		return err
	}
	select {
	case c.in <- b:
	case <-c.done:
		return client.ErrClosed
	}
	return nil
}

func (c *scriptedConn) Recv(ctx context.Context) ([]byte, error) {
	select {
	case b := <-c.in:
		return b, nil
	case <-c.done:
		return nil, client.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *scriptedConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

// FuzzGatewayLists: whatever an upstream lists (any JSON as the items of
// tools/list, resources/list, resources/templates/list and
// prompts/list), the gateway starts or fails with an error, never
// panics, and its server lists what it kept.
func FuzzGatewayLists(f *testing.F) {
	for _, seed := range []string{
		`[]`,
		`[{"name":"a","inputSchema":{"type":"object"}}]`,
		`[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}},"annotations":{"readOnlyHint":true},"_meta":{"k":1}}]`,
		`[{"name":"bad name!","inputSchema":{"type":"object"}},{"name":"b"},{"uri":"file:///x","name":"x"},{"uriTemplate":"g://{n}","name":"g"}]`,
		`[{"name":"a","inputSchema":{"type":"string"}},{"name":"a","inputSchema":{"type":"object"}}]`,
		`[{"name":"p","arguments":[{"name":"q","required":true}]}]`,
		`[{"uriTemplate":"{","name":"x"},{"uri":"not a uri","name":"y"}]`,
		`[1,"x",null,{}]`,
		`{"name":"not an array"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, items []byte) {
		if !json.Valid(items) {
			return // not a message a server could send
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		g, err := proxy.New(ctx, proxy.Options{Upstream: func(*mcp.Context) client.Transport { return scripted{items} },
			Server: mcp.Options{Logger: quiet}})
		if err != nil {
			return
		}
		defer g.Close()
		h := mcphttp.New(g.Server(), nil)
		defer h.Close()
		s, err := client.Connect(ctx, client.InProcess(h, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if _, err := s.ListTools(ctx); err != nil {
			t.Fatalf("the gateway's tools do not list: %v", err)
		}
	})
}
