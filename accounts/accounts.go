package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/pages"
	"github.com/mcpchain/mcp/providers"
)

// Service is an OAuth 2.0 API whose users connect their accounts: the
// client this server registered with it, and its endpoints.
type Service struct {
	// Name names the service in tool code ([Accounts.Client]), in URLs and
	// in the storage: 1 to 32 lower-case letters, digits and hyphens
	// ("github"). Required.
	Name string
	// Title is how the pages name it ("GitHub"). Default: Name.
	Title string
	// ClientID and ClientSecret are what the service issued to this
	// server. Its redirect (callback) URL is {BaseURL}{Path}/callback.
	// ClientID is required.
	ClientID     string
	ClientSecret string
	// AuthURL and TokenURL are the service's authorization and token
	// endpoints; https (http only to a loopback host). Required.
	AuthURL  string
	TokenURL string
	// AuthStyle is how the client authenticates at TokenURL. Default:
	// oauth2.AuthStyleAutoDetect (tries the header, then the body).
	AuthStyle oauth2.AuthStyle
	// RevocationURL, when set, is the service's RFC 7009 revocation
	// endpoint: disconnecting an account revokes its tokens there too.
	RevocationURL string
	// Scopes are asked for at the service, and shown on the connect page.
	Scopes []string
	// AuthParams are extra parameters of the authorization request
	// (access_type=offline for Google, say).
	AuthParams map[string]string
}

// GitHub is the Service of a GitHub OAuth App (Settings → Developer
// settings → OAuth Apps) whose callback URL is {BaseURL}/accounts/callback.
// GitHub's tokens do not expire; an App's user token (a GitHub App) does,
// and is refreshed.
func GitHub(clientID, clientSecret string, scopes ...string) Service {
	return Service{Name: "github", Title: "GitHub", ClientID: clientID, ClientSecret: clientSecret,
		AuthURL: "https://github.com/login/oauth/authorize", TokenURL: "https://github.com/login/oauth/access_token",
		AuthStyle: oauth2.AuthStyleInParams, Scopes: scopes}
}

// SignIn tells which user a browser belongs to, so that a page opened
// from a URL elicitation is completed only by the user it was made for
// (the MCP specification's defence against phishing with an elicitation
// URL). A [providers.Proxy] is one: it signs the browser in at the same
// identity provider as the user's MCP client. Yours (a web app's login)
// must return auth data whose mcp.Subject is the one the same user's MCP
// requests carry.
type SignIn interface {
	// BrowserUser returns the auth data of the user signed in in r's
	// browser; ok is false when there is none.
	BrowserUser(r *http.Request) (auth any, ok bool)
	// SignIn answers w by sending the browser to sign in, then back to
	// returnTo, a path of this server.
	SignIn(w http.ResponseWriter, r *http.Request, returnTo string)
}

// Config configures [New].
type Config struct {
	// BaseURL is where the server's pages are reachable
	// ("https://mcp.example.com"); the pages live under {BaseURL}{Path}.
	// Required; https unless the host is loopback or AllowInsecureHTTP.
	BaseURL string
	// Path is where the pages live under BaseURL. Default: /accounts.
	Path string
	// Services are the APIs users may connect. At least one.
	Services []Service
	// SignIn identifies the user of a browser (a *providers.Proxy).
	// Required.
	SignIn SignIn
	// Storage keeps the connections (sealed) and the connections in
	// progress; Redis (package providers/redisstorage) shares them between
	// replicas. It may be the OAuth proxy's own storage. Default: a
	// providers.MemoryStorage, closed by Close.
	Storage providers.TokenStorage
	// Key (at least 32 bytes, the same on every replica) seals the stored
	// tokens and the pages' cookies. Required with a Storage other than a
	// providers.MemoryStorage; otherwise random per process.
	Key string
	// AllowInsecureHTTP accepts an http BaseURL on a host other than
	// loopback (a development setup).
	AllowInsecureHTTP bool
	// HTTPClient calls the services' token and revocation endpoints.
	// Default: a client with a 10 s timeout.
	HTTPClient *http.Client
	// Logger receives diagnostics, never a token. Default: slog.Default().
	Logger *slog.Logger
}

// Connection is an account a user connected (never its tokens).
type Connection struct {
	// Service is the service's Name; Title its title.
	Service string `json:"service"`
	Title   string `json:"title"`
	// Scopes are what the service granted (or, when it did not say, what
	// was asked).
	Scopes []string `json:"scopes,omitempty"`
	// ConnectedAt is when the user connected it.
	ConnectedAt time.Time `json:"connectedAt"`
}

