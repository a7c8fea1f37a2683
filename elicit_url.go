package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpchain/mcp/internal/eliciturl"
	"github.com/mcpchain/mcp/internal/engine"
)

// URL-mode elicitation (revision 2025-11-25, and an input-required round
// at 2026-07-28): the server asks the user to open a URL, for what must
// not pass through the client (credentials, a payment, a third party's
// OAuth consent). The interaction happens out of band, between the user's
// browser and the server; the client only learns that the user agreed to
// open the URL, and, at 2025-11-25, that it completed
// (notifications/elicitation/complete).

// URLElicitation is one URL-mode elicitation: the URL the user is asked to
// open, why, and the ID that names it in notifications/elicitation/complete
// and in the server's own records (put it in the URL, so the page knows
// which elicitation it completes).
type URLElicitation struct {
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

// ErrURLElicitation is what [Context.ElicitURL] and a tool's
// [URLElicitationRequired] error come to when the client did not declare
// URL-mode elicitation (elicitation.url); it wraps [ErrCapability].
var ErrURLElicitation error = capabilityError("mcp: the client did not declare that capability: URL-mode elicitation needs the client to declare the capability elicitation.url (revision 2025-11-25 or later)")

// errFormElicitation is what a form-mode elicitation gets when the client
// declared URL mode only.
var errFormElicitation error = capabilityError("mcp: the client did not declare that capability: form-mode elicitation needs the client to declare elicitation.form (or elicitation {}); it declared URL mode only")

// capabilityError is an [ErrCapability] with a message of its own (a
// string type, so that the package's init allocates nothing for it).
type capabilityError string

func (e capabilityError) Error() string { return string(e) }

func (e capabilityError) Unwrap() error { return ErrCapability }

// check reports what makes e unusable, naming the field.
func (e URLElicitation) check() error {
	switch {
	case e.ID == "":
		return errors.New("mcp: URLElicitation.ID is empty: make one with crypto/rand.Text() (notifications/elicitation/complete names it)")
	case strings.TrimSpace(e.Message) == "":
		return errors.New("mcp: URLElicitation.Message is empty: the user must be told why to open the URL")
	}
	if err := eliciturl.Check(e.URL); err != nil {
		return fmt.Errorf("mcp: URLElicitation.URL: %w", err)
	}
	return nil
}

// checkElicitURL refuses the params of an elicitation/create in URL mode
// whose URL is not one a user may be asked to open (internal/eliciturl:
// an absolute https URL, or http to this machine, without user
// information): whatever the params' type, as they go on the wire.
func checkElicitURL(params any) error {
	var mode, u string
	switch p := params.(type) {
	case *ElicitParams:
		if p == nil {
			return nil
		}
		mode, u = p.Mode, p.URL
	case ElicitParams:
		mode, u = p.Mode, p.URL
	default:
		b, err := json.Marshal(params)
		if err != nil {
			return nil // not sent either
		}
		var w struct {
			Mode string `json:"mode"`
			URL  string `json:"url"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			return nil // not an object: not URL mode
		}
		mode, u = w.Mode, w.URL
	}
	if mode != "url" {
		return nil
	}
	if err := eliciturl.Check(u); err != nil {
		return fmt.Errorf("mcp: a URL-mode elicitation: %w", err)
	}
	return nil
}

// params is e as elicitation/create params; withID adds the
// elicitationId (revision 2025-11-25; 2026-07-28 has none).
func (e URLElicitation) params(withID bool) *ElicitParams {
	p := &ElicitParams{Mode: "url", Message: e.Message, URL: e.URL}
	if withID {
		p.ElicitationID = e.ID
	}
	return p
}

// ElicitURL asks the user, through the client, to open e.URL
// (elicitation/create in URL mode). The result's Action says whether the
// user agreed ("accept"), refused ("decline") or dismissed it ("cancel");
// "accept" means the user went to the page, not that the interaction there
// is done: the server learns that from the page itself (its own route,
// see [Server.AddRoute]), and may then tell the client with
// [Server.CompleteElicitation]. At revision 2026-07-28 it is a question
// of an input-required round under the key "elicitation-N", like
// [Context.Elicit].
//
// It fails with [ErrURLElicitation] (an [ErrCapability]) when the client
// did not declare elicitation.url, and with an error naming the field when
// e lacks an ID or a message, or its URL is not one a user may be asked to
// open: an absolute https URL, or http to this machine (localhost, a
// loopback address), without user information before the host.
func (c *Context) ElicitURL(ctx context.Context, e URLElicitation) (*ElicitResult, error) {
	if err := e.check(); err != nil {
		return nil, err
	}
	_, rev20260728 := c.req.peer.(inputPeer)
	return c.Elicit(ctx, e.params(!rev20260728))
}

// elicitMode checks that the client declared the mode of p; a client that
// declared no elicitation at all is left to askClient's ErrCapability.
func (c *Context) elicitMode(p *ElicitParams) error {
	caps := c.ClientCapabilities.Elicitation
	if caps == nil || p == nil {
		return nil
	}
	if p.Mode == "url" {
		if !caps.URLMode() {
			return ErrURLElicitation
		}
		return nil
	}
	if !caps.FormMode() {
		return errFormElicitation
	}
	return nil
}

// urlElicitationData is the data of a URLElicitationRequired error.
type urlElicitationData struct {
	Elicitations []*ElicitParams `json:"elicitations"`
}

// URLElicitationRequired returns the error a tool returns when it cannot
// go on until the user has opened one or more URLs (a third party's
// consent, credentials the server keeps): the URLElicitationRequiredError
// of revision 2025-11-25, code [CodeURLElicitationRequired] (-32042) with
// data.elicitations. The client shows the URLs and may call the tool
// again once they are done ([Server.CompleteElicitation] tells it).
//
// The same tool works at every revision: at 2026-07-28, which has no such
// error, the server turns it into an input-required round that asks the
// elicitations (in a task, the task's input_required status); once the
// user accepted them all the tool runs again, and while it still returns
// the error (the user has not finished) they are asked again; one the
// user declined or cancelled ends the call with an isError result. A client that did not declare elicitation.url gets an isError
// result that says so, at any revision (the spec forbids sending it an
// elicitation it cannot show). An elicitation without an ID or a message,
// or with a URL that [Context.ElicitURL] would refuse, is an internal
// error (-32603) naming the field.
func URLElicitationRequired(els ...URLElicitation) *Error {
	data := urlElicitationData{Elicitations: make([]*ElicitParams, len(els))}
	msgs := make([]string, len(els))
	for i, e := range els {
		data.Elicitations[i] = e.params(true)
		msgs[i] = e.Message
	}
	return &Error{Code: CodeURLElicitationRequired, Message: "URL elicitation required: " + strings.Join(msgs, "; "), Data: data}
}

// maxURLElicitationAsks bounds how often a 2026-07-28 request asks the same
// URL elicitation again, for a tool that keeps returning it.
const maxURLElicitationAsks = 16

// urlElicitationRequired handles a tool's -32042 error (callTool calls it
// for every error a tool returns). done is false for any other error, and
// err is then the tool's error to report as usual. It refuses a client
// without URL mode, sends the error as it is at 2025, and over an input
// peer (2026-07-28, a task) asks the elicitations as input requests under
// "elicitation-url-<ID>": once the user accepted them all, it runs the
// tool again (rerun), which may still need them (asked again under the
// next suffix, "-2", …: an answered key stands for the whole request).
func (c *Context) urlElicitationRequired(ctx context.Context, name string, toolErr error, rerun func() (*ContentResult, error)) (res *ContentResult, done bool, err error) {
	for n := 1; ; n++ {
		var je *Error
		if !errors.As(toolErr, &je) || je.Code != CodeURLElicitationRequired {
			return nil, false, toolErr
		}
		els, err := urlElicitations(name, je)
		if err != nil {
			return nil, true, err
		}
		if !c.ClientCapabilities.Elicitation.URLMode() {
			msgs := make([]string, len(els))
			for i, p := range els {
				msgs[i] = p.Message
			}
			return errorResult(fmt.Sprintf("Tool %q needs the user to open a page outside the client (%s), but the client did not declare URL-mode elicitation (capability elicitation.url).",
				name, strings.Join(msgs, "; "))), true, nil
		}
		ip, rev20260728 := c.req.peer.(inputPeer)
		if !rev20260728 {
			return nil, true, je
		}
		if n > maxURLElicitationAsks {
			return nil, true, Errorf(CodeInternalError, "tool %q asked for URL elicitations %d times in one request", name, maxURLElicitationAsks)
		}
		reqs := make(map[string]InputRequest, len(els))
		keys := make([]string, len(els))
		for i, p := range els {
			keys[i] = "elicitation-url-" + p.ElicitationID
			if n > 1 {
				keys[i] += "-" + strconv.Itoa(n)
			}
			reqs[keys[i]] = InputRequest{Method: "elicitation/create", Params: &ElicitParams{Mode: "url", Message: p.Message, URL: p.URL}}
		}
		out, err := ip.Inputs(ctx, reqs)
		if err != nil {
			return nil, true, err
		}
		for i, p := range els {
			var r ElicitResult
			_ = json.Unmarshal(out[keys[i]], &r) // the round checked its shape
			if r.Action != ActionAccept {
				return errorResult(fmt.Sprintf("Tool %q needs the user to open a page outside the client (%s); the user did not (%s).",
					name, p.Message, r.Action)), true, nil
			}
		}
		// Every page accepted: the tool runs again from the start, asking
		// its own questions under the same keys as before.
		c.keyMu.Lock()
		c.keySeq = nil
		c.keyMu.Unlock()
		if res, toolErr = rerun(); toolErr == nil {
			return res, true, nil
		}
	}
}

// urlElicitations are the elicitations of a -32042 error, checked: an
// error built by hand is read from its data as the wire has it.
func urlElicitations(name string, je *Error) ([]*ElicitParams, error) {
	var els []*ElicitParams
	switch d := je.Data.(type) {
	case urlElicitationData:
		els = d.Elicitations
	default:
		var w urlElicitationData
		if b, err := json.Marshal(d); err == nil && json.Unmarshal(b, &w) == nil {
			els = w.Elicitations
		}
	}
	if len(els) == 0 {
		return nil, Errorf(CodeInternalError, "tool %q returned a URL elicitation required error (-32042) without data.elicitations", name)
	}
	for _, p := range els {
		if p == nil {
			return nil, Errorf(CodeInternalError, "tool %q: data.elicitations holds null", name)
		}
		if err := (URLElicitation{ID: p.ElicitationID, URL: p.URL, Message: p.Message}).check(); err != nil {
			return nil, Errorf(CodeInternalError, "tool %q: %v", name, err)
		}
	}
	return els, nil
}

// CompleteElicitation tells the client of session sessionID that the
// URL-mode elicitation elicitationID is done
// (notifications/elicitation/complete, revision 2025-11-25), so that it can
// call again the request that needed it. Call it from wherever the server
// learns so (the page's own route, a webhook); the session ID is the
// [Context.SessionID] of the request that asked, which the server keeps
// with the elicitation. The notification goes on the session's stream for
// server-initiated messages (the GET stream over HTTP) of the sessions
// this process serves; a session that is unknown or ended, a stateless
// request and revision 2026-07-28 (whose client calls again with the
// user's answer instead) get nothing.
func (s *Server) CompleteElicitation(sessionID, elicitationID string) {
	if sessionID == "" || elicitationID == "" {
		return
	}
	s.notify(change{Kind: engine.SessionNotify, SessionID: sessionID, Method: "notifications/elicitation/complete",
		Params: map[string]string{"elicitationId": elicitationID}})
}
