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

// elicitParams is the params of elicitation/create as the engine builds
// and reads them; package elicit's Params is the type a server author
// uses, with the same JSON.
type elicitParams struct {
	Mode            string `json:"mode,omitempty"`
	Message         string `json:"message"`
	RequestedSchema any    `json:"requestedSchema,omitempty"`
	ElicitationID   string `json:"elicitationId,omitempty"`
	URL             string `json:"url,omitempty"`
}

// elicitResult is the part of an elicitation/create result the engine
// reads: the user's action.
type elicitResult struct {
	Action string `json:"action"`
}

// ErrURLElicitation is what a URL-mode elicitation (package elicit's
// OpenURL and Create, or [Context.Ask]) comes to when the client did not
// declare URL-mode elicitation (elicitation.url); it wraps [ErrCapability].
var ErrURLElicitation error = capabilityError("mcp: the client did not declare that capability: URL-mode elicitation needs the client to declare the capability elicitation.url (revision 2025-11-25 or later)")

// errFormElicitation is what a form-mode elicitation gets when the client
// declared URL mode only.
var errFormElicitation error = capabilityError("mcp: the client did not declare that capability: form-mode elicitation needs the client to declare elicitation.form (or elicitation {}); it declared URL mode only")

// capabilityError is an [ErrCapability] with a message of its own (a
// string type, so that the package's init allocates nothing for it).
type capabilityError string

func (e capabilityError) Error() string { return string(e) }

func (e capabilityError) Unwrap() error { return ErrCapability }

// checkURLElicitation reports what makes a URL-mode elicitation unusable,
// naming the field.
func checkURLElicitation(id, message, u string) error {
	if err := eliciturl.CheckElicitation(id, message, u); err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// checkElicitation refuses, before it is sent, an elicitation/create
// whose mode the client did not declare (form, or url:
// [ErrURLElicitation]), or in URL mode whose URL is not one a user may be
// asked to open (internal/eliciturl: an absolute https URL, or http to
// this machine, without user information): whatever the params' type, as
// they go on the wire. A client that declared no elicitation at all is
// left to askClientInto's ErrCapability.
func (c *Context) checkElicitation(params any) error {
	var w elicitParams
	if p, ok := params.(*elicitParams); ok {
		w = *p
	} else if b, err := json.Marshal(params); err != nil || json.Unmarshal(b, &w) != nil {
		return nil // not sent either, or not an object: not URL mode
	}
	if caps := c.ClientCapabilities.Elicitation; caps != nil {
		switch {
		case w.Mode == "url" && !caps.URLMode():
			return ErrURLElicitation
		case w.Mode != "url" && !caps.FormMode():
			return errFormElicitation
		}
	}
	if w.Mode != "url" {
		return nil
	}
	if err := eliciturl.Check(w.URL); err != nil {
		return fmt.Errorf("mcp: a URL-mode elicitation: %w", err)
	}
	return nil
}

// urlElicitationData is the data of a -32042 error (package elicit's
// URLRequired).
type urlElicitationData struct {
	Elicitations []*elicitParams `json:"elicitations"`
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
			reqs[keys[i]] = InputRequest{Method: "elicitation/create", Params: &elicitParams{Mode: "url", Message: p.Message, URL: p.URL}}
		}
		out, err := ip.Inputs(ctx, reqs)
		if err != nil {
			return nil, true, err
		}
		for i, p := range els {
			var r elicitResult
			_ = json.Unmarshal(out[keys[i]], &r) // the round checked its shape
			if r.Action != "accept" {
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

// urlElicitations are the elicitations of a -32042 error, checked, read
// from its data as the wire has it (package elicit's URLRequired builds
// it; a tool may build one by hand).
func urlElicitations(name string, je *Error) ([]*elicitParams, error) {
	var w urlElicitationData
	if b, err := json.Marshal(je.Data); err == nil {
		_ = json.Unmarshal(b, &w) // data that does not decode holds no elicitation
	}
	els := w.Elicitations
	if len(els) == 0 {
		return nil, Errorf(CodeInternalError, "tool %q returned a URL elicitation required error (-32042) without data.elicitations", name)
	}
	for _, p := range els {
		if p == nil {
			return nil, Errorf(CodeInternalError, "tool %q: data.elicitations holds null", name)
		}
		if err := checkURLElicitation(p.ElicitationID, p.Message, p.URL); err != nil {
			return nil, Errorf(CodeInternalError, "tool %q: %v", name, err)
		}
	}
	return els, nil
}

// CompleteElicitation sends notifications/elicitation/complete for the
// URL-mode elicitation elicitationID to the session sessionID, for package
// elicit's Complete (which documents it).
func (v *engineView) CompleteElicitation(sessionID, elicitationID string) {
	if sessionID == "" || elicitationID == "" {
		return
	}
	v.server().notify(change{Kind: engine.SessionNotify, SessionID: sessionID, Method: "notifications/elicitation/complete",
		Params: map[string]string{"elicitationId": elicitationID}})
}

// AsksThroughInputs reports whether c's questions go to an input peer
// (revision 2026-07-28, a task) rather than as server-to-client requests:
// package elicit leaves a URL elicitation's elicitationId out there,
// since no notifications/elicitation/complete can name it. The receiver
// is not used.
func (*engineView) AsksThroughInputs(c *Context) bool {
	_, ok := c.req.peer.(inputPeer)
	return ok
}
