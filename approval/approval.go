package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/pages"
	"github.com/mcpchain/mcp/providers"
)

// Tag marks a tool that needs approval (mcp.Tool.Tags), as the
// destructiveHint annotation does.
const Tag = "destructive"

// SignIn tells which user a browser belongs to, so that only the user a
// call was made by can approve it (a [providers.Proxy] is one; see
// accounts.SignIn, the same interface).
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
	// ("https://mcp.example.com"); the approval pages live under
	// {BaseURL}{Path}. Required; https unless the host is loopback or
	// AllowInsecureHTTP.
	BaseURL string
	// Path is where the pages live under BaseURL. Default: /approvals.
	Path string
	// SignIn identifies the user of a browser (a *providers.Proxy).
	// Required.
	SignIn SignIn
	// Require says which calls need approval. Default: tools whose
	// annotations set destructiveHint to true, and tools tagged [Tag].
	// A tool derived by a transform (mcp.Server.AddTransformedTool) keeps
	// its source's tags and destructiveHint, and a mount or an import
	// prefixes names, so select by those rather than by call.Name; this
	// is also the place to exempt a derived tool that is really harmless.
	Require func(call *mcp.GuardedCall) bool
	// Storage keeps the requests and the decisions; Redis (package
	// providers/redisstorage) shares them between replicas, so that one
	// replica may render the page and another run the call. It may be the
	// OAuth proxy's own storage. Default: a providers.MemoryStorage,
	// closed by Close.
	Storage providers.TokenStorage
	// Key (at least 32 bytes, the same on every replica) signs the
	// decisions and seals the requests and the page's cookies. Required
	// with a Storage other than a providers.MemoryStorage; otherwise random
	// per process.
	Key string
	// RequestTTL is how long a request waits for the user's decision.
	// Default: 10 minutes.
	RequestTTL time.Duration
	// DecisionTTL is how long a decision waits for the call it answers
	// (the client's next call, or the 2026-07-28 round's). Default: 5
	// minutes.
	DecisionTTL time.Duration
	// AllowInsecureHTTP accepts an http BaseURL on a host other than
	// loopback (a development setup).
	AllowInsecureHTTP bool
	// Logger receives diagnostics, never an argument's value. Default:
	// slog.Default().
	Logger *slog.Logger
}

// Approvals asks the user to approve, on a page of this server bound to
// the user, each call of a tool that needs it; see the package doc.
type Approvals struct {
	cfg     Config
	base    pages.Base
	path    string
	store   providers.TokenStorage
	own     bool
	seal    pages.Sealer
	macKey  []byte
	cookies pages.Cookies
	log     *slog.Logger
	now     func() time.Time
	srv     *mcp.Server
}

