package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/client"
	"github.com/yosida95/uritemplate/v3"
)

// mirror is what the gateway registered on its server, by key (a tool's
// or prompt's name, a resource's URI, a template's URI template), as the
// upstream listed it (raw JSON), so that a new listing changes only what
// changed.
type mirror struct {
	mu                                   sync.Mutex // one sync at a time
	tools, resources, templates, prompts map[string][]byte
}

// maxPages bounds the pages of one list: an upstream whose cursor never
// ends does not keep the gateway in a loop.
const maxPages = 1000

// syncTimeout bounds one listing triggered by a list_changed.
const syncTimeout = 30 * time.Second

// resync asks the resync loop to list the upstream again.
func (g *Gateway) resync() {
	select {
	case g.kick <- struct{}{}:
	default: // one is pending: it will see this change too
	}
}

// resyncLoop lists the upstream again after each list_changed, until the
// gateway closes.
func (g *Gateway) resyncLoop() {
	defer g.wg.Done()
	for {
		select {
		case <-g.ctx.Done():
			return
		case <-g.kick:
		}
		ctx, cancel := context.WithTimeout(g.ctx, syncTimeout)
		if err := g.Refresh(ctx); err != nil && g.ctx.Err() == nil {
			g.log.Warn("proxy: listing the upstream again failed; the mirror keeps its last lists", "upstream", g.name, "error", err)
		}
		cancel()
	}
}

// mirrorBudget is what is left of Options.MaxMirrorItems and
// MaxMirrorBytes while one sync lists the upstream.
type mirrorBudget struct {
	items, bytes int
	opts         *Options
	name         string
}

// take counts items against the budget; it fails once the upstream has
// listed more than the options allow.
func (b *mirrorBudget) take(method string, items []json.RawMessage) error {
	b.items -= len(items)
	for _, it := range items {
		b.bytes -= len(it)
	}
	switch {
	case b.items < 0:
		return fmt.Errorf("proxy: upstream %q lists more than %d tools, resources, templates and prompts (at %s), the most the gateway mirrors (Options.MaxMirrorItems)",
			b.name, b.opts.MaxMirrorItems, method)
	case b.bytes < 0:
		return fmt.Errorf("proxy: upstream %q lists more than %d bytes of tools, resources, templates and prompts (at %s), the most the gateway mirrors (Options.MaxMirrorBytes)",
			b.name, b.opts.MaxMirrorBytes, method)
	}
	return nil
}

// listRaw returns the items of member of every page of a list method,
// counted against budget.
func listRaw(ctx context.Context, cl *client.Client, method, member string, budget *mirrorBudget) ([]json.RawMessage, error) {
	var all []json.RawMessage
	cursor := ""
	for range maxPages {
		var params any
		if cursor != "" {
			params = map[string]string{"cursor": cursor}
		}
		var next string
		var raw map[string]json.RawMessage
		if err := cl.Call(ctx, method, params, &raw); err != nil {
			return nil, err
		}
		var items []json.RawMessage
		if r, ok := raw[member]; ok {
			if err := json.Unmarshal(r, &items); err != nil {
				return nil, fmt.Errorf("proxy: the %s of %s do not decode: %w", member, method, err)
			}
		}
		if err := budget.take(method, items); err != nil {
			return nil, err
		}
		all = append(all, items...)
		if r, ok := raw["nextCursor"]; ok {
			_ = json.Unmarshal(r, &next)
		}
		if next == "" {
			return all, nil
		}
		if next == cursor {
			return nil, fmt.Errorf("proxy: %s returned the same cursor twice", method)
		}
		cursor = next
	}
	return nil, fmt.Errorf("proxy: %s had more than %d pages", method, maxPages)
}

// mirrorKind is one of the upstream's lists the mirror follows: whether
// the upstream declares it, the method and result member that list it,
// the member that keys an item, the items mirrored, and how to add and
// remove them.
type mirrorKind struct {
	on             bool
	method, member string
	keyOf          string
	have           *map[string][]byte
	add            func(raw []byte) error
	remove         func(keys []string)
}

