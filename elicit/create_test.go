package elicit_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/mcptest"
)

// TestCreateChecksTheDeclaredMode: a client that declared URL mode only
// gets no form, not even one with nil params, and one that declared forms
// only gets no URL; both refusals wrap mcp.ErrCapability and send
// nothing. A bad URL is refused before anything is sent, whichever way
// the question is put (Create with URL-mode params, OpenURL, Context.Ask).
func TestCreateChecksTheDeclaredMode(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "ask", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	ask := func(name string, fn func(ctx context.Context, c *mcp.Context) error) {
		mcp.AddTool(srv, mcp.Tool{Name: name}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
			err := fn(ctx, c)
			switch {
			case err == nil:
				return "sent", nil
			case errors.Is(err, mcp.ErrURLElicitation):
				return "no url mode", nil
			case errors.Is(err, mcp.ErrCapability):
				return "no form mode", nil
			}
			return "refused: " + err.Error(), nil
		})
	}
	ask("form-nil", func(ctx context.Context, c *mcp.Context) error { _, err := elicit.Create(ctx, c, nil); return err })
	ask("form", func(ctx context.Context, c *mcp.Context) error {
		_, err := elicit.Create(ctx, c, &elicit.Params{Message: "?"})
		return err
	})
	ask("url", func(ctx context.Context, c *mcp.Context) error {
		_, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: "e1", URL: "https://example.com/x", Message: "Sign in"})
		return err
	})
	ask("bad-url-create", func(ctx context.Context, c *mcp.Context) error {
		_, err := elicit.Create(ctx, c, &elicit.Params{Mode: "url", Message: "m", URL: "javascript:alert(1)", ElicitationID: "e2"})
		return err
	})
	ask("bad-url-open", func(ctx context.Context, c *mcp.Context) error {
		_, err := elicit.OpenURL(ctx, c, elicit.URLRequest{ID: "e3", URL: "https://bank.example@evil.example/", Message: "m"})
		return err
	})
	ask("bad-url-ask", func(ctx context.Context, c *mcp.Context) error {
		_, err := c.Ask(ctx, map[string]mcp.InputRequest{"q": {Method: "elicitation/create",
			Params: map[string]string{"mode": "url", "message": "m", "url": "http://example.com/", "elicitationId": "e4"}}})
		return err
	})

	var sent int
	answer := func(context.Context, *elicit.Params) (*elicit.Result, error) {
		sent++
		return &elicit.Result{Action: elicit.ActionAccept}, nil
	}
	urlOnly := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{ElicitURL: answer}})
	formOnly := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{Elicit: answer}})
	for _, tc := range []struct {
		s          *mcptest.Session
		tool, want string
	}{
		{urlOnly, "form-nil", "no form mode"},
		{urlOnly, "form", "no form mode"},
		{urlOnly, "url", "sent"},
		{formOnly, "url", "no url mode"},
		{formOnly, "form", "sent"},
		{urlOnly, "bad-url-create", "refused: mcp: a URL-mode elicitation: elicitation URL \"javascript:alert(1)\" is not an absolute URL with a host"},
		{urlOnly, "bad-url-open", "refused: elicit: elicitation URL \"https://bank.example@evil.example/\" carries user information before its host"},
		{urlOnly, "bad-url-ask", "refused: mcp: a URL-mode elicitation: elicitation URL \"http://example.com/\" uses http to a host that is not loopback; use https"},
	} {
		before := sent
		got := tc.s.CallTool(tc.tool, nil, nil).Text()
		assert.Equal(t, tc.want, got, tc.tool)
		if tc.want == "sent" {
			assert.Equal(t, before+1, sent, tc.tool)
		} else {
			assert.Equal(t, before, sent, "%s: nothing is sent", tc.tool)
		}
	}
}
