package mcphttp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/wiretest"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

type sleepArgs struct {
	MS int `json:"ms"`
}

// post sends body in session sid ("" for none); it returns errors rather
// than failing the test, for the test's goroutines.
func post(c *http.Client, url, sid, body string) (*http.Response, string, error) {
	resp, b, err := wiretest.Do(c, wiretest.NewRequest(context.Background(), http.MethodPost, url, body, "Mcp-Session-Id", sid))
	return resp, string(b), err
}

func TestGracefulShutdownFinishesInFlightCalls(t *testing.T) {
	t.Parallel()
	const n = 50
	var started atomic.Int32
	srv := mcp.NewServer(mcp.Options{Name: "drain", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "sleep", Description: "sleep"}, func(ctx context.Context, c *mcp.Context, in sleepArgs) (string, error) {
		started.Add(1)
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			return "slept", nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	})
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: "127.0.0.1", Port: -1})
	require.NoError(t, err)
	url := "http://" + inst.Addr() + "/mcp"
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: n}}
	defer client.CloseIdleConnections()
	resp, body, err := post(client, url, "", initBody)
	require.NoError(t, err)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid, body)

	var wg sync.WaitGroup
	results := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			call := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":500}}}`, i+10)
			resp, body, err := post(client, url, sid, call)
			if err == nil && resp.StatusCode != 200 {
				err = fmt.Errorf("status %d: %s", resp.StatusCode, body)
			}
			results[i], errs[i] = body, err
		}()
	}
	require.Eventually(t, func() bool { return started.Load() == n }, 10*time.Second, 5*time.Millisecond)
	closed := time.Now()
	require.NoError(t, inst.Close())
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i], "call %d", i)
		require.Contains(t, results[i], `"text":"slept"`, "call %d", i)
		require.NotContains(t, results[i], `"isError"`, "call %d", i)
	}
	require.Less(t, time.Since(closed), 5*time.Second)
	// After Close nothing is listening.
	_, _, err = post(client, url, "", initBody)
	require.Error(t, err)
}

func TestThousandSessionsLeaveNoGoroutines(t *testing.T) {
	// Not parallel: goleak compares against the goroutines before the test.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	srv := mcp.NewServer(mcp.Options{Name: "churn", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "add", Description: "add"}, func(ctx context.Context, c *mcp.Context, in fuzzArgs) (string, error) {
		return "ok", nil
	})
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: "127.0.0.1", Port: -1})
	require.NoError(t, err)
	url := "http://" + inst.Addr() + "/mcp"
	tr := &http.Transport{MaxIdleConnsPerHost: 8}
	client := &http.Client{Transport: tr}
	latencies := make([]time.Duration, 0, 1000)
	for i := range 1000 {
		start := time.Now()
		resp, body, err := post(client, url, "", initBody)
		require.NoError(t, err)
		latencies = append(latencies, time.Since(start))
		sid := resp.Header.Get("Mcp-Session-Id")
		require.NotEmpty(t, sid, body)
		_, _, err = post(client, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		require.NoError(t, err)
		_, body, err = post(client, url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, i+2))
		require.NoError(t, err)
		require.Contains(t, body, `"text":"ok"`)
		if i%2 == 0 { // half end with DELETE, half are left to Close
			r, _ := http.NewRequest("DELETE", url, nil)
			r.Header.Set("Mcp-Session-Id", sid)
			dr, err := client.Do(r)
			require.NoError(t, err)
			dr.Body.Close()
			require.Equal(t, 204, dr.StatusCode)
		}
	}
	require.Equal(t, 500, inst.Handler().SessionCount())
	slices.Sort(latencies)
	t.Logf("stateful initialize over HTTP (1000 sessions, -race): p50 %v, p99 %v", latencies[500], latencies[990])
	require.Less(t, latencies[500], 50*time.Millisecond, "initialize p50 (fastmcp takes ~1 s)")
	require.NoError(t, inst.Close())
	tr.CloseIdleConnections()
}

// waitResult runs inst.Wait in the background.
func waitResult(inst *mcphttp.Instance) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- inst.Wait() }()
	return ch
}