// sync lists the upstream through cl and brings the mirror up to date.
func (g *Gateway) sync(ctx context.Context, cl *client.Client) error {
	m := &g.mirror
	m.mu.Lock()
	defer m.mu.Unlock()
	caps := cl.Initialize().Capabilities
	kinds := []mirrorKind{
		{caps.Tools != nil, "tools/list", "tools", "name", &m.tools, g.addTool, func(k []string) { g.srv.Registry().Remove(access.KindTool, k...) }},
		{caps.Resources != nil, "resources/list", "resources", "uri", &m.resources, g.addResource, func(k []string) { g.srv.Registry().Remove(access.KindResource, k...) }},
		{caps.Resources != nil, "resources/templates/list", "resourceTemplates", "uriTemplate", &m.templates, g.addTemplate, func(k []string) { g.srv.Registry().Remove(access.KindResource, k...) }},
		{caps.Prompts != nil, "prompts/list", "prompts", "name", &m.prompts, g.addPrompt, func(k []string) { g.srv.Registry().Remove(access.KindPrompt, k...) }},
	}
	budget := &mirrorBudget{items: g.opts.MaxMirrorItems, bytes: g.opts.MaxMirrorBytes, opts: &g.opts, name: g.name}
	for _, k := range kinds {
		items, err := g.listKind(ctx, cl, k, budget)
		if err != nil {
			return err
		}
		next, added, gone := g.diffKind(k, items)
		if len(gone) > 0 {
			k.remove(gone)
		}
		g.addKind(k, added, next)
		*k.have = next
	}
	if caps.Resources != nil && caps.Resources.Subscribe {
		// The shared connection hears of every resource's changes; the
		// server tells the downstream sessions subscribed to it.
		for uri := range m.resources {
			if err := cl.Subscribe(ctx, uri); err != nil {
				g.log.Debug("proxy: subscribing upstream failed", "upstream", g.name, "uri", uri, "error", err)
			}
		}
	}
	return nil
}

// listKind lists the items of kind k through cl: none when the upstream
// does not declare the kind, or answers that it has no such method (a
// server may declare resources without templates: the TypeScript SDK's
// low-level Server answers resources/templates/list only when given a
// handler; what it does not list, it has none of).
func (g *Gateway) listKind(ctx context.Context, cl *client.Client, k mirrorKind, budget *mirrorBudget) ([]json.RawMessage, error) {
	if !k.on {
		return nil, nil
	}
	items, err := listRaw(ctx, cl, k.method, k.member, budget)
	var re *mcp.Error
	if errors.As(err, &re) && re.Code == mcp.CodeMethodNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("proxy: listing upstream %q: %w", g.name, err)
	}
	return items, nil
}

// diffKind compares the items listed for kind k with those mirrored: next
// is the listed ones by key (an item without a key is left out, a repeated
// key counts once), added those new or changed, gone the keys of those
// removed or changed.
func (g *Gateway) diffKind(k mirrorKind, items []json.RawMessage) (next map[string][]byte, added [][]byte, gone []string) {
	next = map[string][]byte{}
	for _, raw := range items {
		name, ok := itemKey(raw, k.keyOf)
		if !ok {
			g.log.Warn("proxy: an upstream list item without a "+k.keyOf+" is left out", "upstream", g.name, "method", k.method)
			continue
		}
		if _, dup := next[name]; dup {
			continue
		}
		next[name] = raw
		if old, ok := (*k.have)[name]; !ok || !bytes.Equal(old, raw) {
			added = append(added, raw)
		}
	}
	for name, old := range *k.have {
		if raw, ok := next[name]; !ok || !bytes.Equal(old, raw) {
			gone = append(gone, name)
		}
	}
	return next, added, gone
}

// addKind mirrors the added items of kind k; one that cannot be served is
// left out of next.
func (g *Gateway) addKind(k mirrorKind, added [][]byte, next map[string][]byte) {
	for _, raw := range added {
		if err := k.add(raw); err != nil {
			g.log.Warn("proxy: an upstream item cannot be served; left out", "upstream", g.name, "method", k.method, "error", err)
			name, _ := itemKey(raw, k.keyOf)
			delete(next, name)
		}
	}
}

// itemKey is the string member keyOf of a listed item; false when the
// item is not an object or the member is missing, empty or not a string.
func itemKey(raw []byte, keyOf string) (string, bool) {
	var key map[string]json.RawMessage
	var name string
	if json.Unmarshal(raw, &key) != nil || json.Unmarshal(key[keyOf], &name) != nil || name == "" {
		return name, false
	}
	return name, true
}

// addTool registers the mirror of an upstream tool: its definition as
// listed (schemas, annotations, icons, _meta), forwarding each call.
func (g *Gateway) addTool(raw []byte) error {
	var t mcp.Tool
	if err := json.Unmarshal(raw, &t); err != nil {
		return err
	}
	t.Task = nil // the gateway forwards plain calls
	if t.InputSchema == nil {
		return fmt.Errorf("tool %q has no inputSchema", t.Name)
	}
	err := g.srv.Registry().AddRawTool(t, g.callTool(t.Name))
	if err != nil && t.InputSchema.Schema != "" {
		// A draft the validator does not know: the schema without
		// $schema is served (and checks the arguments) instead.
		t.InputSchema.Schema = ""
		err = g.srv.Registry().AddRawTool(t, g.callTool(t.Name))
	}
	return err
}

