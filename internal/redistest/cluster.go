package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchain/mcp/internal/testport"
	"github.com/redis/go-redis/v9"
)

// ClusterSize is the number of masters StartCluster runs.
const ClusterSize = 3

// StartCluster runs a Redis Cluster of ClusterSize masters (NewCluster)
// for t and returns their addresses; the cluster is stopped when t ends.
// The test fails when redis-server or redis-cli is not installed (Debian:
// apt-get install -y redis-server, which has both) or the cluster does not
// form within 30 s.
//
// Starting a cluster takes a few seconds: share one among the tests of a
// package by starting it in a parent test and running the others as its
// subtests, or with NewCluster once for the package (stopped in TestMain).
func StartCluster(t testing.TB) []string {
	t.Helper()
	c, err := NewCluster()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c.Addrs
}

// Cluster is a running Redis Cluster of ClusterSize masters on 127.0.0.1,
// with the replicas of ClusterOptions.
type Cluster struct {
	// Addrs are the nodes' host:port: the masters first, then (with
	// ClusterOptions.Replicas) the replicas, as created; a failover makes
	// a replica a master.
	Addrs []string
	procs []*exec.Cmd
	dirs  []string
}

// ClusterOptions configure NewClusterWith. The zero value is
// NewCluster's cluster.
type ClusterOptions struct {
	// Replicas is the number of replicas of each master (0 or 1).
	Replicas int
	// NodeTimeout is the nodes' cluster-node-timeout: how long a master
	// may not answer before its replica takes over. Default 5 s.
	NodeTimeout time.Duration
}

// NewCluster starts ClusterSize redis-server processes with
// --cluster-enabled, each in a temporary directory of its own, joins them
// with `redis-cli --cluster create`, and returns once every node reports
// cluster_state:ok, all 16384 slots assigned and every node known. The
// caller stops it with Stop.
func NewCluster() (*Cluster, error) { return NewClusterWith(ClusterOptions{}) }

// NewClusterWith is NewCluster with replicas and a node timeout of one's
// choice; with replicas, it returns once every replica is in sync.
func NewClusterWith(o ClusterOptions) (_ *Cluster, err error) {
	if o.NodeTimeout <= 0 {
		o.NodeTimeout = 5 * time.Second
	}
	nodes := ClusterSize * (1 + o.Replicas)
	server, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, fmt.Errorf("redistest: redis-server is not installed (apt-get install -y redis-server): %w", err)
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		return nil, fmt.Errorf("redistest: redis-cli is not installed (apt-get install -y redis-server, which has it): %w", err)
	}
	c := &Cluster{}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	// Each node needs two ports: clients and the cluster bus.
	ports, err := freePorts(2 * nodes)
	if err != nil {
		return nil, err
	}
	for i := range nodes {
		port, bus := ports[2*i], ports[2*i+1]
		dir, err := os.MkdirTemp("", "redistest-cluster-")
		if err != nil {
			return nil, err
		}
		c.dirs = append(c.dirs, dir)
		// The output goes to a file, not a pipe: no goroutine copies it
		// (goleak), and it is there to read when the node fails.
		out, err := os.Create(filepath.Join(dir, "redis.out"))
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(server, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(bus),
			"--cluster-config-file", "nodes.conf", "--cluster-node-timeout", strconv.Itoa(int(o.NodeTimeout.Milliseconds())),
			"--save", "", "--appendonly", "no", "--protected-mode", "yes", "--dir", dir)
		cmd.Stdout, cmd.Stderr = out, out
		err = cmd.Start()
		_ = out.Close()
		if err != nil {
			return nil, fmt.Errorf("redistest: starting redis-server: %w", err)
		}
		c.procs = append(c.procs, cmd)
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		c.Addrs = append(c.Addrs, addr)
		if err := waitPing(addr); err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.out"))
			return nil, fmt.Errorf("%w\n%s", err, log)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(o.Replicas), "--cluster-yes")
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("redistest: redis-cli --cluster create: %w\n%s", err, out)
	}
	for _, addr := range c.Addrs {
		if err := waitClusterOK(ctx, addr, nodes); err != nil {
			return nil, err
		}
	}
	if o.Replicas > 0 {
		if err := c.WaitReplicated(ctx); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Masters returns the indexes (in Addrs) of the nodes that are masters
// now, as the first live node sees it.
func (c *Cluster) Masters(ctx context.Context) ([]int, error) {
	for i, cmd := range c.procs {
		if cmd == nil {
			continue
		}
		rc := redis.NewClient(&redis.Options{Addr: c.Addrs[i], MaxRetries: -1})
		out, err := rc.ClusterNodes(ctx).Result()
		_ = rc.Close()
		if err != nil {
			continue
		}
		var masters []int
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			if len(f) < 3 || !strings.Contains(f[2], "master") || strings.Contains(f[2], "fail") {
				continue
			}
			addr, _, _ := strings.Cut(f[1], "@")
			for j, a := range c.Addrs {
				if a == addr && c.procs[j] != nil {
					masters = append(masters, j)
				}
			}
		}
		return masters, nil
	}
	return nil, fmt.Errorf("redistest: no node of the cluster answers")
}

