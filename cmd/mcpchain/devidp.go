package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp/devidp"
)

func newDevIdPCmd() *cobra.Command {
	var (
		host, clientID, secret, audience, scopes string
		port                                     int
		autoApprove, allowRemote                 bool
		users, redirects                         []string
	)
	cmd := &cobra.Command{
		Use:   "dev-idp [flags]",
		Short: "Run a development OpenID Connect provider to sign in to your server",
		Long: `dev-idp runs the development OpenID Connect provider of package devidp on
127.0.0.1, for trying and testing a server's OAuth login with no account
anywhere: discovery, JWKS, RS256 ID tokens, the authorization code grant
with PKCE S256, refresh tokens, userinfo. Its users sign in with no
password: never expose it.

It prints the settings a server uses on stdout, one NAME=VALUE a line,
quoted for a POSIX shell where needed (the variables of examples/oauth's
generic provider), and logs on stderr:
OAUTH_PROVIDER, OAUTH_ISSUER, OAUTH_AUTHORIZATION_ENDPOINT,
OAUTH_TOKEN_ENDPOINT, OAUTH_CLIENT_ID, OAUTH_CLIENT_SECRET, OAUTH_SCOPES.
The confidential client may use any http redirect URI on localhost,
127.0.0.1 or [::1] (a server's {MCP_BASE_URL}/oauth/callback on this
machine), or exactly the --redirect-uri ones.

Each sign-in shows a page where one of the users is picked and approved.
--auto-approve skips it for browsers on this machine: the first --user is
signed in at once, so a test's HTTP client that follows redirects
completes the login. --user EMAIL[,NAME[,SUBJECT]] adds a user (the
subject defaults to the email); without it the one user is
dev@example.com (subject dev-user-1).

--port 0 (the default) takes a free port: give one to keep the issuer the
same from run to run. A --host that is not loopback is refused unless
--allow-non-loopback. SIGINT or SIGTERM stops it (exit status 0).`,
		Example: `  mcpchain dev-idp --port 9400 --auto-approve
  mcpchain dev-idp --user alice@example.com,Alice --user bob@example.com,Bob
  # a resource server's JWT access tokens, and dynamic registration:
  mcpchain dev-idp --audience http://localhost:8000/mcp --scopes 'openid mcp:tools'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := devidp.Config{
				Addr: net.JoinHostPort(host, strconv.Itoa(port)), AllowNonLoopback: allowRemote, AutoApprove: autoApprove,
				ClientID: clientID, ClientSecret: secret, RedirectURIs: redirects, Audience: audience,
				Scopes: strings.FieldsFunc(scopes, func(r rune) bool { return r == ' ' || r == ',' }),
				Logger: slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), nil)),
			}
			for _, u := range users {
				user, err := parseUser(u)
				if err != nil {
					return err
				}
				cfg.Users = append(cfg.Users, user)
			}
			idp, err := devidp.Start(cfg)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for _, kv := range [][2]string{
				{"OAUTH_PROVIDER", "generic"}, {"OAUTH_ISSUER", idp.Issuer()},
				{"OAUTH_AUTHORIZATION_ENDPOINT", idp.AuthorizationEndpoint()}, {"OAUTH_TOKEN_ENDPOINT", idp.TokenEndpoint()},
				{"OAUTH_CLIENT_ID", idp.ClientID()}, {"OAUTH_CLIENT_SECRET", idp.ClientSecret()},
				{"OAUTH_SCOPES", strings.Join(idp.Scopes(), " ")},
			} {
				fmt.Fprintf(out, "%s=%s\n", kv[0], shellWord(kv[1]))
			}
			errw := cmd.ErrOrStderr()
			for i, u := range idp.Users() {
				note := ""
				if i == 0 && autoApprove {
					note = " (auto-approved)"
				}
				fmt.Fprintf(errw, "mcpchain dev-idp: user %s <%s>%s\n", u.Subject, u.Email, note)
			}
			fmt.Fprintf(errw, "mcpchain dev-idp: serving %s until SIGINT or SIGTERM\n", idp.Issuer())
			<-cmd.Context().Done()
			err = idp.Close()
			fmt.Fprintln(errw, "mcpchain dev-idp: stopped")
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&host, "host", "127.0.0.1", "address to listen on (loopback unless --allow-non-loopback)")
	f.IntVar(&port, "port", 0, "port to listen on (0: a free one)")
	f.BoolVar(&autoApprove, "auto-approve", false, "sign the first user in at once, with no page, for browsers on this machine")
	f.StringArrayVar(&users, "user", nil, "a user, EMAIL[,NAME[,SUBJECT]] (repeatable; the first is auto-approved)")
	f.StringVar(&clientID, "client-id", "", "the confidential client's id (default dev-client)")
	f.StringVar(&secret, "client-secret", "", "its secret (default: random for this run)")
	f.StringArrayVar(&redirects, "redirect-uri", nil, "a redirect URI the client may use, exactly (repeatable; default: any loopback http URI)")
	f.StringVar(&audience, "audience", "", "issue JWT access tokens for this audience, and allow dynamic client registration")
	f.StringVar(&scopes, "scopes", "", "supported scopes, space- or comma-separated (default openid profile email)")
	f.BoolVar(&allowRemote, "allow-non-loopback", false, "allow a --host that is not loopback: anyone who reaches it signs in")
	return cmd
}

// shellWord is s as one word of a POSIX shell: as it is when it holds
// nothing the shell would read otherwise, else in single quotes, so that
// the settings can be read with ". ./idp.env".
func shellWord(s string) string {
	safe := s != ""
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_./:@%+=,-", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// parseUser reads --user EMAIL[,NAME[,SUBJECT]].
func parseUser(s string) (devidp.User, error) {
	parts := strings.Split(s, ",")
	if len(parts) > 3 || strings.TrimSpace(parts[0]) == "" {
		return devidp.User{}, errors.New("--user " + strconv.Quote(s) + ": want EMAIL[,NAME[,SUBJECT]]")
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	u := devidp.User{Email: parts[0], Subject: parts[0]}
	if len(parts) > 1 {
		u.Name = parts[1]
	}
	if len(parts) > 2 && parts[2] != "" {
		u.Subject = parts[2]
	}
	return u, nil
}
