package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// ClientHandlers answer what a server asks its client, for an embedded
// session that stands in for a host with a model, a user and roots: a
// test of a tool that samples, elicits or reads roots, or a program that
// embeds the server and answers itself. The session declares the
// capability of each handler that is set (sampling, elicitation, roots);
// a tool that asks for one that is not set gets mcp.ErrCapability, as with
// a client that does not offer it.
//
// The handlers answer on every revision: at 2025 revisions the server's
// request reaches them during the call; at 2026-07-28 the call's
// input-required result does, and the session sends the call again with
// their answers, as a 2026-07-28 client does.
type ClientHandlers struct {
	// Sample answers sampling/createMessage.
	Sample func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// Elicit answers elicitation/create in form mode.
	Elicit func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// ElicitURL answers elicitation/create in URL mode (p.Mode "url"): the
	// host shows p.URL and opens it in a browser if the user agrees. Set,
	// the session declares elicitation.url.
	ElicitURL func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// Roots answers roots/list.
	Roots func(ctx context.Context) ([]mcp.Root, error)
	// SamplingTools declares sampling.tools with sampling (Sample must be
	// set): Sample takes requests with tools and toolChoice and may answer
	// with mcp.ToolUseContent items (sampling with tools, revision
	// 2025-11-25; mcp.Context.SampleWithTools needs it).
	SamplingTools bool
}

// capabilities are the client capabilities the handlers declare, with
// extensions (EmbedOptions.Extensions) when there are any.
func (c ClientHandlers) capabilities(extensions map[string]any) map[string]any {
	caps := map[string]any{}
	if len(extensions) > 0 {
		caps["extensions"] = extensions
	}
	if c.Sample != nil {
		sampling := map[string]any{}
		if c.SamplingTools {
			sampling["tools"] = map[string]any{}
		}
		caps["sampling"] = sampling
	}
	switch {
	case c.Elicit != nil && c.ElicitURL != nil:
		caps["elicitation"] = map[string]any{"form": map[string]any{}, "url": map[string]any{}}
	case c.ElicitURL != nil:
		caps["elicitation"] = map[string]any{"url": map[string]any{}}
	case c.Elicit != nil:
		caps["elicitation"] = map[string]any{}
	}
	if c.Roots != nil {
		caps["roots"] = map[string]any{"listChanged": false}
	}
	return caps
}

// maxInputRounds bounds how often one call is sent again with answers at
// 2026-07-28: a tool that keeps asking new questions ends with an error
// instead of looping.
const maxInputRounds = 16

// answer runs the handler for one of the server's requests and returns
// its result, or the JSON-RPC error the server gets.
func (c ClientHandlers) answer(ctx context.Context, method string, params json.RawMessage) (any, error) {
	decode := func(v any) error {
		if len(params) == 0 {
			return nil
		}
		if err := json.Unmarshal(params, v); err != nil {
			return mcp.Errorf(mcp.CodeInvalidParams, "Invalid params: %s: %v", method, err)
		}
		return nil
	}
	switch {
	case method == "sampling/createMessage" && c.Sample != nil:
		var p mcp.CreateMessageParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return c.Sample(ctx, &p)
	case method == "elicitation/create" && (c.Elicit != nil || c.ElicitURL != nil):
		var p mcp.ElicitParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		answer := c.Elicit
		if p.Mode == "url" {
			answer = c.ElicitURL
		}
		if answer == nil {
			mode := p.Mode
			if mode == "" {
				mode = "form"
			}
			return nil, mcp.Errorf(mcp.CodeInvalidParams, "Invalid params: the embedded session did not declare elicitation mode %s", strictjson.Quote(mode))
		}
		return answer(ctx, &p)
	case method == "roots/list" && c.Roots != nil:
		roots, err := c.Roots(ctx)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			roots = []mcp.Root{}
		}
		return map[string]any{"roots": roots}, nil
	}
	return nil, mcp.Errorf(mcp.CodeMethodNotFound, "Method not found: the embedded session does not handle %s", strictjson.Quote(method))
}

// reply answers the server's request m (on its own goroutine: the
// handler may take a while, and the request's stream must keep flowing).
func (e *EmbeddedSession) reply(m *jsonrpc.Message) {
	id := append([]byte(nil), m.ID...)
	method, params := m.Method, append(json.RawMessage(nil), m.Params...)
	go func() {
		ctx := context.Background()
		res, err := e.opts.Client.answer(ctx, method, params)
		var out []byte
		if err == nil {
			var b []byte
			if b, err = json.Marshal(res); err == nil {
				out = jsonrpc.AppendResult(nil, id, b)
			}
		}
		if err != nil {
			je := asRPCError(err)
			out = jsonrpc.AppendError(nil, id, je.Code, je.Message, je.Data)
		}
		e.sess.Post(ctx, out, nil, "", func([]byte) {})
	}()
}

// asRPCError is err as the JSON-RPC error a client sends back: an
// *mcp.Error as it is, anything else as -32603 with its text.
func asRPCError(err error) *mcp.Error {
	var je *mcp.Error
	if errors.As(err, &je) {
		return je
	}
	return &mcp.Error{Code: mcp.CodeInternalError, Message: err.Error()}
}

// inputRequired is a 2026-07-28 input-required result.
type inputRequired struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState json.RawMessage `json:"requestState"`
}

// withAnswers returns params with the answers to an input-required
// result's questions and its requestState, for the next round.
func (e *EmbeddedSession) withAnswers(ctx context.Context, method string, params []byte, ir *inputRequired) ([]byte, error) {
	m := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &m); err != nil {
			return nil, err
		}
	}
	answers := map[string]json.RawMessage{}
	for key, q := range ir.InputRequests {
		res, err := e.opts.Client.answer(ctx, q.Method, q.Params)
		if err != nil {
			return nil, fmt.Errorf("mcphttp: %s asked %s: %w", method, strictjson.Quote(q.Method), err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		answers[key] = b
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	m["inputResponses"] = b
	if len(ir.RequestState) > 0 {
		m["requestState"] = ir.RequestState
	}
	return appendObject(nil, m), nil
}
