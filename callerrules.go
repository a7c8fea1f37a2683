package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchain/mcp/access"
	"github.com/mcpchain/mcp/internal/engine"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// MaxCallerRules is how many Disable and Enable rules one caller may have
// of its own ([Server.CallerRegistry]); a rule past it fails with
// [ErrInvalidDefinition]. A rule with the Match of an earlier one
// replaces it, so a caller's rules stay few when they are kept by name.
const MaxCallerRules = 64

// maxCallerRulesBytes bounds the encoding of one caller's rules: they are
// read from the shared store on the replicas that serve the caller.
const maxCallerRulesBytes = 64 << 10

// callerRulesFresh is how long a replica uses a caller's rules it read
// from the store before it reads them again. A change made on another
// replica reaches this one sooner through the transport's relay
// (mcphttp.Options.Relay), which drops the rules read; this bound is what
// is left when a relayed message is lost, or there is no relay.
const callerRulesFresh = 2 * time.Second

// maxCachedCallers bounds the callers whose rules a server keeps in
// memory; past it the cache starts over.
const maxCachedCallers = 10000

// ErrCallerRules is wrapped by the error of a request whose caller's own
// rules ([Server.CallerRegistry]) could not be read from the store: the
// server cannot tell what the caller may see, so it shows nothing (lists
// are empty) and refuses calls, reads and gets with this error, rather
// than show what a rule may hide.
var ErrCallerRules = errors.New("mcp: the caller's visibility rules could not be read")

// callerRules is the server's side of the callers' own rules: the
// transports' stores and a cache of the rules read from them.
type callerRules struct {
	mu     sync.RWMutex
	stores []*ruleStore // the transports' stores, the latest last
	cache  map[string]cachedRules
	// gen counts the changes and invalidations: a read of the store that
	// began before one is not cached.
	gen uint64
	// failed counts the reads that failed, for the log's rate.
	failed atomic.Uint64
}

// ruleStore is one transport's store of the callers' rules.
type ruleStore struct{ engine.CallerRules }

// storeLocked is the store that serves, nil when none; cr.mu is held.
func (cr *callerRules) storeLocked() engine.CallerRules {
	if n := len(cr.stores); n > 0 {
		return cr.stores[n-1].CallerRules
	}
	return nil
}

// cachedRules is one caller's rules as read at a time.
type cachedRules struct {
	rules []rule
	at    time.Time
}

// CallerRegistry returns the registry of the rules of one caller, the
// authenticated caller whose auth data is auth (c.Session in a tool): its
// [Registry.Disable] and [Registry.Enable] hide and show objects to that
// caller alone, at every revision (2026-07-28 and stateless HTTP, which
// have no session, included), in every session and sessionless request
// of the caller, on every replica that shares the transport's store
// (mcphttp.Options.Sessions, on Redis).
//
// The rules apply after the server's and before those of the caller's
// session ([Server.SessionRegistry]): the last rule that selects an
// object decides. They live in the store as the caller's state does
// ([Context.Caller]), until they have not changed for
// mcphttp.Options.CallerStateTTL; a caller may have [MaxCallerRules]. A
// change that changes what the caller sees sends it list_changed for the
// kinds concerned, as [Server.ListChangedFor] does: its
// subscriptions/listen streams on every replica sharing the relay hear
// it, and so do its sessions' streams in this process.
//
// The server must be made with Options.CallerRules, on every replica:
// a replica reads a caller's rules only then, so that a server without
// them pays nothing for them. A replica keeps the rules it read for a
// caller for up to two seconds; a change made elsewhere reaches it
// sooner through the relay (mcphttp.Options.Relay), which drops them. A
// change made in this process applies at once.
//
// Rules hold no functions, which is what lets them travel to other
// replicas: the registry's Add methods, Remove, Mount and Import fail
// with [ErrInvalidDefinition]. To give a caller a tool of its own,
// register the tool server-wide, hide it with a server-wide Disable, and
// Enable it for the caller. Disable and Enable fail with [ErrNoCaller] for
// an anonymous caller or auth data without a subject ([Subject]), with
// [ErrInvalidDefinition] without Options.CallerRules or past
// MaxCallerRules, and with the store's error.
//
// When a caller's rules cannot be read (the store fails), the server
// fails closed: the caller's lists are empty and its calls, reads and
// gets fail with an error wrapping [ErrCallerRules].
func (s *Server) CallerRegistry(auth any) *Registry {
	return &Registry{s: s, auth: auth, caller: true}
}

