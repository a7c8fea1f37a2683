package mcptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcptest"
)

// progressServer has a tool that reports progress twice and logs once.
func progressServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Options{Name: "jobs", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
	mcp.AddTool(srv, mcp.Tool{Name: "import"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		for i := 1; i <= 2; i++ {
			if err := c.ReportProgress(ctx, mcp.Progress{Progress: float64(i), Total: 2, Message: fmt.Sprintf("step %d", i)}); err != nil {
				return "", err // mcp.ErrNoProgressToken: the caller asked for none
			}
		}
		c.Log.Info("imported", "rows", 2)
		return "done", nil
	})
	return srv
}

// TestSessionProgressAndLogs: CallToolProgress sends a progress token and
// returns the call's reports; Progress, Logs and Notifications hold what
// the server sent, complete when the call returns; a call without a
// token gets mcp.ErrNoProgressToken in the tool. At both revisions.
func TestSessionProgressAndLogs(t *testing.T) {
	t.Parallel()
	for _, version := range []mcp.Version{mcp.Version20251125, mcp.Version20260728} {
		t.Run(string(version), func(t *testing.T) {
			t.Parallel()
			s := mcptest.NewSession(t, progressServer(), &mcptest.Options{Client: client.Options{ProtocolVersion: version}})
			s.SetLogLevel(mcp.LevelInfo)
			res, reports := s.CallToolProgress("import", nil)
			require.False(t, res.IsError, res.Text())
			assert.Equal(t, "done", res.Text())
			want := []mcp.Progress{{Progress: 1, Total: 2, Message: "step 1"}, {Progress: 2, Total: 2, Message: "step 2"}}
			assert.Equal(t, want, reports)
			assert.Equal(t, want, s.Progress())
			logs := s.Logs()
			require.Len(t, logs, 1)
			assert.Equal(t, mcp.LevelInfo, logs[0].Level)
			assert.Equal(t, map[string]any{"message": "imported", "context": map[string]any{"rows": float64(2)}}, logs[0].Data)
			var methods []string
			for _, n := range s.Notifications() {
				methods = append(methods, n.Method)
			}
			assert.Equal(t, []string{"notifications/progress", "notifications/progress", "notifications/message"}, methods)

			res = s.CallTool("import", nil, nil)
			assert.True(t, res.IsError, "no token, no progress: %s", res.Text())
			assert.Contains(t, res.Text(), mcp.ErrNoProgressToken.Error())
			assert.Len(t, s.Progress(), 2, "nothing more")
		})
	}
}

// TestSessionMethods: the session has the client's methods, each failing
// the test on an error.
func TestSessionMethods(t *testing.T) {
	t.Parallel()
	srv := newServer(nil)
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "mem://notes/{id}", Name: "note",
		Load: func(_ context.Context, _ *mcp.Context, args map[string]string) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{{Text: args["id"]}}, nil
		}})
	srv.AddSkills(fstest.MapFS{"pdf/SKILL.md": {Data: []byte("---\nname: pdf\ndescription: Read PDFs.\n---\n\n# PDF\n")}})
	var rootsAsked = make(chan struct{}, 1)
	mcp.AddTool(srv, mcp.Tool{Name: "roots"}, func(ctx context.Context, c *mcp.Context, _ struct{}) (string, error) {
		roots, err := c.Roots(ctx)
		if err != nil {
			return "", err
		}
		return roots[0].URI, nil
	})
	s := mcptest.NewSession(t, srv, &mcptest.Options{Client: client.Options{
		Roots: func(context.Context) ([]mcp.Root, error) {
			select {
			case rootsAsked <- struct{}{}:
			default: // asked before
			}
			return []mcp.Root{{URI: "file:///w"}}, nil
		},
		Extensions: map[string]any{mcp.SkillsExtension: nil},
	}})

	s.Ping()
	assert.Len(t, s.ListResources(), 2, "the greeting and the skill's SKILL.md")
	templates := s.ListResourceTemplates()
	require.Len(t, templates, 1)
	assert.Equal(t, "mem://notes/{id}", templates[0].URITemplate)
	assert.Len(t, s.ListPrompts(), 1)
	s.Subscribe("mem://greeting")
	s.Unsubscribe("mem://greeting")
	var pong json.RawMessage
	s.Call("ping", nil, &pong)
	assert.JSONEq(t, `{}`, string(pong))
	s.Notify("notifications/roots/list_changed", nil)
	s.RootsChanged()
	assert.Equal(t, "file:///w", s.CallTool("roots", nil, nil).Text())

	skills := s.ListSkills()
	require.Len(t, skills, 1)
	assert.Equal(t, "pdf", skills[0].Name)
	sk := s.GetSkill(skills[0].URI)
	assert.Equal(t, skills[0], *sk)
	loaded := s.LoadSkill(*sk)
	assert.Contains(t, string(loaded.Content), "# PDF")

	// The errors these methods turn into a failed test.
	for name, call := range map[string]func(s *mcptest.Session){
		"completing an unknown prompt": func(s *mcptest.Session) {
			s.Complete(mcp.CompletionRef{Type: "ref/prompt", Name: "nope"}, "x", "", nil)
		},
		"a skill that is not there": func(s *mcptest.Session) { s.GetSkill("skill://nope/SKILL.md") },
		"an unknown method":         func(s *mcptest.Session) { s.Call("nope/nope", nil, nil) },
		"a bad log level":           func(s *mcptest.Session) { s.SetLogLevel("loud") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ft := &fatalTB{TB: t}
			s := mcptest.NewSession(ft, srv, nil)
			ft.run(func() { call(s) })
			assert.Contains(t, ft.msg, "mcptest: ")
		})
	}
	select {
	case <-rootsAsked:
	case <-time.After(5 * time.Second):
		t.Fatal("the roots handler never ran")
	}
}