// Kill kills node i (SIGKILL, as a crash would) and waits for it.
func (c *Cluster) Kill(i int) {
	if c.procs[i] == nil {
		return
	}
	_ = c.procs[i].Process.Kill()
	_ = c.procs[i].Wait()
	c.procs[i] = nil
}

// WaitReplicated waits until every live replica has every write its
// master acknowledged (its replication offset is the master's).
func (c *Cluster) WaitReplicated(ctx context.Context) error {
	for {
		lagging := ""
		for i, cmd := range c.procs {
			if cmd == nil {
				continue
			}
			rc := redis.NewClient(&redis.Options{Addr: c.Addrs[i], MaxRetries: -1})
			info, err := rc.Info(ctx, "replication").Result()
			_ = rc.Close()
			if err != nil {
				lagging = c.Addrs[i] + ": " + err.Error()
				break
			}
			if !strings.Contains(info, "role:master") {
				continue
			}
			// A master lists each replica as "slaveN:ip=…,offset=N,lag=…";
			// a replica is in sync when its offset is the master's.
			offset := infoField(info, "master_repl_offset")
			for _, line := range strings.Split(info, "\r\n") {
				if strings.HasPrefix(line, "slave") && strings.Contains(line, "ip=") &&
					(!strings.Contains(line, "state=online") || !strings.Contains(line, ",offset="+offset+",")) {
					lagging = c.Addrs[i] + ": " + line
				}
			}
		}
		if lagging == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: replicas not in sync: %s", lagging)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// infoField returns the value of name in the output of INFO.
func infoField(info, name string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}

// WaitOK waits until ClusterSize live nodes are masters and every live
// node reports cluster_state:ok with all 16384 slots served: after a
// master was killed, until its replica took over.
func (c *Cluster) WaitOK(ctx context.Context) error {
	for {
		masters, err := c.Masters(ctx)
		if err == nil && len(masters) == ClusterSize {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: no replica took over (masters %v): %v", masters, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	for i, cmd := range c.procs {
		if cmd == nil {
			continue
		}
		if err := waitClusterOK(ctx, c.Addrs[i], 0); err != nil {
			return err
		}
	}
	return nil
}

// Stop kills the cluster's processes (by PID), waits for them and removes
// their directories.
func (c *Cluster) Stop() {
	for _, cmd := range c.procs {
		if cmd == nil {
			continue
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	c.procs = nil
	for _, d := range c.dirs {
		_ = os.RemoveAll(d)
	}
	c.dirs = nil
}

// freePorts returns n distinct ports free on 127.0.0.1 just now.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		p, err := testport.Free()
		if err != nil {
			return nil, err
		}
		ports = append(ports, p)
	}
	return ports, nil
}

// waitPing waits up to 10 s for the redis-server at addr to answer.
func waitPing(addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := c.Ping(context.Background()).Err()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redistest: redis-server on %s did not answer: %w", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitClusterOK waits until the node at addr sees the whole cluster: state
// ok, every slot assigned, and (unless nodes is 0) nodes nodes known.
func waitClusterOK(ctx context.Context, addr string, nodes int) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	want := []string{"cluster_state:ok", "cluster_slots_assigned:16384", "cluster_slots_ok:16384"}
	if nodes > 0 {
		want = append(want, "cluster_known_nodes:"+strconv.Itoa(nodes))
	}
	for {
		info, err := c.ClusterInfo(ctx).Result()
		if err == nil && containsAll(info, want) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: the cluster node %s is not ready (want %v): %v\n%s", addr, want, err, info)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func containsAll(info string, lines []string) bool {
	for _, l := range lines {
		if !strings.Contains(info, l+"\r\n") && !strings.HasSuffix(strings.TrimSpace(info), l) {
			return false
		}
	}
	return true
}

// Slot is the cluster hash slot of key (the Redis Cluster specification:
// CRC16/XMODEM of the key, or of its hash tag — the part between the
// first '{' and the next '}' if non-empty — modulo 16384).
func Slot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(key) % 16384)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial value 0).
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// The kinds of multi-key operation SlotCheck counts.
const (
	KindTransaction = "transaction" // MULTI … EXEC with at least one keyed command
	KindWatch       = "watch"       // WATCH
	KindScript      = "script"      // EVAL or EVALSHA with at least one key
	KindCommand     = "command"     // one command naming two keys or more
)

// SlotCheck is a go-redis hook that fails its test when one operation
// touches keys of more than one cluster slot: a command's keys, the keys
// of all the commands of one MULTI … EXEC, a WATCH's, a script's KEYS.
// A cluster rejects most of these with CROSSSLOT, but not every one (two
// slots that one node holds, a client that splits a transaction by
// slot), so the keys are checked here, as the server names them: COMMAND
// GETKEYS, asked of the cluster for every command. It counts what it
// checked by kind, so that a test can show its multi-key paths ran.
type SlotCheck struct {
	t    testing.TB
	keys *redis.Client // answers COMMAND GETKEYS; no hook of its own

	mu      sync.Mutex
	checked map[string]int
}

// NewClusterClient returns a client of the cluster at addrs (from
// StartCluster) whose every command, pipeline and transaction, at the
// cluster level and on each node's connection, goes through a SlotCheck.
// Both are closed when t ends.
func NewClusterClient(t testing.TB, addrs []string) (*redis.ClusterClient, *SlotCheck) {
	t.Helper()
	sc := &SlotCheck{t: t, keys: redis.NewClient(&redis.Options{Addr: addrs[0]}), checked: map[string]int{}}
	c := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs: addrs,
		NewClient: func(o *redis.Options) *redis.Client {
			nc := redis.NewClient(o)
			nc.AddHook(sc)
			return nc
		},
	})
	c.AddHook(sc)
	t.Cleanup(func() {
		_ = c.Close()
		_ = sc.keys.Close()
	})
	return c, sc
}