// callTool forwards tools/call of the tool name.
func (g *Gateway) callTool(name string) mcp.RawToolFunc {
	what := "tools/call " + name
	return func(ctx context.Context, c *mcp.Context, args json.RawMessage) (*mcp.ContentResult, error) {
		var a any
		if len(args) > 0 {
			a = args
		}
		// The upstream's log messages of the call reach the downstream
		// call before its answer.
		opts := &client.CallOptions{AfterNotifications: true}
		if _, ok := c.Meta("progressToken"); ok {
			opts.Progress = func(p mcp.Progress) { _ = c.ReportProgress(ctx, p) }
		}
		var res *mcp.ContentResult
		err := g.do(ctx, c, what, func(ctx context.Context, cl *client.Client) (err error) {
			res, err = cl.CallTool(ctx, name, a, opts)
			return err
		})
		if err != nil {
			return nil, toolError(err)
		}
		return res, nil
	}
}

// addResource registers the mirror of an upstream resource.
func (g *Gateway) addResource(raw []byte) error {
	var r mcp.Resource
	if err := json.Unmarshal(raw, &r); err != nil {
		return err
	}
	uri := r.URI
	r.Load = func(ctx context.Context, c *mcp.Context) ([]mcp.ResourceContents, error) {
		return g.read(ctx, c, uri)
	}
	return g.srv.Registry().AddResource(r)
}

// read forwards resources/read of uri.
func (g *Gateway) read(ctx context.Context, c *mcp.Context, uri string) ([]mcp.ResourceContents, error) {
	var res *mcp.ReadResourceResult
	err := g.do(ctx, c, "resources/read "+uri, func(ctx context.Context, cl *client.Client) (err error) {
		res, err = cl.ReadResource(ctx, uri)
		return err
	})
	if err != nil {
		return nil, requestError(err)
	}
	return res.Contents, nil
}

// addTemplate registers the mirror of an upstream resource template: a
// read of a URI it matches is forwarded with the URI the template's
// variables give back.
func (g *Gateway) addTemplate(raw []byte) error {
	var t mcp.ResourceTemplate
	if err := json.Unmarshal(raw, &t); err != nil {
		return err
	}
	tmpl, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return fmt.Errorf("resource template %q: %w", t.URITemplate, err)
	}
	for _, v := range tmpl.Varnames() {
		t.Arguments = append(t.Arguments, mcp.TemplateArgument{Name: v, Complete: g.complete(mcp.CompletionRef{Type: "ref/resource", URI: t.URITemplate}, v)})
	}
	t.Load = func(ctx context.Context, c *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
		vals := uritemplate.Values{}
		for k, v := range args {
			vals.Set(k, uritemplate.String(v))
		}
		uri, err := tmpl.Expand(vals)
		if err != nil {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: fmt.Sprintf("resource template %q: %v", t.URITemplate, err)}
		}
		return g.read(ctx, c, uri)
	}
	return g.srv.Registry().AddResourceTemplate(t)
}

// complete forwards completion/complete of argument arg of ref.
func (g *Gateway) complete(ref mcp.CompletionRef, arg string) mcp.CompleteFunc {
	return func(ctx context.Context, value string, args map[string]string) ([]string, error) {
		c := mcp.FromContext(ctx)
		var res *mcp.CompletionResult
		err := g.do(ctx, c, "completion/complete", func(ctx context.Context, cl *client.Client) (err error) {
			if cl.Initialize().Capabilities.Completions == nil {
				res = &mcp.CompletionResult{}
				return nil
			}
			res, err = cl.Complete(ctx, ref, arg, value, args)
			return err
		})
		if err != nil {
			return nil, requestError(err)
		}
		return res.Values, nil
	}
}

// addPrompt registers the mirror of an upstream prompt.
func (g *Gateway) addPrompt(raw []byte) error {
	var p mcp.Prompt
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	name := p.Name
	for i := range p.Arguments {
		p.Arguments[i].Complete = g.complete(mcp.CompletionRef{Type: "ref/prompt", Name: name}, p.Arguments[i].Name)
	}
	p.Load = func(ctx context.Context, c *mcp.Context, args map[string]string) (*mcp.PromptResult, error) {
		var res *mcp.PromptResult
		err := g.do(ctx, c, "prompts/get "+name, func(ctx context.Context, cl *client.Client) (err error) {
			res, err = cl.GetPrompt(ctx, name, args)
			return err
		})
		if err != nil {
			return nil, requestError(err)
		}
		return res, nil
	}
	return g.srv.Registry().AddPrompt(p)
}
