package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/session"
)

// callerRuleStore keeps the callers' own rules (mcp.Server.CallerRegistry)
// in the handler's store, one record per caller beside its state, so that
// every replica sharing the store reads them; they live
// Options.CallerStateTTL from their last change.
type callerRuleStore struct{ h *Handler }

// rulesKey is the key of the rules in their record's State.
const rulesKey = "rules"

// CallerRules implements engine.CallerRules.
func (s callerRuleStore) CallerRules(ctx context.Context, owner string) (json.RawMessage, error) {
	rec, err := s.h.store.Get(ctx, stateRecordID(stateOfRules, owner, ""))
	switch {
	case errors.Is(err, session.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, storeFailed(err)
	}
	return rec.State[rulesKey], nil
}

// UpdateCallerRules implements engine.CallerRules.
func (s callerRuleStore) UpdateCallerRules(ctx context.Context, owner string, fn func(json.RawMessage) (json.RawMessage, error)) error {
	id, ttl := stateRecordID(stateOfRules, owner, ""), s.h.callerStateTTL()
	set := func(r *session.Record) error {
		v, err := fn(r.State[rulesKey])
		if err != nil {
			return err
		}
		return setKey(rulesKey, v, 0)(r)
	}
	for range 3 {
		err := s.h.store.Update(ctx, id, ttl, set)
		if !errors.Is(err, session.ErrNotFound) {
			return rulesWriteError(err)
		}
		rec := newStateRecord(id)
		if err := set(rec); err != nil {
			return err
		}
		if rec.State == nil {
			return nil // no rules, and none were stored
		}
		err = s.h.store.Create(ctx, rec, ttl)
		if !errors.Is(err, session.ErrExists) {
			return rulesWriteError(err)
		}
		// Another request made it first: update theirs.
	}
	return fmt.Errorf("mcphttp: the caller's rules record kept appearing and vanishing; try again")
}

// rulesWriteError words a store's failure of a write of rules; the
// server's own refusal (mcp.ErrInvalidDefinition) as it is.
func rulesWriteError(err error) error {
	if err == nil || errors.Is(err, mcp.ErrInvalidDefinition) {
		return err
	}
	return storeFailed(err)
}
