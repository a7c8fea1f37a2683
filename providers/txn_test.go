package providers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// approveIn loads the consent page of a new authorization of c in b,
// approves it, and returns the form and the upstream URL it was sent to.
func (e *env) approveIn(b *http.Client, c regd) (url.Values, string) {
	e.t.Helper()
	f := e.consent(b, e.authorizeURL(c, nil))
	f.Set("action", "approve")
	resp := do(e.t, b, "POST", e.ts.URL+ConsentPath, f, nil)
	require.Equal(e.t, 303, resp.StatusCode, readBody(e.t, resp))
	return f, resp.Header.Get("Location")
}

// callback follows the identity provider's answer to an upstream URL in
// b and returns our callback's answer.
func (e *env) callback(b *http.Client, upstream string) *http.Response {
	e.t.Helper()
	resp := do(e.t, b, "GET", upstream, nil, nil) // the IdP approves at once
	require.Equal(e.t, 302, resp.StatusCode)
	return do(e.t, b, "GET", resp.Header.Get("Location"), nil, nil)
}

// Issue 31: transactions hold the upstream PKCE verifier, the nonce, the
// state's secret and the browser binding; they are sealed like the other
// records, and one that does not open (tampered, or written by hand) is
// refused at the consent page and at the callback.
func TestThreatTransactionRecordsAreSealed(t *testing.T) {
	t.Parallel()
	for _, sc := range storageCases(t, 0) {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			store := sc.open(t)
			e := newEnv(t, func(c *OAuthProviderConfig) { c.TokenStorage = store })
			ctx := context.Background()
			c := e.register("none")
			b := browser(t)
			f, upstream := e.approveIn(b, c)
			key := TransactionKeyPrefix + f.Get("txn")
			raw, err := store.Get(ctx, key)
			require.NoError(t, err)
			tx, err := e.p.getTxn(ctx, f.Get("txn"), false)
			require.NoError(t, err)
			for name, secret := range map[string]string{"verifier": tx.Verifier, "nonce": tx.Nonce, "binding": tx.Binding,
				"state secret": tx.UState, "csrf": tx.CSRF, "client state": "client-state", "redirect URI": c.Redirect} {
				require.NotEmpty(t, secret, name)
				assert.NotContains(t, string(raw), secret, "the stored transaction holds no plain %s", name)
			}

			// Someone who can write the storage widens the scope in a
			// plain copy of the record: it is not a transaction.
			tx.Scopes = append(tx.Scopes, "admin")
			forged, err := json.Marshal(tx)
			require.NoError(t, err)
			require.NoError(t, store.Put(ctx, key, forged, time.Minute))
			resp := do(t, b, "GET", e.ts.URL+ConsentPath+"?txn="+url.QueryEscape(f.Get("txn")), nil, nil)
			assert.Equal(t, 400, resp.StatusCode, "the consent page of a forged transaction")
			resp = e.callback(b, upstream)
			assert.Equal(t, 400, resp.StatusCode, "the callback of a forged transaction")
			assert.Empty(t, resp.Header.Get("Location"), "no code for a forged transaction")

			// A sealed record moved to another key, or with a byte
			// changed, does not open either.
			f2, upstream2 := e.approveIn(b, c)
			sealed, err := store.Get(ctx, TransactionKeyPrefix+f2.Get("txn"))
			require.NoError(t, err)
			require.NoError(t, store.Put(ctx, key, sealed, time.Minute))
			resp = do(t, b, "GET", e.ts.URL+ConsentPath+"?txn="+url.QueryEscape(f.Get("txn")), nil, nil)
			assert.Equal(t, 400, resp.StatusCode, "a record moved to another transaction's key")
			sealed[len(sealed)-1] ^= 1
			require.NoError(t, store.Put(ctx, TransactionKeyPrefix+f2.Get("txn"), sealed, time.Minute))
			resp = e.callback(b, upstream2)
			assert.Equal(t, 400, resp.StatusCode, "a record with a byte changed")
			assert.Empty(t, resp.Header.Get("Location"))
		})
	}
}

// A callback that carries the state of a sign-in but not the approving
// browser's binding (or a wrong secret) is refused and leaves the sign-in
// alone: the user's own callback still completes it. It used to take the
// transaction first, so whoever saw the state could end the sign-in.
func TestThreatForgedCallbackDoesNotEndTheSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	user := browser(t)
	_, upstream := e.approveIn(user, c)
	resp := do(t, user, "GET", upstream, nil, nil) // the IdP answers
	require.Equal(t, 302, resp.StatusCode)
	cb, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)

	// The callback URL, replayed in another browser (a proxy log, a
	// shoulder), and with the state's secret changed.
	resp = do(t, browser(t), "GET", cb.String(), nil, nil)
	assert.Equal(t, 403, resp.StatusCode, "another browser: %s", readBody(t, resp))
	q := cb.Query()
	id, _, _ := strings.Cut(q.Get("state"), ".")
	q.Set("state", id+".wrong")
	resp = do(t, user, "GET", cb.Scheme+"://"+cb.Host+cb.Path+"?"+q.Encode(), nil, nil)
	assert.Equal(t, 400, resp.StatusCode, "a wrong state secret")

	resp = do(t, user, "GET", cb.String(), nil, nil)
	require.Equal(t, 302, resp.StatusCode, "the user's own callback: %s", readBody(t, resp))
	u, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	st, tok := e.exchange(c, u.Query().Get("code"))
	assert.Equal(t, 200, st, tok)
	resp = do(t, user, "GET", cb.String(), nil, nil)
	assert.Equal(t, 400, resp.StatusCode, "a callback works once")
}

// Approving twice (a double click) sends the browser to the same upstream
// URL with the same binding: either navigation completes the sign-in. It
// used to draw new upstream secrets at each approval, so the first
// navigation's code was exchanged with the second's PKCE verifier and
// failed. An approval after the sign-in completed writes nothing back.
func TestDoubleApproveSendsTheSameWay(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.register("none")
	b := browser(t)
	f, first := e.approveIn(b, c)
	resp := do(t, b, "POST", e.ts.URL+ConsentPath, f, nil)
	require.Equal(t, 303, resp.StatusCode, readBody(t, resp))
	assert.Equal(t, first, resp.Header.Get("Location"), "the second approval sends the browser the same way")

	resp = e.callback(b, first)
	require.Equal(t, 302, resp.StatusCode, readBody(t, resp))
	u, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	st, tok := e.exchange(c, u.Query().Get("code"))
	require.Equal(t, 200, st, tok)

	resp = do(t, b, "POST", e.ts.URL+ConsentPath, f, nil)
	assert.Equal(t, 400, resp.StatusCode, "an approval after the sign-in completed")
	assert.Empty(t, resp.Header.Get("Location"))
	_, err = e.p.store.Get(context.Background(), TransactionKeyPrefix+f.Get("txn"))
	assert.ErrorIs(t, err, ErrNotFound, "nothing was written back")
}
