package providers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookStore is a TokenStorage with hooks, to put another request's write
// exactly between two steps of this one, or to make a step fail.
type hookStore struct {
	TokenStorage
	afterGet  func(key string)
	afterTake func(key string) // after Take or Swap
	fail      func(op, key string) error
}

func (h *hookStore) Take(ctx context.Context, key string) ([]byte, error) {
	b, err := h.TokenStorage.Take(ctx, key)
	if h.afterTake != nil {
		h.afterTake(key)
	}
	return b, err
}

func (h *hookStore) Swap(ctx context.Context, key string, val []byte, ttl time.Duration) ([]byte, error) {
	b, err := h.TokenStorage.Swap(ctx, key, val, ttl)
	if h.afterTake != nil {
		h.afterTake(key)
	}
	return b, err
}

func (h *hookStore) failing(op, key string) error {
	if h.fail != nil {
		return h.fail(op, key)
	}
	return nil
}

func (h *hookStore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := h.failing("get", key); err != nil {
		return nil, err
	}
	b, err := h.TokenStorage.Get(ctx, key)
	if h.afterGet != nil {
		h.afterGet(key)
	}
	return b, err
}

func (h *hookStore) Put(ctx context.Context, key string, val []byte, ttl time.Duration) error {
	if err := h.failing("put", key); err != nil {
		return err
	}
	return h.TokenStorage.Put(ctx, key, val, ttl)
}

func (h *hookStore) Update(ctx context.Context, key string, val []byte, ttl time.Duration) (bool, error) {
	if err := h.failing("update", key); err != nil {
		return false, err
	}
	return h.TokenStorage.Update(ctx, key, val, ttl)
}

func (h *hookStore) Delete(ctx context.Context, key string) error {
	if err := h.failing("delete", key); err != nil {
		return err
	}
	return h.TokenStorage.Delete(ctx, key)
}

// loginTokens logs in with a confidential client and returns its tokens.
func loginTokens(t *testing.T, e *env) (regd, map[string]any) {
	c := e.register("client_secret_post")
	u := e.login(browser(t), c)
	st, tok := e.exchange(c, u.Query().Get("code"))
	require.Equal(t, 200, st, tok)
	return c, tok
}

// A grant revoked while a refresh is under way must
// stay revoked (the refresh used to write it back).
func TestThreatRevokedGrantIsNotWrittenBack(t *testing.T) {
	t.Parallel()
	for _, sc := range storageCases(t, 0) {
		t.Run(sc.name, func(t *testing.T) {
			hs := &hookStore{TokenStorage: sc.open(t)}
			e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = hs })
			c, tok := loginTokens(t, e)
			var revoked atomic.Bool
			hs.afterGet = func(key string) {
				// The moment the refresh has read the grant, another request
				// revokes the login (a reuse of a spent refresh token, say).
				if strings.HasPrefix(key, "grant:") && revoked.CompareAndSwap(false, true) {
					require.NoError(t, hs.TokenStorage.Delete(context.Background(), key))
				}
			}
			st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
			require.True(t, revoked.Load(), "the hook ran")
			hs.afterGet = nil
			assert.Equal(t, 400, st, "a refresh of a login revoked under it fails: %v", out)
			if at, ok := out["access_token"].(string); ok {
				code, _ := e.call(at)
				assert.Equal(t, 401, code, "the revoked login stays revoked")
			}
			code, _ := e.call(tok["access_token"].(string))
			assert.Equal(t, 401, code, "the revoked login stays revoked")
		})
	}
}

// Of many concurrent uses of one refresh token, one
// wins and the others are replays that revoke the login, the winner's new
// tokens included.
func TestThreatConcurrentRefreshReplayRevokes(t *testing.T) {
	t.Parallel()
	for _, sc := range storageCases(t, 0) {
		t.Run(sc.name, func(t *testing.T) {
			store := sc.open(t)
			e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = store })
			for round := range 5 {
				c, tok := loginTokens(t, e)
				rt := tok["refresh_token"].(string)
				var wins atomic.Int32
				var won map[string]any
				var mu sync.Mutex
				var wg sync.WaitGroup
				start := make(chan struct{})
				for range 20 {
					wg.Go(func() {
						<-start
						form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {c.ID}, "client_secret": {c.Secret}}
						resp, err := http.PostForm(e.ts.URL+TokenPath, form)
						if err != nil {
							t.Error(err)
							return
						}
						defer resp.Body.Close()
						if resp.StatusCode == 200 {
							wins.Add(1)
							var out map[string]any
							_ = jsonDecode(resp, &out)
							mu.Lock()
							won = out
							mu.Unlock()
						}
					})
				}
				close(start)
				wg.Wait()
				require.LessOrEqual(t, wins.Load(), int32(1), "round %d: at most one use wins", round)
				if won != nil {
					code, _ := e.call(won["access_token"].(string))
					assert.Equal(t, 401, code, "round %d: the replays revoked the winner's login", round)
					st, _ := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {won["refresh_token"].(string)}})
					assert.Equal(t, 400, st, "round %d: the winner's new refresh token is dead", round)
				}
			}
		})
	}
}

