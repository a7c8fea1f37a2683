// Package elicit asks the user of a tool, through the client
// (elicitation/create): for a typed answer, a form made from a Go struct
// whose answer is checked against the form and decoded into the struct
// ([As], [Form.Ask]); for any form, with [Create] and its raw [Params] and
// [Result]; or to open a page of the server's own (URL mode: [OpenURL],
// and the [URLRequired] error a tool returns).
//
//	type Pizza struct {
//		Size     string   `json:"size" title:"Size" enum:"s,m,l" enumTitles:"Small,Medium,Large" default:"m"`
//		Toppings []string `json:"toppings,omitempty" enum:"ham,olives,basil" mcp:"maxItems=2"`
//		Delivery bool     `json:"delivery" title:"Deliver it?"`
//	}
//
//	var pizzaForm = elicit.MustForm[Pizza]() // a bad struct panics at start-up
//
//	func order(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
//		p, action, err := pizzaForm.Ask(ctx, c, "Your pizza?")
//		if err != nil {
//			return "", err // mcp.ErrInputRequired at 2026-07-28: return it
//		}
//		if action != elicit.ActionAccept {
//			return "no order", nil
//		}
//		return "a " + p.Size + " pizza", nil
//	}
//
// The form's requestedSchema is inferred from the struct's fields as a
// tool's input schema is (the same struct tags: `jsonschema:"…"`,
// `title:"…"`, `enum:"a,b"`, `default:"…"`, `mcp:"minLength=…,…"`), then
// held to what the specification lets a form hold: string, number,
// integer and boolean fields, and a []string with an enum (a
// multi-select); `enumTitles:"…"` titles an enum's values. A struct a form
// cannot hold is an error wrapping mcp.ErrInvalidDefinition that names
// the field, from [NewForm] (or a panic from [MustForm]) where the program
// starts, or from every [As] call, which makes and caches the form of its
// type on first use.
//
// The answer is the user's action ([ActionAccept], [ActionDecline],
// [ActionCancel]) and, on accept only, the struct: the client's content with
// the defaults of the fields the user left out, checked against the form
// (an answer that does not fit is an *mcp.Error with code -32602 saying
// where), a null for an optional field taken as the field left out, and a
// member that differs from a field only in case refused rather than
// decoded past the check.
//
// A form works over a 2025 session (a server-to-client request during the
// call) and at revision 2026-07-28, where the first call ends with
// mcp.ErrInputRequired (an input-required round) and the tool runs again
// with the answer: return that error as it is. For what must not pass
// through the client (a password, a payment), use URL-mode elicitation
// instead: [OpenURL] asks during the call, and a tool that returns
// [URLRequired] (-32042 at 2025-11-25, an input-required round at
// 2026-07-28) runs again once the user has been to the page, which tells
// the client with [Complete]. Every URL is checked
// before it is sent: an absolute https URL, or http to this machine,
// without user information. A client that did not declare the mode gets
// nothing: the call fails with mcp.ErrURLElicitation (URL mode) or an
// error wrapping mcp.ErrCapability (form mode).
package elicit
