// Package approval asks the user to approve a call of a destructive tool
// on a page of the server, in a way neither the client nor the model can
// forge: a headless client, or a model that a prompt injection steers,
// cannot approve by answering a form.
//
// [Approvals.Mount] installs a guard on every tool call (mcp.AddToolGuard).
// A call that Config.Require selects (by default, tools whose
// destructiveHint is true, or tagged [Tag]) runs only if the user approved
// this very call: the guard answers the first call with a URL elicitation
// to the approval page, which shows the tool and its arguments to the
// user signed in in the browser (Config.SignIn, a providers.Proxy) and
// only to the user who made the call. The user's decision is signed
// (HMAC-SHA256 under Config.Key), bound to the user, the tool and the
// SHA-256 of the call's canonical arguments, single-use (the call takes
// it atomically from the storage) and expiring (Config.DecisionTTL). The
// client then calls again (2025-11-25), or the server runs the call
// again itself after the input-required round (2026-07-28); sessionless
// and across replicas, since requests and decisions live in the shared
// storage.
//
// docs/accounts.md shows a whole server; docs/security.md lists the
// threats and the tests that pin them.
package approval