// A replay that arrives the moment the legitimate use
// has taken the refresh token (before it was marked used) must still be
// seen as a replay, and revoke the login.
func TestThreatReplayDuringRefreshRevokes(t *testing.T) {
	t.Parallel()
	for _, sc := range storageCases(t, 0) {
		t.Run(sc.name, func(t *testing.T) {
			hs := &hookStore{TokenStorage: sc.open(t)}
			e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = hs })
			c, tok := loginTokens(t, e)
			rt := tok["refresh_token"].(string)
			var replayed atomic.Bool
			var replay int
			hs.afterTake = func(key string) {
				if strings.HasPrefix(key, "rt:") && replayed.CompareAndSwap(false, true) {
					replay, _ = e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
				}
			}
			st, out := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
			hs.afterTake = nil
			require.True(t, replayed.Load())
			assert.Equal(t, 400, replay, "the replay is refused")
			if st == 200 {
				code, _ := e.call(out["access_token"].(string))
				assert.Equal(t, 401, code, "the replay revoked the login, the winner's new tokens included")
			}
			code, _ := e.call(tok["access_token"].(string))
			assert.Equal(t, 401, code, "the replay revoked the login")
		})
	}
}

// A revocation the storage could not record answers
// 503 (RFC 7009 §2.2.1), so the client retries; the retry works.
func TestThreatRevocationFailureIs503(t *testing.T) {
	t.Parallel()
	for _, sc := range storageCases(t, 0) {
		t.Run(sc.name, func(t *testing.T) {
			hs := &hookStore{TokenStorage: sc.open(t)}
			e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = hs })
			c, tok := loginTokens(t, e)
			down := errors.New("storage down")
			revoke := func(token string) int {
				resp := do(t, http.DefaultClient, "POST", e.ts.URL+RevokePath,
					url.Values{"token": {token}, "client_id": {c.ID}, "client_secret": {c.Secret}}, nil)
				return resp.StatusCode
			}
			for _, tt := range []struct{ name, op, prefix, token string }{
				{"access token, marker not stored", "put", "revoked_jti:", tok["access_token"].(string)},
				{"refresh token, record not read", "get", "rt:", tok["refresh_token"].(string)},
				{"refresh token, grant not deleted", "delete", "grant:", tok["refresh_token"].(string)},
			} {
				hs.fail = func(op, key string) error {
					if op == tt.op && strings.HasPrefix(key, tt.prefix) {
						return down
					}
					return nil
				}
				assert.Equal(t, 503, revoke(tt.token), tt.name)
				hs.fail = nil
			}
			code, _ := e.call(tok["access_token"].(string))
			assert.Equal(t, 200, code, "nothing was revoked yet")
			assert.Equal(t, 200, revoke(tok["access_token"].(string)))
			code, _ = e.call(tok["access_token"].(string))
			assert.Equal(t, 401, code, "the retried revocation worked")
			assert.Equal(t, 200, revoke(tok["refresh_token"].(string)))
			st, _ := e.token(c, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}})
			assert.Equal(t, 400, st)
		})
	}
}

func jsonDecode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }

// TestApproveStorageFailureIsAnError: when the login's state cannot be
// stored at consent, the user gets the error page at once, not a trip
// to the identity provider whose return nothing would recognise (the
// failure was lost to a shadowed err, found by staticcheck).
func TestApproveStorageFailureIsAnError(t *testing.T) {
	t.Parallel()
	for _, sc := range storageCases(t, 0) {
		t.Run(sc.name, func(t *testing.T) {
			hs := &hookStore{TokenStorage: sc.open(t)}
			e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = hs })
			c := e.register("client_secret_post")
			b := browser(t)
			f := e.consent(b, e.authorizeURL(c, nil))
			f.Set("action", "approve")
			hs.fail = func(op, key string) error {
				if op == "update" && strings.HasPrefix(key, TransactionKeyPrefix) {
					return errors.New("storage down")
				}
				return nil
			}
			resp := do(t, b, "POST", e.ts.URL+ConsentPath, f, nil)
			body := readBody(t, resp)
			assert.Equal(t, http.StatusInternalServerError, resp.StatusCode, body)
			assert.Empty(t, resp.Header.Get("Location"), "no redirect to the identity provider")
		})
	}
}
