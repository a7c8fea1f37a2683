package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// PromptArgument declares one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
	// Enum lists the allowed values; completion suggests from it when
	// Complete is nil.
	Enum []string `json:"-"`
	// Complete suggests values for completion/complete.
	Complete CompleteFunc `json:"-"`
}

// Prompt is a prompt template.
type Prompt struct {
	// Name is the unique identifier. Required.
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Meta        map[string]any
	// Load builds the messages from the arguments. Required arguments are
	// checked before it runs.
	Load func(ctx context.Context, c *Context, args map[string]string) (*PromptResult, error)
	// CanAccess, when set, hides the prompt from callers it refuses.
	CanAccess func(auth any) bool
}

// MarshalJSON writes the prompts/list form.
func (p Prompt) MarshalJSON() ([]byte, error) {
	args := p.Arguments
	if args == nil {
		args = []PromptArgument{}
	}
	return json.Marshal(struct {
		Name        string           `json:"name"`
		Title       string           `json:"title,omitempty"`
		Description string           `json:"description,omitempty"`
		Arguments   []PromptArgument `json:"arguments"`
		Meta        map[string]any   `json:"_meta,omitempty"`
	}{p.Name, p.Title, p.Description, args, p.Meta})
}

// UnmarshalJSON reads the prompts/list form.
func (p *Prompt) UnmarshalJSON(data []byte) error {
	var w struct {
		Name, Title, Description string
		Arguments                []PromptArgument
		Meta                     map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*p = Prompt{Name: w.Name, Title: w.Title, Description: w.Description, Arguments: w.Arguments, Meta: w.Meta}
	return nil
}

// PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// UnmarshalJSON decodes the content into its concrete type.
func (m *PromptMessage) UnmarshalJSON(data []byte) error {
	var s SamplingMessage
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*m = PromptMessage(s)
	return nil
}

// PromptResult is the result of prompts/get.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
}

// UserText is a shorthand for a one-message prompt result: the user says s.
func UserText(s string) *PromptResult {
	return &PromptResult{Messages: []PromptMessage{{Role: RoleUser, Content: TextContent{Text: s}}}}
}

type promptEntry struct{ p Prompt }

// AddPrompt registers a prompt. It panics when Name is empty, Load is nil,
// an argument is unnamed or repeated, or the name is already registered.
func (s *Server) AddPrompt(p Prompt) {
	if p.Name == "" {
		panic("mcp: AddPrompt: Prompt.Name is required")
	}
	if p.Load == nil {
		panic(fmt.Sprintf("mcp: AddPrompt %q: Prompt.Load is required", p.Name))
	}
	seen := map[string]bool{}
	for _, a := range p.Arguments {
		if a.Name == "" || seen[a.Name] {
			panic(fmt.Sprintf("mcp: AddPrompt %q: argument names must be non-empty and unique (%q)", p.Name, a.Name))
		}
		seen[a.Name] = true
	}
	e := &promptEntry{p: p}
	s.update(Change{Kind: PromptsChanged}, func(r *registry) error {
		if _, dup := r.promptByName[p.Name]; dup {
			return fmt.Errorf("mcp: AddPrompt: a prompt named %q is already registered", p.Name)
		}
		r.prompts = append(r.prompts, e)
		r.promptByName[p.Name] = e
		return nil
	})
}

// RemovePrompts removes the named prompts.
func (s *Server) RemovePrompts(names ...string) {
	s.update(Change{Kind: PromptsChanged}, func(r *registry) error {
		for _, n := range names {
			if e, ok := r.promptByName[n]; ok {
				delete(r.promptByName, n)
				r.prompts = removeEntry(r.prompts, e)
			}
		}
		return nil
	})
}

// ListPrompts returns the prompts visible to the caller.
func (s *Server) ListPrompts(ctx context.Context, auth any) []Prompt {
	r := s.reg.Load()
	out := make([]Prompt, 0, len(r.prompts))
	for _, e := range r.prompts {
		if allowed(e.p.CanAccess, auth) && policyAllows(ctx, auth, KindPrompt, e.p.Name) {
			out = append(out, e.p)
		}
	}
	return out
}

