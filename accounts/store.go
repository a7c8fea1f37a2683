package accounts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/elicit"
	"github.com/mcpchain/mcp/internal/pages"
	"github.com/mcpchain/mcp/providers"
)

// connection is a connected account, stored sealed under
// acct:{sha256(identity key)}:{service}: the sealing binds it to that key,
// and Key is checked again on every read.
type connection struct {
	Key         string        `json:"k"`
	Service     string        `json:"s"`
	Token       *oauth2.Token `json:"t"`
	Scopes      []string      `json:"sc,omitempty"`
	ConnectedAt int64         `json:"at"`
}

// pending is a connection in progress, stored sealed under
// txn:acct:{ID} (a transaction: it counts against the storage's quota of
// records anyone may start) from the tool call that found no connection
// until the callback takes it. Its secrets are drawn when it is made and
// leave the server only once the user chose to connect: State (the
// state's secret), Verifier (PKCE), Binding (the browser that chose).
type pending struct {
	ID       string   `json:"id"`
	Key      string   `json:"k"`
	Service  string   `json:"s"`
	Sessions []string `json:"ss,omitempty"` // the MCP sessions waiting (notifications/elicitation/complete)
	CSRF     string   `json:"c"`
	State    string   `json:"st"`
	Verifier string   `json:"v"`
	Binding  string   `json:"b"`
	Approved bool     `json:"ok,omitempty"`
	Created  int64    `json:"at"`
}

// maxSessions bounds the sessions a connection in progress notifies.
const maxSessions = 8

func (a *Accounts) connKey(key string, svc *Service) string {
	return "acct:" + pages.Hash(key) + ":" + svc.Name
}

func pendingKey(id string) string { return providers.TransactionKeyPrefix + "acct:" + id }

func (a *Accounts) waitKey(key string, svc *Service) string {
	return providers.TransactionKeyPrefix + "acctwait:" + pages.Hash(key) + ":" + svc.Name
}

func (a *Accounts) lockKey(key string, svc *Service) string {
	return "acctlock:" + pages.Hash(key) + ":" + svc.Name
}

// load reads the user's connection to svc: ErrNotFound when there is
// none, or when the record does not open or is another user's (a record
// written by hand, or moved between keys).
func (a *Accounts) load(ctx context.Context, key string, svc *Service) (*connection, error) {
	sk := a.connKey(key, svc)
	b, err := a.store.Get(ctx, sk)
	if err != nil {
		return nil, err
	}
	plain, err := a.seal.Open(sk, b)
	var rec connection
	if err == nil {
		err = json.Unmarshal(plain, &rec)
	}
	if err != nil || rec.Key != key || rec.Service != svc.Name || rec.Token == nil {
		a.log.Warn("a stored connection does not open; treated as absent", "service", svc.Name, "err", err)
		return nil, fmt.Errorf("%w: %s", providers.ErrNotFound, sk)
	}
	return &rec, nil
}

func (a *Accounts) save(ctx context.Context, rec *connection, update bool) (bool, error) {
	svc := a.services[rec.Service]
	sk := a.connKey(rec.Key, svc)
	b, err := json.Marshal(rec)
	if err != nil {
		return false, err
	}
	if update {
		return a.store.Update(ctx, sk, a.seal.Seal(sk, b), 0)
	}
	return true, a.store.Put(ctx, sk, a.seal.Seal(sk, b), 0)
}

func (a *Accounts) getPending(ctx context.Context, id string, take bool) (*pending, error) {
	if !validID(id) {
		return nil, providers.ErrNotFound
	}
	get := a.store.Get
	if take {
		get = a.store.Take
	}
	sk := pendingKey(id)
	b, err := get(ctx, sk)
	if err != nil {
		return nil, err
	}
	plain, err := a.seal.Open(sk, b)
	var p pending
	if err == nil {
		err = json.Unmarshal(plain, &p)
	}
	if err != nil || p.ID != id || a.services[p.Service] == nil ||
		a.now().Sub(time.Unix(p.Created, 0)) > pendingTTL {
		return nil, fmt.Errorf("%w: %s does not open or has expired", providers.ErrNotFound, sk)
	}
	return &p, nil
}

func (a *Accounts) putPending(ctx context.Context, p *pending, update bool) (bool, error) {
	sk := pendingKey(p.ID)
	b, _ := json.Marshal(p)
	ttl := time.Unix(p.Created, 0).Add(pendingTTL).Sub(a.now())
	if ttl <= 0 {
		return false, nil
	}
	if update {
		return a.store.Update(ctx, sk, a.seal.Seal(sk, b), ttl)
	}
	return true, a.store.Put(ctx, sk, a.seal.Seal(sk, b), ttl)
}

