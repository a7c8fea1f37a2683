package sampling_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcptest"
	"github.com/mcpchain/mcp/sampling"
)

// weatherServer has a tool "plan" that runs a tool loop offering the
// server's own "weather" tool, and reports the loop's transcript.
func weatherServer(t *testing.T) (*mcp.Server, *int) {
	srv := mcp.NewServer(mcp.Options{Name: "loop", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	var mu sync.Mutex
	runs := 0
	mcp.AddTool(srv, mcp.Tool{Name: "weather", Description: "Current weather of a city"},
		func(_ context.Context, _ *mcp.Context, in struct {
			City string `json:"city"`
		}) (string, error) {
			mu.Lock()
			runs++
			mu.Unlock()
			return "18°C in " + in.City, nil
		})
	mcp.AddTool(srv, mcp.Tool{Name: "plan"}, func(ctx context.Context, c *mcp.Context, in struct {
		Ask string `json:"ask"`
	}) (string, error) {
		out, err := sampling.RunLoop(ctx, c, &sampling.Request{MaxTokens: 100,
			Messages: []sampling.Message{{Role: mcp.RoleUser, Content: mcp.Text(in.Ask)}}},
			sampling.Loop{Tools: srv, Names: []string{"weather"}, MaxRounds: 3})
		if err != nil {
			return "", err
		}
		b, err := json.Marshal(out.Messages)
		if err != nil {
			return "", err
		}
		return out.Result.Content.(mcp.TextContent).Text + "\n" + string(b), nil
	})
	return srv, &runs
}

// recordingSampler is a scripted model (tool use, then text) that keeps
// every request it gets.
type recordingSampler struct {
	mu   sync.Mutex
	reqs []*sampling.Request
	next func(context.Context, *sampling.Request) (*sampling.Result, error)
}

func (r *recordingSampler) sample(ctx context.Context, p *sampling.Request) (*sampling.Result, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, p)
	r.mu.Unlock()
	return r.next(ctx, p)
}

func TestRunLoopEmbedded(t *testing.T) {
	t.Parallel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			t.Parallel()
			srv, runs := weatherServer(t)
			rec := &recordingSampler{next: mcptest.SampleSequence(
				mcptest.ToolUseReply("call-1", "weather", map[string]any{"city": "Paris"}),
				mcptest.TextReply("Sunny in Paris"))}
			s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{ProtocolVersion: version, Sample: rec.sample, SamplingTools: true}})
			res := s.CallTool("plan", map[string]string{"ask": "Weather in Paris?"}, nil)
			require.False(t, res.IsError, res.Text())
			final, transcript, _ := strings.Cut(res.Text(), "\n")
			assert.Equal(t, "Sunny in Paris", final)
			assert.JSONEq(t, `[
				{"role":"user","content":{"type":"text","text":"Weather in Paris?"}},
				{"role":"assistant","content":[{"type":"tool_use","id":"call-1","name":"weather","input":{"city":"Paris"}}]},
				{"role":"user","content":[{"type":"tool_result","toolUseId":"call-1","content":[{"type":"text","text":"18°C in Paris"}]}]},
				{"role":"assistant","content":{"type":"text","text":"Sunny in Paris"}}]`, transcript)

			rec.mu.Lock()
			defer rec.mu.Unlock()
			require.Len(t, rec.reqs, 2, "two sampling requests: the tool use, then the answer")
			for _, p := range rec.reqs {
				require.Len(t, p.Tools, 1)
				assert.Equal(t, "weather", p.Tools[0].Name)
				assert.Equal(t, "object", p.Tools[0].InputSchema.Type)
			}
			assert.Len(t, rec.reqs[0].Messages, 1)
			require.Len(t, rec.reqs[1].Messages, 3, "the second request carries the tool use and its result")
			result := rec.reqs[1].Messages[2].ContentBlocks()
			require.Len(t, result, 1)
			assert.Equal(t, sampling.ToolResult{ToolUseID: "call-1", Content: []mcp.Content{mcp.TextContent{Text: "18°C in Paris"}}}, result[0])
			if version == mcp.Version20260728 {
				// Each round runs the handler from the start: the tool of
				// round one runs again in round two.
				assert.Equal(t, 2, *runs)
			} else {
				assert.Equal(t, 1, *runs)
			}
		})
	}
}

func TestRunLoopRefusedWithoutSamplingTools(t *testing.T) {
	t.Parallel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			t.Parallel()
			srv, runs := weatherServer(t)
			called := false
			s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{ProtocolVersion: version, Sample: func(context.Context, *sampling.Request) (*sampling.Result, error) {
				called = true
				return mcptest.TextReply("no"), nil
			}}})
			res := s.CallTool("plan", map[string]string{"ask": "Weather in Paris?"}, nil)
			assert.True(t, res.IsError)
			assert.Contains(t, res.Text(), "sampling.tools")
			assert.False(t, called, "nothing may be sent to a client without sampling.tools")
			assert.Zero(t, *runs)
		})
	}
}

func TestRunLoopFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		replies []*sampling.Result
		want    string // in the tool_result sent back, or the error
		isError bool
	}{
		{"unknown tool", []*sampling.Result{mcptest.ToolUseReply("u1", "rm_rf", map[string]any{}), mcptest.TextReply("ok")},
			`Unknown tool: \"rm_rf\"`, true},
		{"bad arguments", []*sampling.Result{mcptest.ToolUseReply("u1", "weather", map[string]any{"city": 3}), mcptest.TextReply("ok")},
			`Invalid arguments for tool \"weather\"`, true},
		{"a tool that is not offered", []*sampling.Result{mcptest.ToolUseReply("u1", "plan", map[string]any{"ask": "x"}), mcptest.TextReply("ok")},
			`Unknown tool: \"plan\"`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, runs := weatherServer(t)
			rec := &recordingSampler{next: mcptest.SampleSequence(tc.replies...)}
			s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{Sample: rec.sample, SamplingTools: true}})
			res := s.CallTool("plan", map[string]string{"ask": "?"}, nil)
			require.False(t, res.IsError, res.Text())
			rec.mu.Lock()
			defer rec.mu.Unlock()
			require.Len(t, rec.reqs, 2)
			b, err := json.Marshal(rec.reqs[1].Messages[2])
			require.NoError(t, err)
			assert.Contains(t, string(b), tc.want)
			assert.Contains(t, string(b), `"isError":true`)
			assert.Zero(t, *runs)
		})
	}
	t.Run("the model keeps asking for tools", func(t *testing.T) {
		t.Parallel()
		srv, runs := weatherServer(t)
		rec := &recordingSampler{next: mcptest.SampleSequence(mcptest.ToolUseReply("u", "weather", map[string]any{"city": "Oslo"}))}
		s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{Sample: rec.sample, SamplingTools: true}})
		res := s.CallTool("plan", map[string]string{"ask": "?"}, nil)
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text(), sampling.ErrLoopLimit.Error())
		rec.mu.Lock()
		defer rec.mu.Unlock()
		require.Len(t, rec.reqs, 3, "MaxRounds sampling requests")
		assert.Nil(t, rec.reqs[0].ToolChoice)
		assert.Equal(t, &sampling.ToolChoice{Mode: sampling.ToolChoiceNone}, rec.reqs[2].ToolChoice, "the last round forbids tools")
		assert.Equal(t, 2, *runs)
	})
	t.Run("the client refuses", func(t *testing.T) {
		t.Parallel()
		srv, _ := weatherServer(t)
		s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{SamplingTools: true,
			Sample: func(context.Context, *sampling.Request) (*sampling.Result, error) {
				return nil, errors.New("the user said no")
			}}})
		// The client's JSON-RPC error passes through the tool, as with Create.
		_, err := s.Client().CallTool(t.Context(), "plan", map[string]string{"ask": "?"}, nil)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "the user said no")
	})
}

// TestCreateRefusesToolsWithoutSamplingTools: a request with tools or a
// tool choice goes only to a client that declared sampling.tools; the
// refusal wraps mcp.ErrCapability and sends nothing.
func TestCreateRefusesToolsWithoutSamplingTools(t *testing.T) {
	t.Parallel()
	withTools := &sampling.Request{MaxTokens: 1, Tools: []mcp.Tool{{Name: "t"}}}
	withChoice := &sampling.Request{MaxTokens: 1, ToolChoice: &sampling.ToolChoice{Mode: sampling.ToolChoiceNone}}
	cases := []struct {
		name            string
		sample, tools   bool // what the client declares
		req             *sampling.Request
		wantErr, wantTo string
	}{
		{"tools, sampling without tools", true, false, withTools, "sampling.tools", ""},
		{"toolChoice, sampling without tools", true, false, withChoice, "sampling.tools", ""},
		{"tools, no sampling", false, false, withTools, mcp.ErrCapability.Error(), ""},
		{"tools, sampling.tools", true, true, withTools, "", "m"},
		{"no tools, sampling without tools", true, false, &sampling.Request{MaxTokens: 1}, "", "m"},
		{"a nil request", true, false, nil, "", "m"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := mcp.NewServer(mcp.Options{Name: "s", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
			mcp.AddTool(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
				res, err := sampling.Create(ctx, c, tc.req)
				if err != nil {
					if errors.Is(err, mcp.ErrCapability) {
						return "refused: " + err.Error(), nil
					}
					return "", err
				}
				return res.Model, nil
			})
			var sent int
			opts := client.Options{SamplingTools: tc.tools}
			if tc.sample {
				opts.Sample = func(context.Context, *sampling.Request) (*sampling.Result, error) {
					sent++
					return &sampling.Result{Role: mcp.RoleAssistant, Model: "m", Content: mcp.Text("x")}, nil
				}
			}
			s := mcptest.NewSession(t, srv, &mcptest.Options{Client: opts})
			got := s.CallTool("ask", nil, nil).Text()
			if tc.wantErr != "" {
				assert.True(t, strings.HasPrefix(got, "refused: "), got)
				assert.Contains(t, got, tc.wantErr)
				assert.Zero(t, sent, "nothing is sent")
				return
			}
			assert.Equal(t, tc.wantTo, got)
			assert.Equal(t, 1, sent)
		})
	}
}

// TestRunLoopWithAMadeUpContext: a Context that did not come from a
// request (built by hand, capabilities and all) has no way back to a
// client, so the loop ends at its first sampling request and runs no
// tool, however the Context claims the caller.
func TestRunLoopWithAMadeUpContext(t *testing.T) {
	t.Parallel()
	srv, runs := weatherServer(t)
	c := &mcp.Context{Session: "someone-else", SessionID: "s1",
		ClientCapabilities: mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{Tools: &struct{}{}}}}
	_, err := sampling.RunLoop(t.Context(), c, &sampling.Request{MaxTokens: 1}, sampling.Loop{Tools: srv})
	require.ErrorIs(t, err, mcp.ErrNoPeer)
	_, err = sampling.Create(t.Context(), c, nil)
	require.ErrorIs(t, err, mcp.ErrNoPeer)
	assert.Zero(t, *runs)

	_, err = sampling.RunLoop(t.Context(), &mcp.Context{}, nil, sampling.Loop{Tools: srv})
	require.ErrorIs(t, err, mcp.ErrCapability, "no sampling declared")
	_, err = sampling.RunLoop(t.Context(), c, nil, sampling.Loop{})
	require.ErrorContains(t, err, "Loop.Tools is nil")
}
