// Package state keeps a tool's state between requests, in the
// transport's store (mcphttp.Options.Sessions: memory, or Redis shared by
// every replica). There are three scopes, and the same calls ([Get],
// [Set], [Delete]) serve them all:
//
//   - [Caller]: the authenticated caller's own state, keyed by its
//     subject (mcp.Subject), the same at every revision, on every replica
//     that shares the store, for every session and sessionless request
//     of that caller. An anonymous caller has none (mcp.ErrNoCaller).
//   - [ForHandle]: the state a [Handle] names, a handle [NewHandle] made
//     and a tool returned, which the client or model passes back as an
//     argument (the explicit state handles of SEP-2567). It belongs to the
//     caller that made it; an anonymous caller's handle is a bearer token.
//     [ErrUnknownHandle] once it expired or ended.
//   - [Session]: the request's session (revisions 2025-03-26 to
//     2025-11-25 on a stateful handler, stdio, embedded). Revision
//     2026-07-28 and stateless HTTP have none (mcp.ErrNoSession).
//
// A tool that keeps a cart for its caller:
//
//	func addToCart(ctx context.Context, c *mcp.Context, in struct{ Item string }) (string, error) {
//		items, _, err := state.Get[[]string](ctx, state.Caller(c), "cart")
//		if err != nil {
//			return "", err
//		}
//		items = append(items, in.Item)
//		return strings.Join(items, ", "), state.Set(ctx, state.Caller(c), "cart", items)
//	}
//
// Values are stored as JSON and bounded (mcphttp.Options.MaxStateValue,
// MaxSessionState: a [*SizeError]); keys are 1 to [MaxKeyLen] bytes. The
// scope is resolved from the request the mcp.Context serves: a Context
// that did not come from a transport keeps no state, and a caller is
// compared with another by the same rule everywhere (its subject), so a
// handle or a caller's state is never another caller's.
package state
