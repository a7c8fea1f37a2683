package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpchain/mcp/client/oauth"
	"github.com/mcpchain/mcp/internal/cli/termtext"
)

// oauthFlags are the flags that make a command log in to a server that is
// an OAuth protected resource (--oauth), shared by bridge, inspect, call,
// read and prompt.
type oauthFlags struct {
	enabled      bool
	clientID     string
	clientSecret string
	metadataURL  string
	scopes       []string
	noBrowser    bool
	tokenFile    string
	loginTimeout time.Duration
	assumeS256   bool
}

func (f *oauthFlags) add(fs *pflag.FlagSet) {
	fs.BoolVar(&f.enabled, "oauth", false, "log in to the http(s) TARGET with OAuth when it asks (tokens are kept in the token file)")
	fs.StringVar(&f.clientID, "client-id", "", "with --oauth: a client registered with the authorization server beforehand")
	fs.StringVar(&f.clientSecret, "client-secret", "", "with --client-id: its secret")
	fs.StringVar(&f.metadataURL, "client-metadata-url", "", "with --oauth: the https URL of this client's metadata document, used as its client_id")
	fs.StringArrayVar(&f.scopes, "scope", nil, "with --oauth: a scope to ask for on top of the server's (repeatable)")
	fs.BoolVar(&f.noBrowser, "no-browser", false, "with --oauth: do not open a browser; open the URL printed on stderr yourself")
	fs.StringVar(&f.tokenFile, "token-file", "", "with --oauth: where tokens are kept (default: the user's config directory, mcpchain/tokens.json)")
	fs.DurationVar(&f.loginTimeout, "login-timeout", 5*time.Minute, "with --oauth: how long to wait for the browser to come back")
	fs.BoolVar(&f.assumeS256, "assume-s256", false, "with --oauth: use an authorization server whose metadata does not list code_challenge_methods_supported (Microsoft Entra ID, Amazon Cognito), taking PKCE S256 as supported")
}

// check rejects client flags given without --oauth, and conflicting ones.
func (f *oauthFlags) check() error {
	if !f.enabled {
		if f.clientID != "" || f.clientSecret != "" || f.metadataURL != "" || len(f.scopes) > 0 || f.tokenFile != "" || f.assumeS256 {
			return errors.New("--client-id, --client-secret, --client-metadata-url, --scope, --token-file and --assume-s256 need --oauth")
		}
		return nil
	}
	if f.clientSecret != "" && f.clientID == "" {
		return errors.New("--client-secret needs --client-id")
	}
	if f.clientID != "" && f.metadataURL != "" {
		return errors.New("give --client-id or --client-metadata-url, not both")
	}
	return nil
}

// login is a started OAuth login: the handler to put in the transport's
// Auth, and the loopback listener to close when the command ends.
type login struct {
	Handler *oauth.Handler
	lb      *oauth.Loopback
}

// Close stops the redirect listener.
func (l *login) Close() error { return l.lb.Close() }

// start builds the handler: a loopback redirect listener, the
// authorization URL opened in a browser (unless --no-browser) and always
// printed on logw, tokens kept in the token file.
func (f *oauthFlags) start(logw io.Writer) (*login, error) {
	path := f.tokenFile
	if path == "" {
		var err error
		if path, err = defaultTokenFile(); err != nil {
			return nil, err
		}
	}
	store, err := tokenStore(path)
	if err != nil {
		return nil, err
	}
	lb, err := oauth.ListenLoopback("/callback")
	if err != nil {
		return nil, fmt.Errorf("redirect listener: %w", err)
	}
	open := func(authURL string) error {
		fmt.Fprintf(logw, "mcpchain: log in at this URL (it redirects to %s):\n%s\n", lb.RedirectURL(), termtext.Line(authURL))
		if !f.noBrowser {
			if err := openBrowser(authURL); err != nil {
				fmt.Fprintf(logw, "mcpchain: no browser opened (%v): open the URL yourself\n", err)
			}
		}
		return nil
	}
	h := oauth.New(oauth.Config{
		ClientID: f.clientID, ClientSecret: f.clientSecret, ClientMetadataURL: f.metadataURL,
		ClientName: "mcpchain", RedirectURL: lb.RedirectURL(), Scopes: f.scopes, AssumeS256: f.assumeS256,
		Authorize: authorized(lb.Authorize(open, f.loginTimeout), logw, path), Store: store,
	})
	return &login{Handler: h, lb: lb}, nil
}

// authorized tells the user, once the browser came back with a code,
// that the command goes on and where the tokens will be kept.
func authorized(next oauth.AuthorizeFunc, logw io.Writer, path string) oauth.AuthorizeFunc {
	return func(ctx context.Context, authURL string) (url.Values, error) {
		q, err := next(ctx, authURL)
		if err == nil && q.Get("error") == "" {
			fmt.Fprintf(logw, "mcpchain: the browser came back; getting the token (kept in %s)\n", path)
		}
		return q, err
	}
}

// defaultTokenFile is mcpchain/tokens.json in the user's config directory
// ($XDG_CONFIG_HOME or ~/.config on Linux, ~/Library/Application Support
// on macOS, %AppData% on Windows).
func defaultTokenFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory for the token file (give --token-file): %w", err)
	}
	return filepath.Join(dir, "mcpchain", "tokens.json"), nil
}

// tokenStore returns the FileStore at path, its directory created with
// mode 0700 (the file itself is written 0600): tokens are secrets.
func tokenStore(path string) (*oauth.FileStore, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	return &oauth.FileStore{Path: path}, nil
}

// openBrowser starts the system's browser on u, without waiting for it.
func openBrowser(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	// The browser must not write on stdout, which may be the JSON-RPC
	// channel of bridge.
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
