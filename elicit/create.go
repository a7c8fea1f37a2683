package elicit

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/eliciturl"
	"github.com/mcpchain/mcp/internal/engine"
)

// Params is an elicitation request (the params of elicitation/create): a
// message for the user and, in form mode, the JSON Schema of the answer
// (a flat object of primitive properties); in URL mode (Mode "url"), the
// URL the user is asked to open. [OpenURL] builds URL-mode requests.
type Params struct {
	// Mode is "form" or "url"; empty means form.
	Mode string `json:"mode,omitempty"`
	// Message is what the user is asked.
	Message string `json:"message"`
	// RequestedSchema is the JSON Schema of the answer, in form mode: an
	// object of primitive properties.
	RequestedSchema any `json:"requestedSchema,omitempty"`
	// ElicitationID identifies a URL-mode elicitation (2025-11-25), for
	// notifications/elicitation/complete.
	ElicitationID string `json:"elicitationId,omitempty"`
	// URL is what the user is asked to open, in URL mode.
	URL string `json:"url,omitempty"`
}

// Result is the user's answer: Action is [ActionAccept], [ActionDecline]
// or [ActionCancel]; Content holds the answer when accepted.
type Result struct {
	// Action is "accept", "decline" or "cancel".
	Action string `json:"action"`
	// Content is the user's answer, when Action is "accept".
	Content map[string]any `json:"content,omitempty"`
}

// The actions of an elicitation result ([Result.Action]).
const (
	// ActionAccept: the user submitted the form (or agreed to open the URL).
	ActionAccept = "accept"
	// ActionDecline: the user explicitly refused.
	ActionDecline = "decline"
	// ActionCancel: the user dismissed the request without choosing.
	ActionCancel = "cancel"
)

// contextOps is what this package needs of a request's mcp.Context that
// package mcp's API does not offer: operations of the engine's view
// (package mcp's engine.go, reached through engine.View, as package
// mcphttp reaches it), named here with their types so that the compiler
// checks the calls.
type contextOps interface {
	// AskNext puts one question of kind to the client c answers for and
	// decodes the answer into res: over an input peer (revision
	// 2026-07-28, a task) under the handler's next key of kind, else as
	// a server-to-client request. An elicitation/create is checked first:
	// its mode declared by the client, its URL one a user may open.
	AskNext(ctx context.Context, c *mcp.Context, declared bool, kind, method string, params, res any) error
	// AsksThroughInputs reports whether c's questions go to an input peer.
	AsksThroughInputs(c *mcp.Context) bool
}

// serverOps is what [Complete] needs of a server: an operation of the
// engine's view, as contextOps.
type serverOps interface {
	// CompleteElicitation sends notifications/elicitation/complete to a
	// session of the server.
	CompleteElicitation(sessionID, elicitationID string)
}

// viewOf is package mcp's engine.View, asserted to its type once.
var viewOf = engine.View.(func(*mcp.Server) any)

// ops is the engine's view; its operations used here need no server.
func ops() contextOps { return viewOf(nil).(contextOps) }

