package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// toolReply is a tools/call result as the matrix's shared checks read it,
// whichever Go client produced it.
type toolReply struct {
	text       string // the text content, joined
	structured any    // structuredContent
	isError    bool
	raw        any // the client's own result, for messages
}

// toolCaller calls a tool of examples/everything through one cell's
// client, bounded by ctx.
type toolCaller func(ctx context.Context, name string, args map[string]any) (toolReply, error)

// The behaviours below are those both Go clients (go-sdk's and
// mcpchain's) perform the same way; each returns the detail and the error
// for matrixCell.record.

// stepTime bounds one step of a cell (a request, or the wait for what it
// sent): a liveness bound, far above what a step takes on a loaded
// machine.
const stepTime = 10 * time.Second

// stepCall calls with the matrix's per-step bound.
func stepCall(ctx context.Context, call toolCaller, name string, args map[string]any) (toolReply, error) {
	sctx, done := context.WithTimeout(ctx, stepTime)
	defer done()
	return call(sctx, name, args)
}

func checkStructured(ctx context.Context, call toolCaller) (string, error) {
	r, err := stepCall(ctx, call, "whoami", map[string]any{})
	if err != nil {
		return "", err
	}
	sc, ok := r.structured.(map[string]any)
	if r.isError || !ok {
		return "", fmt.Errorf("whoami: no structuredContent object: %s", dump(r.raw))
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(r.text), &fromText); err != nil || dump(fromText) != dump(sc) {
		return "", fmt.Errorf("text %q and structuredContent %s differ", r.text, dump(sc))
	}
	if _, ok := sc["client"]; !ok {
		return "", fmt.Errorf("structuredContent lacks client: %s", dump(sc))
	}
	return "", nil
}

func checkBadArg(ctx context.Context, call toolCaller) (string, error) {
	r, err := stepCall(ctx, call, "add", map[string]any{"a": "two", "b": 3})
	if err != nil {
		return "", err
	}
	if !r.isError || !mentionsArg(r.text, "a") {
		return "", fmt.Errorf("add a=\"two\": want an isError result naming a: %s", dump(r.raw))
	}
	return "", nil
}

// checkCancelMore cancels a slow call twice, each time followed by a call
// that must still work on the same connection. The call is report, which
// sleeps the 5 s it is asked for with no limit of its own (slow's 1 s
// limit would answer first whenever a loaded machine holds the
// cancellation back that long). It must end with its context, before
// the tool would have answered; that answer's time is the bound, not how
// quickly a loaded machine takes the cancellation.
func checkCancelMore(ctx context.Context, call toolCaller) (string, error) {
	const toolTime = 5 * time.Second
	for round := range 2 {
		cctx, cancelCall := context.WithTimeout(ctx, 150*time.Millisecond)
		start := time.Now()
		_, err := call(cctx, "report", map[string]any{"ms": toolTime.Milliseconds()})
		took := time.Since(start)
		cancelCall()
		if err == nil {
			return "", fmt.Errorf("round %d: the cancelled call succeeded", round)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			return "", fmt.Errorf("round %d: the call ended with %v, not with its context", round, err)
		}
		if took >= toolTime {
			return "", fmt.Errorf("round %d: the cancelled call returned after %v, as late as the tool", round, took)
		}
		r, err := stepCall(ctx, call, "add", map[string]any{"a": round, "b": 1})
		if err != nil {
			return "", fmt.Errorf("round %d: a call after the cancellation: %w", round, err)
		}
		if r.text != fmt.Sprint(round+1) {
			return "", fmt.Errorf("round %d: %s", round, dump(r.raw))
		}
	}
	return "", nil
}

func checkConcurrent(ctx context.Context, call toolCaller) (string, error) {
	errs := make([]error, 20)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := stepCall(ctx, call, "add", map[string]any{"a": i, "b": 1000})
			switch {
			case err != nil:
				errs[i] = err
			case r.text != fmt.Sprint(i+1000):
				errs[i] = fmt.Errorf("call %d: %s", i, dump(r.raw))
			}
		}()
	}
	wg.Wait()
	return "", errors.Join(errs...)
}

// checkTimeout: the slow tool sleeps 3 s and has a 1 s limit, so an
// isError naming the timeout proves the server cut it (the time is
// reported, not bounded: this machine is shared).
func checkTimeout(ctx context.Context, call toolCaller) (string, error) {
	start := time.Now()
	r, err := stepCall(ctx, call, "slow", map[string]any{"ms": 3000})
	if err != nil {
		return "", err
	}
	if !r.isError || !timeoutRE.MatchString(r.text) || !strings.Contains(r.text, "slow") {
		return "", fmt.Errorf("slow 3000: want a timeout isError naming slow: %s", dump(r.raw))
	}
	return time.Since(start).Round(time.Millisecond).String(), nil
}

func checkSampling(ctx context.Context, call toolCaller) (string, error) {
	r, err := stepCall(ctx, call, "sample", map[string]any{"text": "hello"})
	if err != nil {
		return "", err
	}
	if r.isError || r.text != "sampled: hello" {
		return "", fmt.Errorf("sample: %s", dump(r.raw))
	}
	return "", nil
}

func checkElicitation(ctx context.Context, call toolCaller) (string, error) {
	r, err := stepCall(ctx, call, "elicit", map[string]any{})
	if err != nil {
		return "", err
	}
	var v struct {
		Action  string
		Content map[string]any
	}
	if r.isError || json.Unmarshal([]byte(r.text), &v) != nil || v.Action != "accept" || v.Content["answer"] != "yes" {
		return "", fmt.Errorf("elicit: %s", dump(r.raw))
	}
	return "", nil
}

// checkHandlersCalled fails a passing sampling or elicitation behaviour
// whose client handler never ran: the result alone could come from
// elsewhere.
func checkHandlersCalled(c *matrixCell, sampled, elicited int) {
	if sampled == 0 && c.results["sampling"].Status == "pass" {
		c.results["sampling"] = outcome{Status: "fail", Detail: "the sampling handler was never called"}
	}
	if elicited == 0 && c.results["elicitation"].Status == "pass" {
		c.results["elicitation"] = outcome{Status: "fail", Detail: "the elicitation handler was never called"}
	}
}