// New checks cfg and returns the approvals.
func New(cfg Config) (*Approvals, error) {
	base, err := pages.ParseBase("approval", cfg.BaseURL, cfg.AllowInsecureHTTP)
	if err != nil {
		return nil, err
	}
	if cfg.Path == "" {
		cfg.Path = "/approvals"
	}
	cfg.Path = strings.TrimSuffix(cfg.Path, "/")
	if !strings.HasPrefix(cfg.Path, "/") || strings.ContainsAny(cfg.Path, "{}?#") {
		return nil, fmt.Errorf("approval: Path %q must start with / and hold no pattern, query or fragment", cfg.Path)
	}
	if cfg.SignIn == nil {
		return nil, errors.New("approval: SignIn is required: only the user who made a call may approve it, so the page must know whose browser it is (a *providers.Proxy)")
	}
	if cfg.Require == nil {
		cfg.Require = Destructive
	}
	if cfg.RequestTTL <= 0 {
		cfg.RequestTTL = 10 * time.Minute
	}
	if cfg.DecisionTTL <= 0 {
		cfg.DecisionTTL = 5 * time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	a := &Approvals{cfg: cfg, base: base, path: base.Path + cfg.Path, log: cfg.Logger.With("component", "approval"), now: time.Now}
	a.store = cfg.Storage
	if a.store == nil {
		a.store, a.own = providers.NewMemoryStorage(nil), true
	}
	_, memory := a.store.(*providers.MemoryStorage)
	key, err := pages.Secret("approval", "Key", cfg.Key, !memory, a.log)
	if err != nil {
		return nil, a.fail(err)
	}
	if a.seal, err = pages.NewSealer(pages.Derive(key, "mcpchain/approval/storage/v1")); err != nil {
		return nil, a.fail(err)
	}
	a.macKey = pages.Derive(key, "mcpchain/approval/decision/v1")
	a.cookies = pages.NewCookies(key, "mcpchain/approval", base.Secure, cfg.RequestTTL)
	return a, nil
}

func (a *Approvals) fail(err error) error {
	if a.own {
		_ = a.store.Close()
	}
	return err
}

// Close releases the default storage (when New made it).
func (a *Approvals) Close() error {
	if a.own {
		return a.store.Close()
	}
	return nil
}

// Destructive is the default Config.Require: a tool whose annotations set
// destructiveHint to true, or that is tagged [Tag].
func Destructive(call *mcp.GuardedCall) bool {
	t := call.Tool
	if t == nil {
		return false
	}
	if t.Annotations != nil && t.Annotations.DestructiveHint != nil && *t.Annotations.DestructiveHint {
		return true
	}
	return slices.Contains(t.Tags, Tag)
}

// Mount installs a on srv: a guard on every tool call (mcp.AddToolGuard),
// which lets through the calls Config.Require does not select, and the
// approval page under {BaseURL}{Path}/{id} (srv.AddRoute, served by
// mcphttp.NewMux and mcphttp.Start; GET shows the call, POST records the
// user's decision).
func (a *Approvals) Mount(srv *mcp.Server) {
	a.srv = srv
	srv.AddToolGuard(a.guard)
	pub := &mcp.RouteOptions{Public: true}
	srv.AddRoute(http.MethodGet, a.path+"/{id}", pages.Headers(http.HandlerFunc(a.show)), pub)
	srv.AddRoute(http.MethodPost, a.path+"/{id}", pages.Headers(http.HandlerFunc(a.decide)), pub)
}

// request is a call waiting for the user's decision, stored sealed under
// txn:appr:{ID} (a transaction: it counts against the storage's quota of
// records that need no login). Binding names the decision's key.
type request struct {
	ID          string   `json:"id"`
	Key         string   `json:"k"`
	Tool        string   `json:"t"`
	Title       string   `json:"ti,omitempty"`
	Description string   `json:"d,omitempty"`
	Client      string   `json:"c,omitempty"`
	Args        string   `json:"a"`
	ArgsHash    string   `json:"h"`
	Binding     string   `json:"b"`
	Sessions    []string `json:"ss,omitempty"`
	CSRF        string   `json:"x"`
	Created     int64    `json:"at"`
}

const (
	maxSessions = 8
	// maxShownArgs bounds the arguments a request shows (and keeps).
	maxShownArgs = 16 << 10
	// maxClientName bounds the client's name a request shows.
	maxClientName = 256
)

func requestKey(id string) string { return providers.TransactionKeyPrefix + "appr:" + id }
func waitKey(b string) string     { return providers.TransactionKeyPrefix + "apprwait:" + b }
func decisionKey(b string) string { return "appr:" + b }

// binding names one user's call of one tool with one set of arguments.
func binding(key, tool, args string) string {
	return pages.Hash(key + "\x00" + tool + "\x00" + args)
}

// guard lets a call through when it needs no approval, or when the user
// approved this very call (this user, tool and arguments) within
// DecisionTTL: the decision is taken (once, atomically, on any replica).
// Otherwise it returns the URL elicitation of the approval page.
func (a *Approvals) guard(ctx context.Context, c *mcp.Context, call *mcp.GuardedCall) error {
	if !a.cfg.Require(call) {
		return nil
	}
	key, ok := identity.Key(c.Session)
	if !ok {
		return &mcp.UserError{Message: fmt.Sprintf("Tool %q needs the user's approval, and only a signed-in user whose auth data names a subject (mcp.Subject) can give it: this caller has none.", call.Name)}
	}
	ah, err := argsHash(call.Arguments)
	if err != nil {
		return fmt.Errorf("approval: the arguments of %q: %w", call.Name, err)
	}
	b := binding(key, call.Name, ah)
	raw, err := a.store.Take(ctx, decisionKey(b))
	switch {
	case err == nil:
		d, perr := parseToken(a.macKey, string(raw), a.now())
		switch {
		case perr == nil && d.Sub == pages.Hash(key) && d.Tool == call.Name && d.Args == ah:
			if d.Approved {
				a.log.Info("approved call runs", "tool", call.Name, "request", d.ID)
				return nil
			}
			return &mcp.UserError{Message: fmt.Sprintf("The user denied this call of %q on the approval page. Do not call it again with these arguments unless the user asks.", call.Name)}
		case errors.Is(perr, errExpired):
			a.log.Info("an approval expired before its call", "tool", call.Name)
		default:
			a.log.Warn("a stored approval does not verify for this call; ignored", "tool", call.Name, "err", perr)
		}
	case !errors.Is(err, providers.ErrNotFound):
		return a.unavailable("reading the decisions", err) // fail closed
	}
	return a.ask(ctx, c, call, key, ah, b)
}

// ask returns the URL elicitation of the call's request: the one waiting
// for this user, tool and arguments when there is one, else a new one.
func (a *Approvals) ask(ctx context.Context, c *mcp.Context, call *mcp.GuardedCall, key, ah, b string) error {
	wk := waitKey(b)
	if r, err := a.waitingRequest(ctx, c, wk, key, b); err != nil {
		return err
	} else if r != nil {
		return a.elicitation(r)
	}
	shown, ok := shownArgs(call.Arguments)
	if !ok {
		return &mcp.UserError{Message: fmt.Sprintf("Tool %q needs the user's approval of its arguments, and these are too large to be shown on the approval page (more than %d KiB as shown). Nothing was run: call it with smaller arguments.", call.Name, maxShownArgs>>10)}
	}
	// The client's self-declared name, shown as such: escaped like the
	// arguments, and left out when it is too long to be a name.
	clientName, _ := visible(c.Client.Name, maxClientName)
	r := &request{ID: pages.Token(24), Key: key, Tool: call.Name, Client: clientName, Args: shown,
		ArgsHash: ah, Binding: b, CSRF: pages.Token(24), Created: a.now().Unix()}
	if t := call.Tool; t != nil {
		r.Title, r.Description = t.Title, t.Description
		if r.Title == "" && t.Annotations != nil {
			r.Title = t.Annotations.Title
		}
	}
	if c.SessionID != "" {
		r.Sessions = []string{c.SessionID}
	}
	if _, err := a.putRequest(ctx, r, false); errors.Is(err, providers.ErrStorageFull) {
		return &mcp.UserError{Message: "The approval of this call cannot be asked now: the server holds as many requests in progress as it can. Try again in a few minutes."}
	} else if err != nil {
		return a.unavailable("storing the request", err)
	}
	if err := a.store.Put(ctx, wk, []byte(r.ID), a.cfg.RequestTTL); err != nil {
		return a.unavailable("storing the request", err)
	}
	a.log.Info("approval asked", "tool", call.Name, "request", r.ID)
	return a.elicitation(r)
}

// waitingRequest is the request already waiting (under wait key wk) for
// this user (key), tool and arguments (binding b), or nil when there is
// none; the caller's session is added to those told of its decision.
func (a *Approvals) waitingRequest(ctx context.Context, c *mcp.Context, wk, key, b string) (*request, error) {
	id, err := a.store.Get(ctx, wk)
	if errors.Is(err, providers.ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, a.unavailable("reading the requests", err)
	}
	r, err := a.getRequest(ctx, string(id), false)
	if err != nil || r.Binding != b || r.Key != key {
		return nil, nil
	}
	if sid := c.SessionID; sid != "" && !slices.Contains(r.Sessions, sid) && len(r.Sessions) < maxSessions {
		r.Sessions = append(r.Sessions, sid)
		_, _ = a.putRequest(ctx, r, true)
	}
	return r, nil
}

// unavailable is the call's answer when the storage fails: the call does
// not run, the caller is told to try again, and the storage's error (which
// may name hosts) goes to the log only.
func (a *Approvals) unavailable(what string, err error) error {
	a.log.Error("approvals unavailable: "+what, "err", err)
	return &mcp.UserError{Message: "The approval of this call cannot be checked now (the server's storage is unavailable). Nothing was run; try again later."}
}

func (a *Approvals) elicitation(r *request) error {
	return elicit.URLRequired(elicit.URLRequest{ID: r.ID, URL: a.base.Origin + a.path + "/" + r.ID,
		Message: fmt.Sprintf("Approve the call of %q in your browser: it needs your approval, which only you can give on the server's page. Then try again.", r.Tool)})
}

// shownArgs are the arguments as the page shows them: indented JSON in
// which every character that is invisible or changes how text around it
// is drawn (controls, bidirectional overrides, zero-width and other
// format characters) is written as its \u escape, so that the page shows
// what the tool receives; ok is false when they do not fit in
// maxShownArgs, and the call is not asked for (no one can approve
// arguments they cannot see).
func shownArgs(args json.RawMessage) (string, bool) {
	var buf bytes.Buffer
	if len(args) == 0 || json.Indent(&buf, args, "", "  ") != nil {
		buf.Reset()
		buf.Write(args)
	}
	return visible(buf.String(), maxShownArgs)
}

// visible is s with every character that is invisible or changes how
// the text around it is drawn written as its \u escape (newlines kept);
// ok is false when that is longer than limit bytes.
func visible(s string, limit int) (string, bool) {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if r != '\n' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r)) {
			fmt.Fprintf(&b, "\\u%04x", r)
		} else {
			b.WriteRune(r)
		}
		if b.Len() > limit {
			return "", false
		}
	}
	return b.String(), true
}