// Create asks the user for input through the client (elicitation/create)
// on behalf of the request c serves; [Form.Ask] and [As] build the form
// from a Go struct and decode the answer. It fails with an error wrapping
// mcp.ErrCapability when the client did not declare elicitation in the
// request's mode (form, or url: mcp.ErrURLElicitation), and mcp.ErrNoPeer
// when the request has no way back to the client (a Context that did not
// come from a request has none). In URL mode p.URL must be one [OpenURL]
// accepts, or nothing is sent. At revision 2026-07-28, and in a task, it
// is a question under the key "elicitation-N" (see mcp.Context.Ask), and
// it returns mcp.ErrInputRequired until the client's answer is in. A nil
// p is sent as {}.
func Create(ctx context.Context, c *mcp.Context, p *Params) (*Result, error) {
	var params any = p
	if p == nil {
		params = struct{}{}
	}
	var res Result
	if err := ops().AskNext(ctx, c, c.ClientCapabilities.Elicitation != nil, "elicitation", "elicitation/create", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// URL-mode elicitation (revision 2025-11-25, and an input-required round
// at 2026-07-28): the server asks the user to open a URL, for what must
// not pass through the client (credentials, a payment, a third party's
// OAuth consent). The interaction happens out of band, between the user's
// browser and the server; the client only learns that the user agreed to
// open the URL, and, at 2025-11-25, that it completed
// (notifications/elicitation/complete).

// URLRequest is one URL-mode elicitation: the URL the user is asked to
// open, why, and the ID that names it in notifications/elicitation/complete
// and in the server's own records (put it in the URL, so the page knows
// which elicitation it completes).
type URLRequest struct {
	// ID identifies the elicitation, unique within the server and hard
	// to guess (the page's URL carries it): make one with crypto/rand's
	// Text. Required.
	ID string
	// URL is the page the user is asked to open: an absolute https URL
	// (http only to this machine: localhost, a loopback address), with no
	// user information before the host and no credentials or personal
	// data in it. Required.
	URL string
	// Message tells the user why. Required.
	Message string
}

// check reports what makes r unusable, naming the field.
func (r URLRequest) check() error {
	if err := eliciturl.CheckElicitation(r.ID, r.Message, r.URL); err != nil {
		return fmt.Errorf("elicit: %w", err)
	}
	return nil
}

// params is r as elicitation/create params; withID adds the
// elicitationId (revision 2025-11-25; 2026-07-28 has none).
func (r URLRequest) params(withID bool) *Params {
	p := &Params{Mode: "url", Message: r.Message, URL: r.URL}
	if withID {
		p.ElicitationID = r.ID
	}
	return p
}

// OpenURL asks the user, through the client, to open r.URL
// (elicitation/create in URL mode). The result's Action says whether the
// user agreed ("accept"), refused ("decline") or dismissed it ("cancel");
// "accept" means the user went to the page, not that the interaction there
// is done: the server learns that from the page itself (its own route,
// see mcp.Server.AddRoute), and may then tell the client with
// [Complete]. At revision 2026-07-28 it is a question
// of an input-required round under the key "elicitation-N", like
// [Create].
//
// It fails with mcp.ErrURLElicitation (an mcp.ErrCapability) when the
// client did not declare elicitation.url, and with an error naming the
// field when r lacks an ID or a message, or its URL is not one a user may
// be asked to open: an absolute https URL, or http to this machine
// (localhost, a loopback address), without user information before the
// host.
func OpenURL(ctx context.Context, c *mcp.Context, r URLRequest) (*Result, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	return Create(ctx, c, r.params(!ops().AsksThroughInputs(c)))
}

// urlRequiredData is the data of a URLRequired error.
type urlRequiredData struct {
	Elicitations []*Params `json:"elicitations"`
}

// URLRequired returns the error a tool returns when it cannot go on until
// the user has opened one or more URLs (a third party's consent,
// credentials the server keeps): the URLElicitationRequiredError of
// revision 2025-11-25, code mcp.CodeURLElicitationRequired (-32042) with
// data.elicitations. The client shows the URLs and may call the tool
// again once they are done ([Complete] tells it).
//
// The same tool works at every revision: at 2026-07-28, which has no such
// error, the server turns it into an input-required round that asks the
// elicitations (in a task, the task's input_required status); once the
// user accepted them all the tool runs again, and while it still returns
// the error (the user has not finished) they are asked again; one the
// user declined or cancelled ends the call with an isError result. A
// client that did not declare elicitation.url gets an isError result that
// says so, at any revision (the spec forbids sending it an elicitation it
// cannot show). An elicitation without an ID or a message, or with a URL
// that [OpenURL] would refuse, is an internal error (-32603) naming the
// field.
func URLRequired(reqs ...URLRequest) *mcp.Error {
	data := urlRequiredData{Elicitations: make([]*Params, len(reqs))}
	msgs := make([]string, len(reqs))
	for i, r := range reqs {
		data.Elicitations[i] = r.params(true)
		msgs[i] = r.Message
	}
	return &mcp.Error{Code: mcp.CodeURLElicitationRequired, Message: "URL elicitation required: " + strings.Join(msgs, "; "), Data: data}
}

// Complete tells the client of session sessionID that the URL-mode
// elicitation elicitationID of srv is done
// (notifications/elicitation/complete, revision 2025-11-25), so that it
// can call again the request that needed it. Call it from wherever the
// server learns so (the page's own route, a webhook); the session ID is
// the mcp.Context.SessionID of the request that asked, which the server
// keeps with the elicitation. The notification goes on the session's
// stream for server-initiated messages (the GET stream over HTTP) of the
// sessions this process serves; a session that is unknown or ended, a
// stateless request and revision 2026-07-28 (whose client calls again
// with the user's answer instead) get nothing, as do an empty session ID
// or elicitation ID.
func Complete(srv *mcp.Server, sessionID, elicitationID string) {
	viewOf(srv).(serverOps).CompleteElicitation(sessionID, elicitationID)
}