// Accounts is a per-user store of the OAuth credentials of other APIs: a
// tool that needs the user's account at a service gets a ready client
// ([Accounts.Client]), or, until the user connected the account, a URL
// elicitation to a page of this server where the user connects it.
// Make one with [New] and [Accounts.Mount] it on the server.
type Accounts struct {
	cfg      Config
	base     pages.Base
	path     string // base.Path + cfg.Path: where the routes are
	services map[string]*Service
	store    providers.TokenStorage
	ownStore bool
	seal     pages.Sealer
	cookies  pages.Cookies
	client   *http.Client
	log      *slog.Logger
	now      func() time.Time
	srv      *mcp.Server // set by Mount: elicit.Complete
	locks    sync.Map    // connection key → *sync.Mutex: one refresh at a time in this process
}

var serviceName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// New checks cfg and returns the store.
func New(cfg Config) (*Accounts, error) {
	base, err := pages.ParseBase("accounts", cfg.BaseURL, cfg.AllowInsecureHTTP)
	if err != nil {
		return nil, err
	}
	if cfg.Path == "" {
		cfg.Path = "/accounts"
	}
	cfg.Path = strings.TrimSuffix(cfg.Path, "/")
	if !strings.HasPrefix(cfg.Path, "/") || strings.ContainsAny(cfg.Path, "{}?#") {
		return nil, fmt.Errorf("accounts: Path %q must start with / and hold no pattern, query or fragment", cfg.Path)
	}
	if cfg.SignIn == nil {
		return nil, errors.New("accounts: SignIn is required: the pages must know which user a browser belongs to (a *providers.Proxy)")
	}
	if len(cfg.Services) == 0 {
		return nil, errors.New("accounts: no Services: name at least one API users may connect")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	a := &Accounts{cfg: cfg, base: base, path: base.Path + cfg.Path, services: map[string]*Service{},
		client: cfg.HTTPClient, log: cfg.Logger.With("component", "accounts"), now: time.Now}
	for i := range cfg.Services {
		s := cfg.Services[i]
		if err := checkService(&s); err != nil {
			return nil, err
		}
		if _, dup := a.services[s.Name]; dup {
			return nil, fmt.Errorf("accounts: two services named %q", s.Name)
		}
		s.Scopes = slices.Clone(s.Scopes)
		a.services[s.Name] = &s
	}
	a.store = cfg.Storage
	if a.store == nil {
		a.store, a.ownStore = providers.NewMemoryStorage(nil), true
	}
	_, memory := a.store.(*providers.MemoryStorage)
	key, err := pages.Secret("accounts", "Key", cfg.Key, !memory, a.log)
	if err != nil {
		return nil, a.fail(err)
	}
	if a.seal, err = pages.NewSealer(pages.Derive(key, "mcpchain/accounts/storage/v1")); err != nil {
		return nil, a.fail(err)
	}
	a.cookies = pages.NewCookies(key, "mcpchain/accounts", base.Secure, pendingTTL)
	return a, nil
}

func (a *Accounts) fail(err error) error {
	if a.ownStore {
		_ = a.store.Close()
	}
	return err
}

func checkService(s *Service) error {
	switch {
	case !serviceName.MatchString(s.Name):
		return fmt.Errorf("accounts: service name %q must be 1 to 32 lower-case letters, digits and hyphens", s.Name)
	case s.ClientID == "":
		return fmt.Errorf("accounts: service %q: ClientID is required", s.Name)
	}
	for _, u := range []struct{ name, v string }{{"AuthURL", s.AuthURL}, {"TokenURL", s.TokenURL}, {"RevocationURL", s.RevocationURL}} {
		if u.v == "" && u.name == "RevocationURL" {
			continue
		}
		if err := pages.CheckEndpoint(u.v); err != nil {
			return fmt.Errorf("accounts: service %q: %s: %w", s.Name, u.name, err)
		}
	}
	if s.Title == "" {
		s.Title = s.Name
	}
	return nil
}

// Close releases the default storage (when New made it).
func (a *Accounts) Close() error {
	if a.ownStore {
		return a.store.Close()
	}
	return nil
}

// Lifetimes.
const (
	// pendingTTL is how long a connection in progress waits for the user.
	pendingTTL = 10 * time.Minute
	// refreshLockTTL bounds one replica's refresh of a connection.
	refreshLockTTL = 30 * time.Second
	// earlyRefresh refreshes a token this long before it expires.
	earlyRefresh = time.Minute
)

// ErrNoIdentity is what a caller without an identity key gets (an
// anonymous caller, or auth data without mcp.Subject): its accounts could
// not be told from another caller's.
var ErrNoIdentity = errors.New("accounts: connecting an account needs a signed-in user whose auth data names a subject (mcp.Subject): this caller has none, so an account connected for it could not be told from another caller's")

// Client returns an *http.Client that calls the service as the calling
// user, with the user's token (refreshed when it expires): the one line a
// tool needs,
//
//	gh, err := accts.Client(ctx, c, "github")
//	if err != nil {
//		return "", err // until the user connected GitHub: a URL elicitation
//	}
//
// When the user has not connected the account (or the service ended the
// connection), the error is an mcp.URLElicitationRequired to the connect
// page: returned by the tool as it is, it asks the user to open the page
// at every revision (a -32042 error at 2025-11-25, after which the client
// calls again; an input-required round at 2026-07-28), sessionless
// included. A caller without an identity key gets an mcp.UserError that
// says so (wrapping [ErrNoIdentity]). The client's requests carry the
// token only through its transport: never log them with their headers.
func (a *Accounts) Client(ctx context.Context, c *mcp.Context, service string) (*http.Client, error) {
	ts, err := a.source(ctx, c, service)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: &oauth2.Transport{Source: ts}, Timeout: 30 * time.Second}, nil
}