// GetPrompt builds the named prompt. An unknown prompt or a missing
// required argument is an *[Error] with [CodeInvalidParams].
func (s *Server) GetPrompt(ctx context.Context, c *Context, name string, args map[string]string) (*PromptResult, error) {
	e, ok := s.reg.Load().promptByName[name]
	if !ok || !allowed(e.p.CanAccess, c.Session) || !policyAllows(ctx, c.Session, KindPrompt, name) {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown prompt: %q", name)}
	}
	for _, a := range e.p.Arguments {
		v, ok := args[a.Name]
		if a.Required && !ok {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Prompt %q requires argument %q", name, a.Name)}
		}
		if ok && len(a.Enum) > 0 && !contains(a.Enum, v) {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Prompt %q: argument %q must be one of %s, not %q", name, a.Name, strings.Join(a.Enum, ", "), v)}
		}
	}
	if args == nil {
		args = map[string]string{}
	}
	res, err := e.p.Load(ctx, c, args)
	if err != nil {
		var je *Error
		if errors.As(err, &je) {
			return nil, je
		}
		return nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("Failed to load prompt %q: %v", name, err)}
	}
	if res == nil {
		res = &PromptResult{}
	}
	if res.Messages == nil {
		res.Messages = []PromptMessage{}
	}
	if res.Description == "" {
		res.Description = e.p.Description
	}
	return res, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// CompletionRef is what a completion/complete request completes: a prompt
// (Type "ref/prompt", Name) or a resource template (Type "ref/resource",
// URI holding the template).
type CompletionRef struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// CompletionResult is the completion member of a completion/complete result.
type CompletionResult struct {
	Values  []string `json:"values"`
	Total   int      `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// maxCompletionValues is the spec's cap on values in one response.
const maxCompletionValues = 100

// Complete suggests values for one argument of a prompt or template. An
// unknown reference or argument is an *[Error] with [CodeInvalidParams].
func (s *Server) Complete(ctx context.Context, c *Context, ref CompletionRef, arg, value string, args map[string]string) (*CompletionResult, error) {
	reg := s.reg.Load()
	var complete CompleteFunc
	var enum []string
	switch ref.Type {
	case "ref/prompt":
		e, ok := reg.promptByName[ref.Name]
		if !ok || !allowed(e.p.CanAccess, c.Session) || !policyAllows(ctx, c.Session, KindPrompt, ref.Name) {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown prompt: %q", ref.Name)}
		}
		found := false
		for _, a := range e.p.Arguments {
			if a.Name == arg {
				complete, enum, found = a.Complete, a.Enum, true
			}
		}
		if !found {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Prompt %q has no argument %q", ref.Name, arg)}
		}
	case "ref/resource":
		e, ok := reg.tmplByKey[ref.URI]
		if !ok || !allowed(e.tmpl.CanAccess, c.Session) || !policyAllows(ctx, c.Session, KindResource, ref.URI) {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown resource template: %q", ref.URI)}
		}
		for _, a := range e.tmpl.Arguments {
			if a.Name == arg {
				complete = a.Complete
			}
		}
	default:
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown reference type %q (want ref/prompt or ref/resource)", ref.Type)}
	}
	var values []string
	switch {
	case complete != nil:
		v, err := complete(ctx, value, args)
		if err != nil {
			var je *Error
			if errors.As(err, &je) {
				return nil, je
			}
			return nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("Completing %q failed: %v", arg, err)}
		}
		values = v
	case enum != nil:
		for _, x := range enum {
			if strings.HasPrefix(strings.ToLower(x), strings.ToLower(value)) {
				values = append(values, x)
			}
		}
	}
	res := &CompletionResult{Values: values, Total: len(values)}
	if res.Values == nil {
		res.Values = []string{}
	}
	if len(res.Values) > maxCompletionValues {
		res.Values, res.HasMore = res.Values[:maxCompletionValues], true
	}
	return res, nil
}