// callerKeyOf is the identity key of auth, or ErrNoCaller saying why it
// has none.
func callerKeyOf(auth any) (string, error) {
	if k, ok := identity.Key(auth); ok {
		return k, nil
	}
	if identity.Of(auth) == identity.Anonymous {
		return "", fmt.Errorf("%w: the caller's own rules (Server.CallerRegistry) need the auth data of a signed-in caller, and auth is nil (anonymous)", ErrNoCaller)
	}
	return "", fmt.Errorf("%w: the caller's own rules (Server.CallerRegistry) need auth data with a subject (mcp.Subject, a non-empty one); %T has none", ErrNoCaller, auth)
}

// useCallerRules adds st to the stores of the callers' rules until stop
// is called (engineView.UseCallerRules); the latest one serves.
func (s *Server) useCallerRules(st engine.CallerRules) (stop func()) {
	cr := &s.callers
	h := &ruleStore{st}
	cr.mu.Lock()
	cr.stores = append(slices.Clone(cr.stores), h)
	cr.mu.Unlock()
	return func() {
		cr.mu.Lock()
		cr.stores = slices.DeleteFunc(slices.Clone(cr.stores), func(x *ruleStore) bool { return x == h })
		cr.gen++
		cr.cache = nil
		cr.mu.Unlock()
	}
}

// callerChanged drops what this process read of the rules of the caller
// whose identity key is key: another replica changed them, or its lists
// (engineView.CallerChanged, called for a relayed change).
func (s *Server) callerChanged(key string) {
	if !s.opts.CallerRules {
		return
	}
	cr := &s.callers
	cr.mu.Lock()
	delete(cr.cache, key)
	cr.gen++
	cr.mu.Unlock()
}

// rulesOfCaller returns the own rules of the caller whose auth data is
// auth: none when the server has no caller rules or the caller no key;
// an error wrapping ErrCallerRules when they cannot be read.
func (s *Server) rulesOfCaller(ctx context.Context, auth any) ([]rule, error) {
	if !s.opts.CallerRules {
		return nil, nil
	}
	key, ok := identity.Key(auth)
	if !ok {
		return nil, nil
	}
	cr := &s.callers
	now := time.Now()
	cr.mu.RLock()
	e, hit := cr.cache[key]
	gen := cr.gen
	st := cr.storeLocked()
	cr.mu.RUnlock()
	if hit && now.Sub(e.at) < callerRulesFresh {
		return e.rules, nil
	}
	if st == nil {
		return nil, nil // no transport: nothing was stored
	}
	raw, err := st.CallerRules(ctx, key)
	if err == nil {
		var rules []rule
		if rules, err = decodeCallerRules(raw); err == nil {
			cr.mu.Lock()
			if cr.gen == gen {
				cr.putLocked(key, rules, now)
			}
			cr.mu.Unlock()
			return rules, nil
		}
	}
	if n := cr.failed.Add(1); n&(n-1) == 0 { // the 1st, 2nd, 4th, … failure
		s.logger.Error("mcp: reading a caller's visibility rules failed; the caller is shown nothing until they can be read", "error", err, "failures", n)
	}
	return nil, fmt.Errorf("%w (the store failed: %v); try again", ErrCallerRules, err)
}

// putLocked caches rules for key, read at; cr.mu is held.
func (cr *callerRules) putLocked(key string, rules []rule, at time.Time) {
	if cr.cache == nil || len(cr.cache) >= maxCachedCallers {
		cr.cache = map[string]cachedRules{}
	}
	cr.cache[key] = cachedRules{rules: rules, at: at}
}

