package state_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/state"
)

// subject is auth data with a subject, as an Authenticate hook returns.
type subject string

func (s subject) Subject() string { return string(s) }

// TestMadeUpContextKeepsNothing: a Context that did not come from a
// transport (built by hand, claiming a caller) reaches no store: every
// call fails and says why, for each scope; an empty Scope and a bad key
// fail before any store is asked.
func TestMadeUpContextKeepsNothing(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := &mcp.Context{Session: subject("ada"), SessionID: "s1"}
	for name, s := range map[string]state.Scope{
		"caller":  state.Caller(c),
		"handle":  state.ForHandle(c, "h"),
		"session": state.Session(c),
	} {
		t.Run(name, func(t *testing.T) {
			require.ErrorContains(t, state.Set(ctx, s, "k", 1), "keeps no state")
			_, found, err := state.Get[int](ctx, s, "k")
			require.ErrorContains(t, err, "keeps no state")
			assert.False(t, found)
			require.ErrorContains(t, state.Delete(ctx, s, "k"), "keeps no state")
		})
	}
	require.ErrorIs(t, state.Set(ctx, state.Session(c), "k", 1), mcp.ErrNoSession, "the session scope says there is no session")
	_, err := state.NewHandle(ctx, c)
	require.ErrorContains(t, err, "keeps no state")
	require.ErrorContains(t, state.EndHandle(ctx, c, "h"), "keeps no state")

	require.ErrorContains(t, state.Set(ctx, state.Scope{}, "k", 1), "the Scope is empty")
	require.ErrorContains(t, state.Set(ctx, state.Caller(c), "", 1), "a key must be 1 to 256 bytes")

	anon := &mcp.Context{}
	require.ErrorIs(t, state.Set(ctx, state.Caller(anon), "k", 1), mcp.ErrNoCaller, "an anonymous caller has no state of its own")
}

// TestHandleArgumentIsDescribed: a tool argument of type Handle tells the
// model how to get one, unless its field describes it.
func TestHandleArgumentIsDescribed(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "carts", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "add"}, func(context.Context, *mcp.Context, struct {
		Cart  state.Handle `json:"cart"`
		Other state.Handle `json:"other" jsonschema:"the cart to compare with"`
	}) (string, error) {
		return "", nil
	})
	tools := srv.ListTools(t.Context(), nil)
	require.Len(t, tools, 1)
	b, err := json.Marshal(tools[0].InputSchema)
	require.NoError(t, err)
	var schema struct {
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(b, &schema))
	assert.Equal(t, "string", schema.Properties["cart"].Type)
	assert.Contains(t, schema.Properties["cart"].Description, "A state handle, exactly as a tool of this server returned it")
	assert.Equal(t, "the cart to compare with", schema.Properties["other"].Description)
}
