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
package redisurl

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

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
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs}), nil
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
		return redis.NewClusterClient(opt), nil
	}
	opt, err := redis.ParseURL(s)
	if err != nil {
		return nil, err
	}
	return redis.NewClient(opt), nil
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
