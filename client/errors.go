package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
)

// decodeMessage decodes one message from the server. A well-formed one
// takes internal/jsonrpc's decoder, which allocates nothing for the
// envelope; what that strict decoder refuses (a duplicate or case-variant
// member, a missing "jsonrpc", a result beside an error) is read again
// with encoding/json, which takes what a well-meaning server sends.
func decodeMessage(b []byte) (message, error) {
	if s, err := jsonrpc.Decode(b); err == nil {
		m := message{ID: s.ID, Method: s.Method, Params: s.Params, Result: s.Result}
		if len(s.Error) > 0 && string(s.Error) != "null" {
			m.Error = new(wireError)
			if err := json.Unmarshal(s.Error, m.Error); err != nil {
				return message{}, err
			}
		}
		return m, nil
	}
	var m message
	err := json.Unmarshal(b, &m)
	return m, err
}

// wireError is the error member of a response as the server sent it,
// read leniently: a code sent as a string of digits is taken as the
// number, any other as -32603, and a message that is not a string as its
// JSON text, so that a server's malformed error still answers its
// request.
type wireError struct {
	code    int64
	message string
	data    json.RawMessage
}

func (e *wireError) UnmarshalJSON(data []byte) error {
	var w struct {
		Code    json.RawMessage `json:"code"`
		Message any             `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	code := int64(mcp.CodeInternalError)
	raw := string(w.Code)
	if s, err := strconv.Unquote(raw); err == nil {
		raw = s
	}
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		code = n
	}
	msg, ok := w.Message.(string)
	if !ok && w.Message != nil {
		b, _ := json.Marshal(w.Message)
		msg = string(b)
	}
	*e = wireError{code: code, message: msg, data: w.Data}
	return nil
}

// rpcError is the error a call returns for the server's error answer to
// method: an *mcp.Error (its Data the json.RawMessage the server sent,
// or nil), wrapped with the method and the server's name, so that
// errors.As finds the *mcp.Error and errors.Is matches it by code
// (&mcp.Error{Code: mcp.CodeInvalidParams}). A resources/read answered
// "resource not found" matches [mcp.ErrResourceNotFound] too.
func (c *Client) rpcError(method string, w *wireError) error {
	e := &mcp.Error{Code: w.code, Message: w.message}
	if len(w.data) > 0 && string(w.data) != "null" {
		e.Data = w.data
	}
	var err error = e
	if method == "resources/read" && resourceNotFound(w) {
		err = notFoundError{e}
	}
	return fmt.Errorf("mcp client: %s answered %s with %w", c.serverName(), method, err)
}

// resourceNotFound reports whether a resources/read error says the
// resource does not exist: -32602 "Resource not found" (SEP-2164, this
// repository's server, the TypeScript SDK's "Resource … not found"), or
// the -32002 that revision 2025-11-25 suggested and some servers send.
func resourceNotFound(w *wireError) bool {
	if w.code == -32002 {
		return true
	}
	m := strings.ToLower(w.message)
	return w.code == mcp.CodeInvalidParams && strings.HasPrefix(m, "resource ") && strings.Contains(m, "not found")
}

// notFoundError is a server's resource-not-found answer: errors.As finds
// the *mcp.Error, errors.Is matches mcp.ErrResourceNotFound.
type notFoundError struct{ rpc *mcp.Error }

func (e notFoundError) Error() string   { return e.rpc.Error() }
func (e notFoundError) Unwrap() []error { return []error{e.rpc, mcp.ErrResourceNotFound} }

// asRPCError returns the *mcp.Error in err's chain, or nil.
func asRPCError(err error) *mcp.Error {
	var re *mcp.Error
	if errors.As(err, &re) {
		return re
	}
	return nil
}

// errorData is the data member of a server's error as sent, or nil.
func errorData(e *mcp.Error) json.RawMessage {
	switch d := e.Data.(type) {
	case json.RawMessage:
		return d
	case nil:
		return nil
	default:
		b, _ := json.Marshal(d)
		return b
	}
}