// setCallerRule adds a rule of the caller whose auth data is auth
// ([Registry.Disable] on a [Server.CallerRegistry]).
func (s *Server) setCallerRule(auth any, m Match, on bool) error {
	if err := m.check(); err != nil {
		return err
	}
	key, err := callerKeyOf(auth)
	if err != nil {
		return err
	}
	if !s.opts.CallerRules {
		return invalid("the caller's own rules need mcp.Options.CallerRules, on every replica (a replica without it does not read them)")
	}
	cr := &s.callers
	cr.mu.RLock()
	st := cr.storeLocked()
	cr.mu.RUnlock()
	if st == nil {
		return invalid("the caller's own rules live in the transport's store, and no transport serves this server yet (mcphttp.New)")
	}
	r := rule{m: cloneMatch(m), key: m.key(), on: on}
	var before, after []rule
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = st.UpdateCallerRules(ctx, key, func(raw json.RawMessage) (json.RawMessage, error) {
		var err error
		if before, err = decodeCallerRules(raw); err != nil {
			return nil, err
		}
		after = replaceRule(before, r)
		if len(after) > MaxCallerRules {
			return nil, invalid("the caller has %d rules of its own, the limit (mcp.MaxCallerRules); "+
				"a rule with the Match of an earlier one replaces it, and a Match may name several objects or a tag", MaxCallerRules)
		}
		return encodeCallerRules(after)
	})
	if err != nil {
		if errors.Is(err, ErrInvalidDefinition) {
			return err
		}
		return fmt.Errorf("mcp: storing the caller's rules: %w", err)
	}
	cr.mu.Lock()
	cr.gen++
	cr.putLocked(key, after, time.Now())
	cr.mu.Unlock()
	server := s.vis.serverRules()
	reg := s.reg.Load()
	for _, k := range []access.Kind{access.KindTool, access.KindResource, access.KindPrompt} {
		if m.Kind != "" && m.Kind != k {
			continue
		}
		if s.hasMounts() || flips(reg, nil, k, func(b *entryBase) bool { return allowed(server, before, nil, b) },
			func(b *entryBase) bool { return allowed(server, after, nil, b) }) {
			s.notify(change{Kind: changeKindOf(k), Caller: key})
		}
	}
	return nil
}

// storedRule is a rule as it is kept in the store.
type storedRule struct {
	Kind  access.Kind `json:"k,omitempty"`
	Names []string    `json:"n,omitempty"`
	Tags  []string    `json:"t,omitempty"`
	On    bool        `json:"on,omitempty"`
}

// encodeCallerRules is rules as the store keeps them; nil for none.
func encodeCallerRules(rules []rule) (json.RawMessage, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	out := make([]storedRule, len(rules))
	for i, r := range rules {
		out[i] = storedRule{Kind: r.m.Kind, Names: r.m.Names, Tags: r.m.Tags, On: r.on}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if len(b) > maxCallerRulesBytes {
		return nil, invalid("the caller's rules would be %d bytes, over the limit of %d", len(b), maxCallerRulesBytes)
	}
	return b, nil
}

// decodeCallerRules reads rules as the store keeps them (nil: none),
// refusing what encodeCallerRules would not have written: the store is
// shared, and what it holds is read by every replica.
func decodeCallerRules(b json.RawMessage) ([]rule, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	if len(b) > maxCallerRulesBytes {
		return nil, fmt.Errorf("the stored rules are %d bytes, over the limit of %d", len(b), maxCallerRulesBytes)
	}
	if err := strictjson.Check(b, 4); err != nil {
		return nil, fmt.Errorf("the stored rules are not valid: %w", err)
	}
	var in []storedRule
	if err := strictjson.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("the stored rules are not valid: %w", err)
	}
	if len(in) > MaxCallerRules {
		return nil, fmt.Errorf("the store holds %d rules, over the limit of %d", len(in), MaxCallerRules)
	}
	rules := make([]rule, len(in))
	for i, r := range in {
		m := Match{Kind: r.Kind, Names: r.Names, Tags: r.Tags}
		if err := m.check(); err != nil {
			return nil, fmt.Errorf("the stored rules are not valid: %w", err)
		}
		rules[i] = rule{m: m, key: m.key(), on: r.On}
	}
	return rules, nil
}

// checkCallerRules is the error a call, read or get answers when the
// caller's own rules cannot be read (nil when they can, or the server
// has none), and whether the caller has rules, which make what it reads
// its own (a cache must not share it).
func (s *Server) checkCallerRules(ctx context.Context, auth any) (has bool, err error) {
	if !s.opts.CallerRules {
		return false, nil
	}
	rules, err := s.rulesOfCaller(ctx, auth)
	if err != nil {
		// The store's words stay in the server's log.
		return false, &Error{Code: CodeInternalError, Message: "the server could not read the caller's visibility rules, so it shows the caller nothing; try again later",
			sentinel: ErrCallerRules}
	}
	return len(rules) > 0, nil
}
