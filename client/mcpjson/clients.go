package mcpjson

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
)

// Separator joins a server's name and its tool's name in
// [Clients.ListTools] and [Clients.CallTool]: tool "search" of server
// "docs" is "docs_search", as mcp.Server.Mount names a mounted tool.
const Separator = "_"

// Clients are connections to the servers of a [Config], one
// [client.Client] each. It is safe for concurrent use. Close it when
// done.
type Clients struct {
	names   []string // connected servers, ordered
	clients map[string]*client.Client
}

// ConnectError is the error of [Connect] (and of proxy.NewConfigGateway)
// when servers did not connect: Failed maps each one's name to its error.
type ConnectError struct {
	Failed map[string]error
	// Connected are the servers that did connect (their names in
	// order), which were closed unless [ConnectOptions.Partial] kept
	// them.
	Connected []string
}

func (e *ConnectError) Error() string {
	var b strings.Builder
	b.WriteString("mcpjson: ")
	for i, name := range sortedKeys(e.Failed) {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "server %q: %v", name, e.Failed[name])
	}
	return b.String()
}

// Unwrap returns each server's error, for errors.Is and errors.As.
func (e *ConnectError) Unwrap() []error {
	var errs []error
	for _, name := range sortedKeys(e.Failed) {
		errs = append(errs, e.Failed[name])
	}
	return errs
}

// ConnectOptions configure [Connect]. The zero value (or nil) is usable.
type ConnectOptions struct {
	// Client, set, returns the options of each server's client (its
	// Info, its callbacks), so that a callback can tell which server
	// called it: a sampling request, a list change, a log message. It
	// may return the same options for every server; nil options are
	// client.Connect's defaults.
	Client func(s *Server) *client.Options
	// Partial keeps the servers that connected when some did not:
	// Connect returns them with its *ConnectError. Without it Connect is
	// all or nothing: it closes the servers that connected and returns
	// a nil *Clients with the error.
	Partial bool
	// Transport, set, returns the transport to each server in place of
	// [Server.Transport] (an OAuth client, an http.Client of one's own).
	Transport func(s *Server) (client.Transport, error)
}

// Connect connects to every server of cfg at once, but the disabled ones
// ([Server.Disabled]). When one or more fail the error is a
// *ConnectError naming each with its error, and what Connect returns
// depends on opts.Partial. ctx bounds the connecting only.
func Connect(ctx context.Context, cfg *Config, opts *ConnectOptions) (*Clients, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	var o ConnectOptions
	if opts != nil {
		o = *opts
	}
	type result struct {
		name string
		cl   *client.Client
		err  error
	}
	var wg sync.WaitGroup
	results := make([]result, len(cfg.Servers))
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if s.Disabled {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl, err := connect(ctx, s, &o)
			results[i] = result{s.Name, cl, err}
		}()
	}
	wg.Wait()
	cs := &Clients{clients: map[string]*client.Client{}}
	ce := &ConnectError{Failed: map[string]error{}}
	for _, r := range results {
		switch {
		case r.err != nil:
			ce.Failed[r.name] = r.err
		case r.cl != nil:
			cs.names = append(cs.names, r.name)
			cs.clients[r.name] = r.cl
		}
	}
	if len(ce.Failed) == 0 {
		return cs, nil
	}
	ce.Connected = cs.names
	if o.Partial {
		return cs, ce
	}
	_ = cs.Close()
	return nil, ce
}

func connect(ctx context.Context, s *Server, o *ConnectOptions) (*client.Client, error) {
	var t client.Transport
	if o.Transport != nil {
		var err error
		if t, err = o.Transport(s); err != nil {
			return nil, err
		}
	} else {
		t = s.Transport()
	}
	var co *client.Options
	if o.Client != nil {
		co = o.Client(s)
	}
	return client.Connect(ctx, t, co)
}

// Names are the connected servers' names, in order.
func (cs *Clients) Names() []string { return append([]string(nil), cs.names...) }

// Client returns the client of the server named name, or nil when it is
// not connected.
func (cs *Clients) Client(name string) *client.Client { return cs.clients[name] }

// ListTools lists every connected server's tools, each named server +
// [Separator] + its name, server by server in order. It fails, naming
// the server, when one fails.
func (cs *Clients) ListTools(ctx context.Context) ([]mcp.Tool, error) {
	var all []mcp.Tool
	for _, name := range cs.names {
		tools, err := cs.clients[name].ListTools(ctx)
		if err != nil {
			return nil, fmt.Errorf("mcpjson: server %q: %w", name, err)
		}
		for _, t := range tools {
			t.Name = name + Separator + t.Name
			all = append(all, t)
		}
	}
	return all, nil
}

// ErrUnknownServer is the error of [Clients.CallTool] for a name whose
// prefix is no connected server.
var ErrUnknownServer = errors.New("mcpjson: no such server")

// Split returns the server and tool names of a namespaced tool name
// (server + [Separator] + tool); ok is false when name has no separator.
func Split(name string) (server, tool string, ok bool) {
	return strings.Cut(name, Separator)
}

// CallTool calls the tool named server + [Separator] + tool on that
// server, as [client.Client.CallTool] does. A name without the
// separator, or whose server is not connected, is an error wrapping
// [ErrUnknownServer].
func (cs *Clients) CallTool(ctx context.Context, name string, args any, opts *client.CallOptions) (*mcp.ContentResult, error) {
	server, tool, ok := Split(name)
	if !ok {
		return nil, fmt.Errorf("%w: tool %q has no server prefix (server%stool)", ErrUnknownServer, name, Separator)
	}
	cl := cs.clients[server]
	if cl == nil {
		return nil, fmt.Errorf("%w: %q (tool %q; connected: %s)", ErrUnknownServer, server, name, strings.Join(cs.names, ", "))
	}
	return cl.CallTool(ctx, tool, args, opts)
}

// Close closes every server's connection (a stdio server's process
// ends), at once, and returns their errors joined.
func (cs *Clients) Close() error {
	var wg sync.WaitGroup
	errs := make([]error, len(cs.names))
	for i, name := range cs.names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cs.clients[name].Close(); err != nil {
				errs[i] = fmt.Errorf("server %q: %w", name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func sortedKeys(m map[string]error) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