// TokenSource is [Accounts.Client]'s token source, for a client library
// that takes one (oauth2.NewClient, a generated API client).
func (a *Accounts) TokenSource(ctx context.Context, c *mcp.Context, service string) (oauth2.TokenSource, error) {
	return a.source(ctx, c, service)
}

func (a *Accounts) source(ctx context.Context, c *mcp.Context, service string) (oauth2.TokenSource, error) {
	svc, ok := a.services[service]
	if !ok {
		return nil, fmt.Errorf("accounts: no service named %q is configured", service)
	}
	var auth any
	if c != nil {
		auth = c.Session
	}
	key, ok := identity.Key(auth)
	if !ok {
		return nil, &mcp.UserError{Message: "Connecting your " + svc.Title + " account needs you to be signed in: " + ErrNoIdentity.Error()}
	}
	rec, err := a.load(ctx, key, svc)
	if errors.Is(err, providers.ErrNotFound) {
		return nil, a.elicit(ctx, c, key, svc)
	} else if err != nil {
		return nil, a.unavailable(svc, "reading the connection", err)
	}
	ts := &tokenSource{a: a, key: key, svc: svc, tok: rec.Token}
	if _, err := ts.Token(); errors.Is(err, errEnded) {
		return nil, a.elicit(ctx, c, key, svc)
	} else if err != nil {
		return nil, a.unavailable(svc, "refreshing the token", err)
	}
	return ts, nil
}

// Connections lists the accounts the user with auth data auth connected
// (an error wrapping ErrNoIdentity for a caller without an identity key).
func (a *Accounts) Connections(ctx context.Context, auth any) ([]Connection, error) {
	key, ok := identity.Key(auth)
	if !ok {
		return nil, ErrNoIdentity
	}
	var out []Connection
	for _, s := range a.cfg.Services {
		svc := a.services[s.Name]
		rec, err := a.load(ctx, key, svc)
		if errors.Is(err, providers.ErrNotFound) {
			continue
		} else if err != nil {
			return nil, err
		}
		out = append(out, Connection{Service: svc.Name, Title: svc.Title, Scopes: rec.Scopes, ConnectedAt: time.Unix(rec.ConnectedAt, 0).UTC()})
	}
	return out, nil
}

// Disconnect forgets the user's account at service and, when the service
// has a RevocationURL, revokes its tokens there (a failure there is
// logged: the tokens are forgotten here in any case). Disconnecting an
// account that is not connected is not an error.
func (a *Accounts) Disconnect(ctx context.Context, auth any, service string) error {
	svc, ok := a.services[service]
	if !ok {
		return fmt.Errorf("accounts: no service named %q is configured", service)
	}
	key, ok := identity.Key(auth)
	if !ok {
		return ErrNoIdentity
	}
	sk := a.connKey(key, svc)
	b, err := a.store.Take(ctx, sk)
	if errors.Is(err, providers.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	a.log.Info("account disconnected", "service", svc.Name)
	var rec connection
	if plain, err := a.seal.Open(sk, b); err == nil && json.Unmarshal(plain, &rec) == nil && rec.Token != nil {
		a.revoke(ctx, svc, rec.Token)
	}
	return nil
}
