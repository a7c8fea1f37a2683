package proxy

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/client/mcpjson"
)

// ConfigOptions configure [NewConfigGateway]. The zero value (or nil) is
// usable.
type ConfigOptions struct {
	// Server configures the server that mounts the gateways (its Auth,
	// Logger, …). Name defaults to "mcpchain-gateway", Version to
	// "0.0.0".
	Server mcp.Options
	// Gateway is every server's gateway's [Options], but Upstream and
	// Name, which are the server's, and Server, which plays no part in a
	// mounted server (the parent's applies). Serving the parent over
	// stdio, set SingleSession: each downstream session otherwise opens
	// its own upstream session, and a stdio server's is a process.
	Gateway Options
	// Upstream, set, returns the transport to a server for a new
	// upstream connection (see [Options.Upstream]) in place of
	// s.Transport(): an OAuth client, a header derived from the
	// downstream caller.
	Upstream func(s *mcpjson.Server, downstream *mcp.Context) client.Transport
}

// ConfigGateway is one server serving every server of an mcp.json, each
// through a [Gateway] mounted under its name: tool "search" of server
// "docs" is "docs_search" (see mcp.MountOptions). Close it when done.
type ConfigGateway struct {
	srv      *mcp.Server
	names    []string
	gateways map[string]*Gateway
}

// NewConfigGateway starts a gateway to each server of cfg but the
// disabled ones, at once (each bounded by ctx and
// opts.Gateway.ConnectTimeout, as [New] is), and mounts each gateway's
// server under the server's name in one server. It is all or nothing:
// when one or more fail it closes the others and returns a
// *mcpjson.ConnectError naming each with its error.
func NewConfigGateway(ctx context.Context, cfg *mcpjson.Config, opts *ConfigOptions) (*ConfigGateway, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	var o ConfigOptions
	if opts != nil {
		o = *opts
	}
	so := o.Server
	if so.Name == "" {
		so.Name = "mcpchain-gateway"
	}
	if so.Version == "" {
		so.Version = "0.0.0"
	}
	srv, err := newServer(so)
	if err != nil {
		return nil, err
	}
	gws, err := startGateways(ctx, cfg, &o)
	if err != nil {
		return nil, err
	}
	cg := &ConfigGateway{srv: srv, gateways: map[string]*Gateway{}}
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if g := gws[i]; g != nil {
			cg.names = append(cg.names, s.Name)
			cg.gateways[s.Name] = g
		}
	}
	for _, name := range cg.names {
		if _, err := srv.Registry().Mount(name, cg.gateways[name].Server(), nil); err != nil {
			_ = cg.Close()
			return nil, fmt.Errorf("proxy: server %q: %w", name, err)
		}
	}
	return cg, nil
}

// startGateways starts a gateway to each enabled server of cfg, at once:
// gws[i] is cfg.Servers[i]'s (nil for a disabled one).
func startGateways(ctx context.Context, cfg *mcpjson.Config, o *ConfigOptions) ([]*Gateway, error) {
	gws := make([]*Gateway, len(cfg.Servers))
	errs := make([]error, len(cfg.Servers))
	var wg sync.WaitGroup
	for i := range cfg.Servers {
		s := &cfg.Servers[i]
		if s.Disabled {
			continue
		}
		gopts := o.Gateway
		gopts.Name = s.Name
		gopts.Server = mcp.Options{Name: s.Name, Logger: o.Server.Logger}
		gopts.Upstream = func(*mcp.Context) client.Transport { return s.Transport() }
		if o.Upstream != nil {
			gopts.Upstream = func(c *mcp.Context) client.Transport { return o.Upstream(s, c) }
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			gws[i], errs[i] = New(ctx, gopts)
		}()
	}
	wg.Wait()
	ce := &mcpjson.ConnectError{Failed: map[string]error{}}
	for i, err := range errs {
		if err != nil {
			ce.Failed[cfg.Servers[i].Name] = err
		} else if gws[i] != nil {
			ce.Connected = append(ce.Connected, cfg.Servers[i].Name)
		}
	}
	if len(ce.Failed) == 0 {
		return gws, nil
	}
	for _, g := range gws {
		if g != nil {
			_ = g.Close()
		}
	}
	return nil, ce
}

// Server is the server that mounts every gateway: serve it with mcphttp
// or stdio, or mount it in a parent of your own.
func (cg *ConfigGateway) Server() *mcp.Server { return cg.srv }

// Names are the mounted servers' names, in order.
func (cg *ConfigGateway) Names() []string { return append([]string(nil), cg.names...) }

// Gateway returns the gateway of the server named name, or nil.
func (cg *ConfigGateway) Gateway(name string) *Gateway { return cg.gateways[name] }

// Close closes every gateway (see [Gateway.Close]) and returns their
// errors joined.
func (cg *ConfigGateway) Close() error {
	var errs []error
	for _, name := range cg.names {
		if err := cg.gateways[name].Close(); err != nil {
			errs = append(errs, fmt.Errorf("server %q: %w", name, err))
		}
	}
	return errors.Join(errs...)
}
