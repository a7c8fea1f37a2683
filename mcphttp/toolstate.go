package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/session"
)

// The tools' session state (mcp.SetState, mcp.GetState): a request's
// peer is its engine.SessionState. The state lives in the session's
// stored record (session.Record.State), so it follows the session to
// every replica and ends with it, and costs a request that does not use
// it nothing.

// GetState implements engine.SessionState for the request's session;
// mcp.ErrNoSession for a request without one (stateless, 2026-07-28).
func (p *requestPeer) GetState(ctx context.Context, key string) (json.RawMessage, bool, error) {
	if p.c.ephemeral {
		return nil, false, mcp.ErrNoSession
	}
	return p.c.getState(ctx, key)
}

// SetState implements engine.SessionState for the request's session;
// mcp.ErrNoSession for a request without one.
func (p *requestPeer) SetState(ctx context.Context, key string, value json.RawMessage) error {
	if p.c.ephemeral {
		return mcp.ErrNoSession
	}
	return p.c.setState(ctx, key, value)
}

// getState returns the value of key in the stored record, as another
// replica may have written it.
func (c *sessionState) getState(ctx context.Context, key string) (json.RawMessage, bool, error) {
	rec, err := c.h.store.Get(ctx, c.sess.ID)
	if err != nil {
		return nil, false, c.stateError(err)
	}
	v, ok := rec.State[key]
	return v, ok, nil
}

// setState sets key to value with one atomic update of the stored record
// (Store.Update), so a concurrent write of another key is never lost;
// value nil deletes key.
func (c *sessionState) setState(ctx context.Context, key string, value json.RawMessage) error {
	maxValue := limit(c.h.opts.MaxStateValue, DefaultMaxStateValue)
	if value != nil && maxValue > 0 && len(value) > maxValue {
		return &mcp.StateSizeError{Key: key, Size: len(value), Limit: maxValue}
	}
	maxTotal := limit(c.h.opts.MaxSessionState, DefaultMaxSessionState)
	err := c.h.store.Update(ctx, c.sess.ID, c.h.sessionTTL(), func(r *session.Record) error {
		if value == nil {
			delete(r.State, key)
			if len(r.State) == 0 {
				r.State = nil
			}
			return nil
		}
		if maxTotal > 0 {
			size := len(key) + len(value)
			for k, v := range r.State {
				if k != key {
					size += len(k) + len(v)
				}
			}
			if size > maxTotal {
				return &mcp.StateSizeError{Key: key, Size: size, Limit: maxTotal, Session: true}
			}
		}
		if r.State == nil {
			r.State = map[string]json.RawMessage{}
		}
		r.State[key] = value
		return nil
	})
	if errors.Is(err, mcp.ErrStateTooLarge) {
		return err
	}
	if err != nil {
		return c.stateError(err)
	}
	return nil
}

// stateError words a store's failure for the tool.
func (c *sessionState) stateError(err error) error {
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("%w: the session ended or expired", mcp.ErrNoSession)
	}
	return fmt.Errorf("mcphttp: the session store failed: %w", err)
}

// limit is an option's value: def when zero, none (0) when negative.
func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
