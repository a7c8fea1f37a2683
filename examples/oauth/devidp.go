package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/mcpchain/mcp/devidp"
)

// devIdP is the local OpenID Connect provider of -dev-idp (package
// devidp, auto-approving) as the generic upstream of the proxy: one
// confidential client, one redirect URI (the proxy's callback).
type devIdP struct {
	*devidp.Provider
	issuer, clientID, secret string
}

// startDevIdP starts the provider; callback is the only redirect URI it
// accepts.
func startDevIdP(callback string, log *slog.Logger) (*devIdP, error) {
	p, err := devidp.Start(devidp.Config{RedirectURIs: []string{callback}, AutoApprove: true, Logger: log})
	if err != nil {
		return nil, err
	}
	return &devIdP{Provider: p, issuer: p.Issuer(), clientID: p.ClientID(), secret: p.ClientSecret()}, nil
}

// env is what examples/oauth reads to use this provider.
func (d *devIdP) env() map[string]string {
	return map[string]string{
		"OAUTH_PROVIDER": providerGeneric, "OAUTH_CLIENT_ID": d.clientID, "OAUTH_CLIENT_SECRET": d.secret,
		"OAUTH_AUTHORIZATION_ENDPOINT": d.AuthorizationEndpoint(), "OAUTH_TOKEN_ENDPOINT": d.TokenEndpoint(),
		"OAUTH_ISSUER": d.issuer, "OAUTH_SCOPES": "openid profile email",
	}
}

// printSettings tells the user what runs and how to reach it.
func (d *devIdP) printSettings(w io.Writer, base string) {
	fmt.Fprintf(w, "oauth: -dev-idp: a local OpenID Connect provider runs at %s; it signs in %s at once (never expose it).\n", d.issuer, devidp.DefaultUser().Email)
	fmt.Fprintf(w, "oauth: the settings it stands for (a real provider needs the same, with its own values):\n")
	env := d.env()
	env["OAUTH_CLIENT_SECRET"] = "(generated for this run)"
	for _, k := range []string{"OAUTH_PROVIDER", "OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET", "OAUTH_AUTHORIZATION_ENDPOINT",
		"OAUTH_TOKEN_ENDPOINT", "OAUTH_ISSUER", "OAUTH_SCOPES"} {
		fmt.Fprintf(w, "  %s=%s\n", k, env[k])
	}
	fmt.Fprintf(w, "  MCP_BASE_URL=%s\n", base)
	fmt.Fprintf(w, "oauth: connect a client to %s/mcp (npx @modelcontextprotocol/inspector), then call whoami.\n", base)
}
