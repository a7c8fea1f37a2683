package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mcpchain/mcp/internal/cli/target"
)

// accountsFlags are the flags of accounts list and disconnect.
type accountsFlags struct {
	headers []string
	oauth   oauthFlags
	path    string
	timeout time.Duration
}

func (f *accountsFlags) add(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringArrayVarP(&f.headers, "header", "H", nil, `HTTP header, "Name: value" (repeatable): your credentials for the server`)
	f.oauth.add(fs)
	fs.StringVar(&f.path, "path", "/accounts", "where the server's accounts pages live (accounts.Config.Path, under its base URL)")
	fs.DurationVar(&f.timeout, "timeout", time.Minute, "give up after this long")
}

// client returns an HTTP client that sends the user's credentials (-H, or
// the --oauth login's token for the server at mcpURL) and the base URL of
// the accounts API; close stops an --oauth login.
func (f *accountsFlags) client(cmd *cobra.Command, mcpURL string) (c *http.Client, api string, closeFn func(), err error) {
	u, err := url.Parse(mcpURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", nil, fmt.Errorf("URL %q is not the http(s) URL of an MCP server", mcpURL)
	}
	if !strings.HasPrefix(f.path, "/") {
		return nil, "", nil, fmt.Errorf("--path %q must start with /", f.path)
	}
	hdr, err := target.ParseHeaders(f.headers)
	if err != nil {
		return nil, "", nil, err
	}
	if err := f.oauth.check(); err != nil {
		return nil, "", nil, err
	}
	var rt http.RoundTripper = http.DefaultTransport
	closeFn = func() {}
	if f.oauth.enabled {
		l, err := f.oauth.start(cmd.ErrOrStderr())
		if err != nil {
			return nil, "", nil, err
		}
		rt, closeFn = l.Handler.Wrap(mcpURL, rt), func() { _ = l.Close() }
	}
	rt = headerTransport{base: rt, h: hdr}
	return &http.Client{Transport: rt, Timeout: f.timeout}, u.Scheme + "://" + u.Host + strings.TrimSuffix(f.path, "/") + "/api/connections", closeFn, nil
}

type headerTransport struct {
	base http.RoundTripper
	h    http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = vs
	}
	return t.base.RoundTrip(r)
}

// apiFailure turns an answer of the accounts API that is not a success
// into an error naming the status and the server's message.
func apiFailure(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var e struct {
		Error string `json:"error"`
	}
	msg := strings.TrimSpace(string(b))
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		msg = e.Error
	}
	switch resp.StatusCode {
	case http.StatusNotFound:
		if msg == "" || strings.HasPrefix(msg, "404 page not found") {
			msg = "the server has no accounts API there (is accounts.Accounts mounted? see --path)"
		}
	case http.StatusUnauthorized:
		msg = "the server wants credentials: give -H 'Authorization: Bearer …' or --oauth"
	}
	return fmt.Errorf("%s: %s", resp.Status, msg)
}

func newAccountsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "accounts",
		Short: "List or disconnect the accounts you connected to a server (GitHub, …)",
		Long: `accounts lists, or disconnects, the accounts of other services (GitHub,
Google, …) that you connected to an MCP server that keeps them (package
accounts), as the user your credentials name: -H 'Authorization: Bearer …'
or --oauth, as for call. URL is the server's MCP endpoint.`,
		Example: `  mcpchain accounts list --oauth https://mcp.example.com/mcp
  mcpchain accounts disconnect --oauth https://mcp.example.com/mcp github`,
	}
	var lf accountsFlags
	list := &cobra.Command{
		Use:   "list [flags] URL",
		Short: "List your connected accounts",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, api, closeFn, err := lf.client(cmd, args[0])
			if err != nil {
				return err
			}
			defer closeFn()
			resp, err := c.Get(api)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				return apiFailure(resp)
			}
			var out struct {
				Connections []struct {
					Service     string    `json:"service"`
					Title       string    `json:"title"`
					Scopes      []string  `json:"scopes"`
					ConnectedAt time.Time `json:"connectedAt"`
				} `json:"connections"`
			}
			if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&out); err != nil {
				return fmt.Errorf("the server's answer is not the accounts API's: %w", err)
			}
			w := cmd.OutOrStdout()
			if len(out.Connections) == 0 {
				fmt.Fprintln(w, "no connected accounts")
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SERVICE\tNAME\tSCOPES\tCONNECTED")
			for _, c := range out.Connections {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Service, c.Title, strings.Join(c.Scopes, " "), c.ConnectedAt.Format(time.RFC3339))
			}
			return tw.Flush()
		},
	}
	lf.add(list)
	var df accountsFlags
	disconnect := &cobra.Command{
		Use:   "disconnect [flags] URL SERVICE",
		Short: "Disconnect one of your accounts (the server forgets, and revokes, its tokens)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, api, closeFn, err := df.client(cmd, args[0])
			if err != nil {
				return err
			}
			defer closeFn()
			if args[1] == "" || strings.ContainsAny(args[1], "/?#") {
				return errors.New("SERVICE is a service's name, such as github")
			}
			req, err := http.NewRequestWithContext(cmd.Context(), http.MethodDelete, api+"/"+url.PathEscape(args[1]), nil)
			if err != nil {
				return err
			}
			resp, err := c.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusOK {
				return apiFailure(resp)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "disconnected %s\n", args[1])
			return nil
		},
	}
	df.add(disconnect)
	cmd.AddCommand(list, disconnect)
	return cmd
}