// elicit returns the URL elicitation that asks the user to connect svc:
// the user's connection in progress to svc when there is one (one per
// user and service, whatever the number of calls), else a new one.
func (a *Accounts) elicit(ctx context.Context, c *mcp.Context, key string, svc *Service) error {
	sid := ""
	if c != nil {
		sid = c.SessionID
	}
	wk := a.waitKey(key, svc)
	if b, err := a.store.Get(ctx, wk); err == nil {
		if p, err := a.getPending(ctx, string(b), false); err == nil && p.Key == key && p.Service == svc.Name {
			if sid != "" && !slices.Contains(p.Sessions, sid) && len(p.Sessions) < maxSessions {
				p.Sessions = append(p.Sessions, sid)
				_, _ = a.putPending(ctx, p, true)
			}
			return a.elicitation(p, svc)
		}
	} else if !errors.Is(err, providers.ErrNotFound) {
		return a.unavailable(svc, "reading the connections in progress", err)
	}
	p := &pending{ID: pages.Token(24), Key: key, Service: svc.Name, CSRF: pages.Token(24), State: pages.Token(24),
		Verifier: oauth2.GenerateVerifier(), Binding: pages.Token(24), Created: a.now().Unix()}
	if sid != "" {
		p.Sessions = []string{sid}
	}
	if _, err := a.putPending(ctx, p, false); errors.Is(err, providers.ErrStorageFull) {
		return &mcp.UserError{Message: "Connecting your " + svc.Title + " account cannot start now: the server holds as many sign-ins in progress as it can. Try again in a few minutes."}
	} else if err != nil {
		return a.unavailable(svc, "storing the connection in progress", err)
	}
	if err := a.store.Put(ctx, wk, []byte(p.ID), pendingTTL); err != nil {
		return a.unavailable(svc, "storing the connection in progress", err)
	}
	return a.elicitation(p, svc)
}

// unavailable is a tool's answer when the storage or the service fails:
// the caller is told to try again; the error (which may name hosts, or
// quote the service) goes to the log only.
func (a *Accounts) unavailable(svc *Service, what string, err error) error {
	a.log.Error("accounts unavailable: "+what, "service", svc.Name, "err", err)
	return &mcp.UserError{Message: "Your " + svc.Title + " account cannot be used now (" + what + " failed on the server). Try again later."}
}

func (a *Accounts) elicitation(p *pending, svc *Service) error {
	return elicit.URLRequired(elicit.URLRequest{ID: p.ID, URL: a.base.Origin + a.path + "/connect?id=" + p.ID,
		Message: "Connect your " + svc.Title + " account: this tool acts on " + svc.Title + " as you. Open the page, sign in to " + svc.Title + " and allow access; then try again."})
}

func (a *Accounts) oauthConfig(svc *Service) *oauth2.Config {
	return &oauth2.Config{ClientID: svc.ClientID, ClientSecret: svc.ClientSecret, Scopes: svc.Scopes,
		RedirectURL: a.base.Origin + a.path + "/callback",
		Endpoint:    oauth2.Endpoint{AuthURL: svc.AuthURL, TokenURL: svc.TokenURL, AuthStyle: svc.AuthStyle}}
}

func (a *Accounts) httpCtx(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, a.client)
}

// errEnded is a connection the service ended (its refresh token refused)
// or the user disconnected: the user must connect again.
var errEnded = errors.New("accounts: the connection ended; connect the account again")

// tokenSource gives the user's current token to svc, refreshing it
// (once, across replicas) when it expires.
type tokenSource struct {
	a   *Accounts
	key string
	svc *Service
	mu  sync.Mutex
	tok *oauth2.Token
}

func (ts *tokenSource) fresh(t *oauth2.Token) bool {
	return t != nil && t.AccessToken != "" && (t.Expiry.IsZero() || ts.a.now().Add(earlyRefresh).Before(t.Expiry))
}

// Token implements oauth2.TokenSource.
func (ts *tokenSource) Token() (*oauth2.Token, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.fresh(ts.tok) {
		return ts.tok, nil
	}
	a := ts.a
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l, _ := a.locks.LoadOrStore(a.connKey(ts.key, ts.svc), &sync.Mutex{})
	l.(*sync.Mutex).Lock()
	defer l.(*sync.Mutex).Unlock()
	tok, err := ts.refresh(ctx)
	if err != nil {
		return nil, err
	}
	ts.tok = tok
	return tok, nil
}