// TestWaitReturnsAfterTheDrain: Wait is what a main function blocks on, so
// it must not return before the calls in flight have finished, whichever
// way the stop began.
func TestWaitReturnsAfterTheDrain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		stop func(inst *mcphttp.Instance, cancel context.CancelFunc)
	}{
		{"Start's ctx ends (a signal)", func(_ *mcphttp.Instance, cancel context.CancelFunc) { cancel() }},
		{"Close", func(inst *mcphttp.Instance, _ context.CancelFunc) { go func() { _ = inst.Close() }() }},
		{"Shutdown", func(inst *mcphttp.Instance, _ context.CancelFunc) {
			go func() { _ = inst.Shutdown(context.Background()) }()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var started, finished atomic.Bool
			srv := mcp.NewServer(mcp.Options{Name: "wait", Version: "1.0.0", Logger: discardLogger()})
			mcp.AddTool(srv, mcp.Tool{Name: "sleep", Description: "sleep"}, func(ctx context.Context, c *mcp.Context, in sleepArgs) (string, error) {
				started.Store(true)
				select {
				case <-time.After(time.Duration(in.MS) * time.Millisecond):
					finished.Store(true)
					return "slept", nil
				case <-ctx.Done():
					return "", ctx.Err()
				}
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			inst, err := mcphttp.Start(ctx, srv, &mcphttp.StartOptions{
				TransportType: mcphttp.TransportHTTPStream, Host: "127.0.0.1", Port: -1})
			require.NoError(t, err)
			url := "http://" + inst.Addr() + "/mcp"
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			resp, body, err := post(client, url, "", initBody)
			require.NoError(t, err)
			sid := resp.Header.Get("Mcp-Session-Id")
			require.NotEmpty(t, sid, body)

			type reply struct {
				body string
				err  error
			}
			replied := make(chan reply, 1)
			go func() {
				_, body, err := post(client, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":400}}}`)
				replied <- reply{body, err}
			}()
			require.Eventually(t, started.Load, 5*time.Second, time.Millisecond)
			waited := waitResult(inst)
			tc.stop(inst, cancel)

			select {
			case err := <-waited:
				require.NoError(t, err)
				require.True(t, finished.Load(), "Wait returned while the call was still running")
			case <-time.After(5 * time.Second):
				t.Fatal("Wait did not return within 5 s")
			}
			r := <-replied
			require.NoError(t, r.err)
			require.Contains(t, r.body, `"text":"slept"`)
		})
	}
}

// TestWaitReportsAnExpiredGracePeriod: a call that outlives the grace
// period is cancelled, and Close, Shutdown and Wait say so.
func TestWaitReportsAnExpiredGracePeriod(t *testing.T) {
	t.Parallel()
	var started atomic.Bool
	srv := mcp.NewServer(mcp.Options{Name: "grace", Version: "1.0.0", Logger: discardLogger()})
	mcp.AddTool(srv, mcp.Tool{Name: "block", Description: "block until cancelled"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		started.Store(true)
		<-ctx.Done()
		return "", ctx.Err()
	})
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{
		TransportType: mcphttp.TransportHTTPStream, Host: "127.0.0.1", Port: -1, ShutdownTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	url := "http://" + inst.Addr() + "/mcp"
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	resp, body, err := post(client, url, "", initBody)
	require.NoError(t, err)
	sid := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, sid, body)
	replied := make(chan struct{})
	go func() {
		defer close(replied)
		_, _, _ = post(client, url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	}()
	require.Eventually(t, started.Load, 5*time.Second, time.Millisecond)

	begun := time.Now()
	err = inst.Close()
	require.ErrorIs(t, err, mcphttp.ErrShutdownTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(begun), 3*time.Second)
	require.NoError(t, inst.Close(), "a second Close has nothing left to stop")
	werr := inst.Wait()
	require.ErrorIs(t, werr, mcphttp.ErrShutdownTimeout)
	<-replied
}

// TestWaitIsNilAtTheEndOfStdin: a client that closes stdin ends the server
// cleanly (the README's hello world exits 0 on it).
func TestWaitIsNilAtTheEndOfStdin(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Options{Name: "eof", Version: "1.0.0", Logger: discardLogger()})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	inst, err := mcphttp.Start(context.Background(), srv, &mcphttp.StartOptions{Stdin: inR, Stdout: outW})
	require.NoError(t, err)
	waited := waitResult(inst)
	go func() { _, _ = io.WriteString(inW, initBody+"\n") }()
	line, err := bufio.NewReader(outR).ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, `"serverInfo"`)
	require.NoError(t, inW.Close())
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	select {
	case err := <-waited:
		require.NoError(t, err)
		require.False(t, errors.Is(err, mcphttp.ErrShutdownTimeout))
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return within 5 s of the end of stdin")
	}
	require.NoError(t, outW.Close())
}
