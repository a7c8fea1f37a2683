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
//
// A cluster client also follows a failover at once: go-redis reloads its
// slot map on a MOVED reply, or every minute, but a master that died
// answers nothing, so its slots would be refused for up to a minute after
// its replica took over. The client New returns reloads the map (at most
// every 200 ms, go-redis's own cooldown) whenever a command fails on the
// network or with CLUSTERDOWN, and every 5 s regardless.
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
		return newCluster(&redis.ClusterOptions{Addrs: addrs}), nil
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
		return newCluster(opt), nil
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
	// reloadEvery is the interval of a cluster client's slot map reloads
	// when nothing failed.
	reloadEvery = 5 * time.Second
)

// newCluster returns a cluster client with the package's timeouts that
// follows failovers (see the package doc).
func newCluster(opt *redis.ClusterOptions) *redis.ClusterClient {
	bound(&opt.DialTimeout, &opt.ReadTimeout, &opt.WriteTimeout, &opt.PoolTimeout, &opt.MaxRetries)
	if opt.ClusterStateReloadInterval == 0 {
		opt.ClusterStateReloadInterval = reloadEvery
	}
	c := redis.NewClusterClient(opt)
	c.AddHook(reloadOnFailure{c})
	return c
}

// reloadOnFailure is a go-redis hook that asks its cluster client to
// reload the slot map when a command or pipeline fails in a way a
// topology change explains: on the network (a dead or unreachable node)
// or with CLUSTERDOWN or TRYAGAIN. A reply of the server (WRONGTYPE,
// NOSCRIPT, a Lua error) or the caller's own deadline is not one.
type reloadOnFailure struct{ c *redis.ClusterClient }

func (h reloadOnFailure) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h reloadOnFailure) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.check(ctx, err)
		return err
	}
}

func (h reloadOnFailure) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		h.check(ctx, err)
		return err
	}
}

func (h reloadOnFailure) check(ctx context.Context, err error) {
	if topologyError(err) && ctx.Err() == nil {
		h.c.ReloadState(ctx)
	}
}

// topologyError reports whether err may come from a change of the
// cluster's topology (see reloadOnFailure).
func topologyError(err error) bool {
	if err == nil || errors.Is(err, redis.Nil) || errors.Is(err, redis.TxFailedErr) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		return strings.HasPrefix(msg, "CLUSTERDOWN") || strings.HasPrefix(msg, "TRYAGAIN")
	}
	return true
}

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
