package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/state"
)

// The caller-state row: stateful's call, but of a tool that reads and
// writes the caller's own state (state.Get and state.Set with
// state.Caller) on the default in-memory store, for a caller an
// Options.Authenticate hook identifies by a header. What it costs above
// stateful is the Authenticate call and the identity-to-state lookup of
// every call, which this row gates.

// callerHeader names the caller in the caller-state row's requests.
const callerHeader = "X-Perfgate-User"

// callerBody calls visit, which counts the caller's calls.
const callerBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"visit","arguments":{}}}`

// visitor is the auth data of the caller-state row: a subject, so that
// its state is its own.
type visitor string

func (v visitor) Subject() string { return string(v) }

// setupCallerState is stateful's engine on a server whose tool visit
// counts its caller's calls in the caller's state and returns the count;
// every request names the same caller.
func setupCallerState() (func() error, func() error, error) {
	srv := mcp.NewServer(mcp.Options{Name: "perfgate", Version: "1.0.0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Authenticate: func(r *http.Request) (any, error) {
			if u := r.Header.Get(callerHeader); u != "" {
				return visitor(u), nil
			}
			return nil, fmt.Errorf("%w: no %s", mcp.ErrUnauthorized, callerHeader)
		}})
	type none struct{}
	mcp.AddTool(srv, mcp.Tool{Name: "visit", Description: "Count the caller's calls"},
		func(ctx context.Context, c *mcp.Context, _ none) (string, error) {
			n, _, err := state.Get[int](ctx, state.Caller(c), "visits")
			if err != nil {
				return "", err
			}
			n++
			return strconv.Itoa(n), state.Set(ctx, state.Caller(c), "visits", n)
		})
	e, err := newEngineWith(srv, nil)
	if err != nil {
		return nil, nil, err
	}
	e.r.Header.Set(callerHeader, "ada")
	if err := e.initialize(); err != nil {
		return nil, nil, err
	}
	n := 0
	var want []byte
	op := func() error {
		n++
		want = append(append(append(want[:0], `"text":"`...), strconv.Itoa(n)...), '"')
		e.post(callerBody)
		if e.w.status != http.StatusOK || !bytes.Contains(e.w.body.Bytes(), want) {
			return fmt.Errorf("tools/call visit %d: %d %s", n, e.w.status, e.w.body.String())
		}
		return nil
	}
	return op, e.close, nil
}
