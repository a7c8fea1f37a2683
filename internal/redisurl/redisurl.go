// Package redisurl turns the one string a flag or an environment variable
// carries into a go-redis client: a single Redis server or a Redis
// Cluster.
//
// The forms:
//
//	redis://[user:password@]host:6379[/db][?options]   one server (redis.ParseURL); rediss:// for TLS
//	redis://host1:6379?addr=host2:6379&addr=host3:6379  a cluster, through these seed nodes (redis.ParseClusterURL)
//	host1:6379,host2:6379,host3:6379                     a cluster, no password, no TLS
//
// A cluster client finds every node from any seed, so the list need not
// be complete, but it takes two addresses or more to say "cluster".
//
// Timeouts the URL does not set are short (dial, read, write and the wait
// for a pooled connection 1 s, one retry), where go-redis's own defaults
// are 5 s, 3 s, 4 s and three retries: a Redis that hangs (a network
// partition, a stopped process) then costs a request about 3 s at most
// before it is refused with 503, not 10 s. A URL sets its own with
// dial_timeout, read_timeout, write_timeout, pool_timeout and max_retries.
package redisurl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// New returns a client for s without connecting: a *redis.Client for one
// server, a *redis.ClusterClient for a cluster.
func New(s string) (redis.UniversalClient, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty Redis URL")
	}
	if strings.Contains(s, ",") {
		if strings.Contains(s, "://") {
			return nil, errors.New("a list of addresses is host:port,host:port; with a scheme write redis://host1:port?addr=host2:port")
		}
		var addrs []string
		for _, a := range strings.Split(s, ",") {
			a = strings.TrimSpace(a)
			if a == "" {
				continue
			}
			if _, _, err := net.SplitHostPort(a); err != nil {
				return nil, fmt.Errorf("cluster address %q: %w", a, err)
			}
			addrs = append(addrs, a)
		}
		if len(addrs) < 2 {
			return nil, fmt.Errorf("%q names one address: a cluster takes two or more, one server a redis:// URL", s)
		}
		opt := &redis.ClusterOptions{Addrs: addrs}
		bound(&opt.DialTimeout, &opt.ReadTimeout, &opt.WriteTimeout, &opt.PoolTimeout, &opt.MaxRetries)
		return redis.NewClusterClient(opt), nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return nil, fmt.Errorf("%q is neither a redis:// or rediss:// URL nor a list host:port,host:port", s)
	}
	if u.Query().Has("addr") {
		opt, err := redis.ParseClusterURL(s)
		if err != nil {
			return nil, err
		}
		bound(&opt.DialTimeout, &opt.ReadTimeout, &opt.WriteTimeout, &opt.PoolTimeout, &opt.MaxRetries)
		return redis.NewClusterClient(opt), nil
	}
	opt, err := redis.ParseURL(s)
	if err != nil {
		return nil, err
	}
	bound(&opt.DialTimeout, &opt.ReadTimeout, &opt.WriteTimeout, &opt.PoolTimeout, &opt.MaxRetries)
	return redis.NewClient(opt), nil
}

// The timeouts New sets where the URL sets none (see the package doc).
const (
	netTimeout = time.Second
	retries    = 1
)

// bound sets the timeouts and retries the URL left at go-redis's
// defaults (zero).
func bound(dial, read, write, pool *time.Duration, maxRetries *int) {
	for _, d := range []*time.Duration{dial, read, write, pool} {
		if *d == 0 {
			*d = netTimeout
		}
	}
	if *maxRetries == 0 {
		*maxRetries = retries
	}
}

// Open is New, then a PING (for a cluster, of every master, which also
// loads the slot map): it returns an error, having closed the client,
// when the server or cluster does not answer before ctx ends.
func Open(ctx context.Context, s string) (redis.UniversalClient, error) {
	c, err := New(s)
	if err != nil {
		return nil, err
	}
	if err := Ping(ctx, c); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("no answer: %w", err)
	}
	return c, nil
}

// Ping checks that c answers: the server, or every master of a cluster.
func Ping(ctx context.Context, c redis.UniversalClient) error {
	if cc, ok := c.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return n.Ping(ctx).Err() })
	}
	return c.Ping(ctx).Err()
}