// refresh returns a fresh token: one another request (or replica) stored
// meanwhile, or a new one from the service, under a lock in the storage
// so that replicas do not spend one refresh token twice.
func (ts *tokenSource) refresh(ctx context.Context) (*oauth2.Token, error) {
	a, svc := ts.a, ts.svc
	rec, err := ts.reread(ctx)
	if err != nil {
		return nil, err
	}
	if ts.fresh(rec.Token) {
		return rec.Token, nil
	}
	if rec.Token.RefreshToken == "" {
		return nil, errEnded
	}
	lk := a.lockKey(ts.key, svc)
	if tok, err := ts.lockRefresh(ctx, lk); tok != nil || err != nil {
		return tok, err
	}
	defer func() { _ = a.store.Delete(context.WithoutCancel(ctx), lk) }()
	if rec, err = ts.reread(ctx); err != nil {
		return nil, err
	}
	if ts.fresh(rec.Token) {
		return rec.Token, nil
	}
	nt, err := a.oauthConfig(svc).TokenSource(a.httpCtx(ctx), &oauth2.Token{RefreshToken: rec.Token.RefreshToken}).Token()
	if err != nil {
		return nil, ts.refreshFailed(ctx, err)
	}
	if nt.RefreshToken == "" {
		nt.RefreshToken = rec.Token.RefreshToken
	}
	rec.Token = nt
	if ok, err := a.save(ctx, rec, true); err != nil {
		return nil, fmt.Errorf("accounts: storing the refreshed %s token: %w", svc.Name, err)
	} else if !ok {
		return nil, errEnded // disconnected meanwhile: the disconnect wins
	}
	return nt, nil
}

// reread reads the connection's record again; errEnded when it is gone.
func (ts *tokenSource) reread(ctx context.Context) (*connection, error) {
	rec, err := ts.a.load(ctx, ts.key, ts.svc)
	if errors.Is(err, providers.ErrNotFound) {
		return nil, errEnded
	}
	return rec, err
}

// lockRefresh takes the storage lock lk of the connection's refresh. While
// another replica holds it, it waits for that refresh, and returns its
// token once the record holds a fresh one; (nil, nil) when it has the lock.
func (ts *tokenSource) lockRefresh(ctx context.Context, lk string) (*oauth2.Token, error) {
	for {
		got, err := ts.a.store.PutIfAbsent(ctx, lk, []byte{1}, refreshLockTTL)
		if err != nil {
			return nil, fmt.Errorf("accounts: refreshing the %s token: %w", ts.svc.Name, err)
		}
		if got {
			return nil, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("accounts: refreshing the %s token: another refresh did not finish: %w", ts.svc.Name, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
		rec, err := ts.reread(ctx)
		if err != nil {
			return nil, err
		}
		if ts.fresh(rec.Token) {
			return rec.Token, nil
		}
	}
}

// refreshFailed is the error of a refresh the service answered with err:
// a refused refresh token (invalid_grant, unauthorized_client) ends the
// connection.
func (ts *tokenSource) refreshFailed(ctx context.Context, err error) error {
	a, svc := ts.a, ts.svc
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && (re.ErrorCode == "invalid_grant" || re.ErrorCode == "unauthorized_client") {
		a.log.Info("the service ended a connection (its refresh token was refused)", "service", svc.Name, "error", re.ErrorCode)
		_ = a.store.Delete(ctx, a.connKey(ts.key, svc))
		return errEnded
	}
	return fmt.Errorf("accounts: refreshing the %s token: %s", svc.Name, tokenError(err))
}

// tokenError describes a token endpoint's failure without its body (which
// may echo what was sent).
func tokenError(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return "the token endpoint answered " + re.ErrorCode
		}
		if re.Response != nil {
			return "the token endpoint answered HTTP " + re.Response.Status
		}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return "the token endpoint could not be reached: " + ue.Err.Error()
	}
	return "the token endpoint's answer could not be used"
}

// revoke revokes tok at svc's RevocationURL (RFC 7009), refresh token
// first (which ends the access tokens too at most services); failures are
// logged.
func (a *Accounts) revoke(ctx context.Context, svc *Service, tok *oauth2.Token) {
	if svc.RevocationURL == "" {
		return
	}
	for _, t := range []struct{ v, hint string }{{tok.RefreshToken, "refresh_token"}, {tok.AccessToken, "access_token"}} {
		if t.v == "" {
			continue
		}
		form := url.Values{"token": {t.v}, "token_type_hint": {t.hint}}
		if svc.AuthStyle == oauth2.AuthStyleInParams {
			form.Set("client_id", svc.ClientID)
			form.Set("client_secret", svc.ClientSecret)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, svc.RevocationURL, strings.NewReader(form.Encode()))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if svc.AuthStyle != oauth2.AuthStyleInParams {
			req.SetBasicAuth(url.QueryEscape(svc.ClientID), url.QueryEscape(svc.ClientSecret))
		}
		resp, err := a.client.Do(req)
		if err != nil {
			a.log.Warn("revoking a token at the service failed", "service", svc.Name, "err", errors.Unwrap(err))
			continue
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			a.log.Warn("the service refused to revoke a token", "service", svc.Name, "status", resp.StatusCode)
		}
	}
}
