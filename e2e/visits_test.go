package e2e

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp/internal/redistest"
)

// visitsRun is what node/visits-client.mjs printed.
type visitsRun struct {
	ProtocolVersion string `json:"protocolVersion"`
	Results         []struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"results"`
	Error *string `json:"error"`
}

// TestVisitsPerCallerBehindBalancer: examples/everything's visits tool
// counts per signed-in caller for a real 2026-07-28 client (the TypeScript
// SDK v2, no session), over two stateless replicas that share one Redis,
// behind nginx (deploy/nginx/mcp.conf, round robin): alice's calls land on
// both replicas and count 1 to 6 in order, bob's count is his own, and an
// anonymous call is refused with a message saying what would count it.
func TestVisitsPerCallerBehindBalancer(t *testing.T) {
	t.Parallel()
	args := []string{"-stateless", "-redis", "redis://" + redistest.Start(t) + "/0"}
	replicas := make([]*replica, 2)
	ports := make([]int, len(replicas))
	for i := range replicas {
		replicas[i] = &replica{port: freePort(t), args: args}
		replicas[i].start(t)
		ports[i] = replicas[i].port
	}
	b := startNginx(t, ports)
	run := func(name string, calls int) visitsRun {
		t.Helper()
		r := runNode(t, 60*time.Second, "visits-client.mjs", b.loopback(), name, strconv.Itoa(calls))
		require.Equal(t, 0, r.exitCode, "visits-client.mjs: %s", r.stderr.String())
		var v visitsRun
		require.NoError(t, json.Unmarshal(r.stdout, &v), string(r.stdout))
		require.Nil(t, v.Error, "visits-client.mjs as %s", name)
		assert.Equal(t, "2026-07-28", v.ProtocolVersion)
		require.Len(t, v.Results, calls)
		return v
	}

	offset := b.offset(t)
	alice := run("alice", 6)
	for i, r := range alice.Results {
		assert.False(t, r.IsError, r.Text)
		assert.Equal(t, strconv.Itoa(i+1), r.Text, "alice's call %d", i+1)
	}
	answered := map[int]int{}
	for _, l := range b.lines(t, offset) {
		if l.method == "POST" && l.status == 200 {
			answered[l.replica]++
		}
	}
	assert.Positive(t, answered[0], "replica 0 answered some of alice's requests: %v", answered)
	assert.Positive(t, answered[1], "replica 1 answered some of alice's requests: %v", answered)

	bob := run("bob", 2)
	assert.Equal(t, "1", bob.Results[0].Text, "bob counts his own")
	assert.Equal(t, "2", bob.Results[1].Text)

	anon := run("-", 1)
	assert.True(t, anon.Results[0].IsError, anon.Results[0].Text)
	assert.Contains(t, anon.Results[0].Text, "per signed-in user (Authorization: Bearer <name>) or per session")
}