// Checked is how many operations of kind (KindTransaction, …) were
// checked so far.
func (sc *SlotCheck) Checked(kind string) int {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.checked[kind]
}

// DialHook implements redis.Hook.
func (sc *SlotCheck) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (sc *SlotCheck) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if err := sc.check(ctx, []redis.Cmder{cmd}); err != nil {
			cmd.SetErr(err)
			return err
		}
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook implements redis.Hook.
func (sc *SlotCheck) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		var err error
		if len(cmds) > 0 && strings.EqualFold(cmds[0].Name(), "multi") {
			err = sc.check(ctx, cmds) // one transaction: one slot
		} else {
			for _, cmd := range cmds {
				if err = sc.check(ctx, []redis.Cmder{cmd}); err != nil {
					break
				}
			}
		}
		if err != nil {
			for _, cmd := range cmds {
				cmd.SetErr(err)
			}
			return err
		}
		return next(ctx, cmds)
	}
}

// noKeys are the commands the stores and the client itself send that name
// no key, so that COMMAND GETKEYS need not be asked.
var noKeys = map[string]bool{
	"multi": true, "exec": true, "discard": true, "unwatch": true, "ping": true, "hello": true,
	"auth": true, "select": true, "client": true, "cluster": true, "command": true, "info": true,
	"asking": true, "readonly": true, "readwrite": true, "time": true, "quit": true, "script": true,
	"publish": true, "subscribe": true, "unsubscribe": true, "psubscribe": true, "punsubscribe": true,
}

// check fails when the keys of cmds (one command, or one transaction) are
// not all of one slot.
func (sc *SlotCheck) check(ctx context.Context, cmds []redis.Cmder) error {
	var keys []string
	keyed := 0
	for _, cmd := range cmds {
		name := strings.ToLower(cmd.Name())
		if noKeys[name] {
			continue
		}
		ks, err := sc.keysOf(ctx, cmd)
		if err != nil {
			sc.t.Errorf("redistest: the keys of %v: %v", cmd.Args(), err)
			return err
		}
		if len(ks) > 0 {
			keyed++
		}
		keys = append(keys, ks...)
		kind := ""
		switch {
		case name == "watch":
			kind = KindWatch
		case (name == "eval" || name == "evalsha") && len(ks) > 0:
			kind = KindScript
		case len(ks) > 1 && len(cmds) == 1:
			kind = KindCommand
		}
		if kind != "" {
			sc.count(kind)
		}
	}
	if len(cmds) > 1 && keyed > 0 {
		sc.count(KindTransaction)
	}
	for _, k := range keys[min(1, len(keys)):] {
		if Slot(k) != Slot(keys[0]) {
			var args [][]any
			for _, cmd := range cmds {
				args = append(args, cmd.Args())
			}
			err := fmt.Errorf("redistest: one operation touches keys of two slots: %q (slot %d) and %q (slot %d) in %v",
				keys[0], Slot(keys[0]), k, Slot(k), args)
			sc.t.Error(err)
			return err
		}
	}
	return nil
}

func (sc *SlotCheck) count(kind string) {
	sc.mu.Lock()
	sc.checked[kind]++
	sc.mu.Unlock()
}

// keysOf asks the server which arguments of cmd are keys.
func (sc *SlotCheck) keysOf(ctx context.Context, cmd redis.Cmder) ([]string, error) {
	args := append([]any{"command", "getkeys"}, cmd.Args()...)
	res, err := sc.keys.Do(context.WithoutCancel(ctx), args...).StringSlice()
	if err != nil && strings.Contains(err.Error(), "no key arguments") {
		return nil, nil
	}
	return res, err
}