func (a *Approvals) getRequest(ctx context.Context, id string, take bool) (*request, error) {
	if !validID(id) {
		return nil, providers.ErrNotFound
	}
	get := a.store.Get
	if take {
		get = a.store.Take
	}
	sk := requestKey(id)
	b, err := get(ctx, sk)
	if err != nil {
		return nil, err
	}
	plain, err := a.seal.Open(sk, b)
	var r request
	if err == nil {
		err = json.Unmarshal(plain, &r)
	}
	if err != nil || r.ID != id || a.now().Sub(time.Unix(r.Created, 0)) > a.cfg.RequestTTL {
		return nil, fmt.Errorf("%w: %s does not open or has expired", providers.ErrNotFound, sk)
	}
	return &r, nil
}

func (a *Approvals) putRequest(ctx context.Context, r *request, update bool) (bool, error) {
	sk := requestKey(r.ID)
	b, _ := json.Marshal(r)
	ttl := time.Unix(r.Created, 0).Add(a.cfg.RequestTTL).Sub(a.now())
	if ttl <= 0 {
		return false, nil
	}
	if update {
		return a.store.Update(ctx, sk, a.seal.Seal(sk, b), ttl)
	}
	return true, a.store.Put(ctx, sk, a.seal.Seal(sk, b), ttl)
}

// validID reports whether s has the form of a request id (pages.Token(24)).
func validID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
