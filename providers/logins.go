package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// DefaultMaxLoginsPerUser is the default of Config.MaxLoginsPerUser.
const DefaultMaxLoginsPerUser = 50

// loginsLockTTL bounds how long one login holds its user's index, and
// loginsLockWait how long another login of the same user waits for it.
const (
	loginsLockTTL  = 10 * time.Second
	loginsLockWait = 3 * time.Second
)

// userLogin is one entry of a user's index of logins: a grant and when
// it ends at the latest (its login's absolute lifetime).
type userLogin struct {
	Grant string `json:"g"`
	Until int64  `json:"u"` // Unix seconds
}

// errLoginsBusy is another login of the same user holding its index for
// longer than loginsLockWait.
var errLoginsBusy = errors.New("another sign-in of the same user is being recorded; try again")

// trackLogin adds grant gid, stored for the user whose upstream subject
// is sub, to the user's index of logins (logins:{hash of sub}), and
// revokes the user's oldest logins beyond Config.MaxLoginsPerUser: a user
// who can sign in upstream as often as they like (a provider that
// approves again without asking) cannot fill the storage with 30-day
// grants and refresh tokens. The index lives in the TokenStorage, so it
// is shared by the instances that share it; a lock in the storage
// serializes the logins of one user. A user without a subject has no
// index (and no bound).
func (p *Proxy) trackLogin(ctx context.Context, sub, gid string, until time.Time) error {
	if sub == "" || p.cfg.MaxLoginsPerUser < 0 {
		return nil
	}
	key := "logins:" + hashKey(sub)
	lock := "lock:" + key
	if err := p.lockLogins(ctx, lock); err != nil {
		return err
	}
	defer func() { _ = p.store.Delete(context.WithoutCancel(ctx), lock) }()

	list, err := p.readLogins(ctx, key)
	if err != nil {
		return err
	}
	now := p.now().Unix()
	list = slices.DeleteFunc(list, func(l userLogin) bool { return l.Until <= now })
	if limit := p.cfg.MaxLoginsPerUser; limit > 0 && len(list) >= limit {
		// Logins revoked meanwhile (or expired early) do not count.
		list = slices.DeleteFunc(list, func(l userLogin) bool {
			_, err := p.store.Get(ctx, "grant:"+l.Grant)
			return errors.Is(err, ErrNotFound)
		})
		for len(list) >= limit {
			if err := p.store.Delete(ctx, "grant:"+list[0].Grant); err != nil {
				return err
			}
			p.log.Info("a user's oldest login is revoked: the user signed in more often than Config.MaxLoginsPerUser allows",
				"max", limit)
			list = list[1:]
		}
	}
	list = append(list, userLogin{Grant: gid, Until: until.Unix()})
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	last := slices.MaxFunc(list, func(a, b userLogin) int { return int(a.Until - b.Until) })
	ttl := time.Unix(last.Until, 0).Sub(p.now())
	if err := p.store.Put(ctx, key, p.seal.seal(key, b), max(ttl, time.Second)); err != nil {
		return fmt.Errorf("storing the user's index of logins: %w", err)
	}
	return nil
}

// lockLogins takes the storage lock of one user's index of logins,
// polling until loginsLockWait has passed (errLoginsBusy) or ctx ends.
func (p *Proxy) lockLogins(ctx context.Context, lock string) error {
	deadline := time.Now().Add(loginsLockWait)
	for {
		got, err := p.store.PutIfAbsent(ctx, lock, []byte("1"), loginsLockTTL)
		if err != nil {
			return err
		}
		if got {
			return nil
		}
		if time.Now().After(deadline) {
			return errLoginsBusy
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// readLogins reads the user's index of logins stored at key: none when
// it is absent, and none when it does not open (it is then replaced: the
// logins it named are no longer bounded by it, but still end by their
// TTL).
func (p *Proxy) readLogins(ctx context.Context, key string) ([]userLogin, error) {
	b, err := p.store.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var list []userLogin
	plain, err := p.seal.open(key, b)
	if err != nil || json.Unmarshal(plain, &list) != nil {
		p.log.Warn("a user's index of logins does not decode; starting a new one", "err", err)
		return nil, nil
	}
	return list, nil
}
