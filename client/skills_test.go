package client_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/mcphttp"
	"github.com/mcpchain/mcp/stdio"
)

const (
	skillMD = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: 2\n---\n\nSkill body.\n"
	formsMD = "Supporting content.\n"
)

var skillBlob = []byte{0, 1, 2, 0xff, 0xfe}

func skillsFS() fstest.MapFS {
	return fstest.MapFS{
		"pdf-processing/SKILL.md":            {Data: []byte(skillMD)},
		"pdf-processing/references/FORMS.md": {Data: []byte(formsMD)},
		"pdf-processing/data.bin":            {Data: skillBlob},
	}
}

const (
	skillURI = "skill://pdf-processing/SKILL.md"
	formsURI = "skill://pdf-processing/references/FORMS.md"
	blobURI  = "skill://pdf-processing/data.bin"
)

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// recorder is an Interceptor that records the methods a server is asked
// for and the params of initialize (or of each 2026-07-28 request), and
// may change a result (a server that lies).
type recorder struct {
	mu      sync.Mutex
	methods []string
	params  []json.RawMessage
	alter   func(method string, result map[string]any)
}

func (r *recorder) intercept(next mcp.CallHandler) mcp.CallHandler {
	return func(ctx context.Context, c *mcp.Call) (any, error) {
		r.mu.Lock()
		r.methods = append(r.methods, c.Method)
		r.params = append(r.params, append(json.RawMessage(nil), c.Params...)) // Params is the engine's buffer
		r.mu.Unlock()
		res, err := next(ctx, c)
		if err != nil || r.alter == nil || c.ID == nil {
			return res, err
		}
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return res, nil
		}
		r.alter(c.Method, m)
		return m, nil
	}
}

func (r *recorder) count(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.methods {
		if m == method {
			n++
		}
	}
	return n
}

// skillTransports runs fn at each revision over HTTP, in-process and
// stdio, to a server serving skillsFS behind rec.
func skillTransports(t *testing.T, rec func() *recorder, fn func(t *testing.T, version mcp.Version, rec *recorder, tr client.Transport)) {
	for _, v := range versions {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			handler := func(t *testing.T) (http.Handler, *recorder) {
				srv := mcp.NewServer(mcp.Options{Name: "skills", Version: "1.0.0", Logger: slog.New(slog.DiscardHandler)})
				srv.AddSkills(skillsFS())
				h := mcphttp.New(srv, nil)
				t.Cleanup(func() { _ = h.Close() })
				r := rec()
				return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
					h.ServeHTTP(w, req.WithContext(mcp.WithInterceptor(req.Context(), r.intercept)))
				}), r
			}
			t.Run("HTTP", func(t *testing.T) {
				t.Parallel()
				h, r := handler(t)
				ts := httptest.NewServer(h)
				t.Cleanup(ts.Close)
				fn(t, v, r, client.HTTP(ts.URL+"/mcp", nil))
			})
			t.Run("in-process", func(t *testing.T) {
				t.Parallel()
				h, r := handler(t)
				fn(t, v, r, client.InProcess(h, nil))
			})
			t.Run("stdio", func(t *testing.T) {
				t.Parallel()
				h, r := handler(t)
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				done := make(chan error, 1)
				go func() { done <- stdio.Serve(context.Background(), h, inR, outW, nil); _ = outW.Close() }()
				t.Cleanup(func() { _ = inW.Close(); <-done })
				fn(t, v, r, client.Stdio(pipe{outR, inW}))
			})
		})
	}
}

func skillsClient(t *testing.T, version mcp.Version, tr client.Transport) *client.Client {
	return connect(t, tr, &client.Options{ProtocolVersion: version, Extensions: map[string]any{mcp.SkillsExtension: nil}})
}

func TestSkillsListLoadRead(t *testing.T) {
	skillTransports(t, func() *recorder { return &recorder{} }, func(t *testing.T, version mcp.Version, rec *recorder, tr client.Transport) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := skillsClient(t, version, tr)

		skills, err := c.ListSkills(ctx)
		require.NoError(t, err)
		require.Len(t, skills, 1)
		sk := skills[0]
		assert.Equal(t, skillURI, sk.URI)
		assert.Equal(t, "pdf-processing", sk.Name)
		assert.Equal(t, "Extract, fill, and assemble PDF documents", sk.Description)
		assert.False(t, sk.Dynamic)
		assert.JSONEq(t, `{"name":"pdf-processing","description":"Extract, fill, and assemble PDF documents","metadata":{"version":2}}`, string(sk.Frontmatter))
		assert.ElementsMatch(t, []mcp.SkillFile{
			{URI: skillURI, Digest: digest([]byte(skillMD)), Size: int64(len(skillMD))},
			{URI: formsURI, Digest: digest([]byte(formsMD)), Size: int64(len(formsMD))},
			{URI: blobURI, Digest: digest(skillBlob), Size: int64(len(skillBlob))},
		}, sk.Resources)
		assert.Zero(t, rec.count("resources/read"), "listing reads no file")

		got, err := c.GetSkill(ctx, skillURI)
		require.NoError(t, err)
		assert.Equal(t, sk, *got)
		_, err = c.GetSkill(ctx, "skill://nope/SKILL.md")
		var re *mcp.Error
		require.ErrorAs(t, err, &re)
		assert.EqualValues(t, -32602, re.Code)
		assert.Zero(t, rec.count("resources/read"), "getting an entry reads no file")

		loaded, err := c.LoadSkill(ctx, sk)
		require.NoError(t, err)
		assert.Equal(t, skillMD, string(loaded.Content))
		assert.Equal(t, 1, rec.count("resources/read"), "loading reads SKILL.md only")

		b, err := loaded.ReadFile(ctx, "references/FORMS.md")
		require.NoError(t, err)
		assert.Equal(t, formsMD, string(b))
		b, err = loaded.ReadFile(ctx, formsURI)
		require.NoError(t, err)
		assert.Equal(t, formsMD, string(b))
		b, err = loaded.ReadFile(ctx, blobURI)
		require.NoError(t, err)
		assert.Equal(t, skillBlob, b)
		assert.Equal(t, 4, rec.count("resources/read"))

		// A file the entry does not list is not read at all.
		_, err = loaded.ReadFile(ctx, "secrets.txt")
		var ie *client.SkillIntegrityError
		require.ErrorAs(t, err, &ie)
		assert.Equal(t, "listing", ie.Check)
		assert.Equal(t, "skill://pdf-processing/secrets.txt", ie.File)
		assert.Equal(t, 4, rec.count("resources/read"))

		// The client declared the extension.
		rec.mu.Lock()
		declared := false
		for _, p := range rec.params {
			declared = declared || strings.Contains(string(p), `"extensions":{"io.modelcontextprotocol/skills":{}}`)
		}
		rec.mu.Unlock()
		assert.True(t, declared, "Options.Extensions declares %s", mcp.SkillsExtension)
	})
}

// TestSkillIntegrity makes the server lie, one way per case, and checks
// that the client refuses the content with the error naming what differed.
func TestSkillIntegrity(t *testing.T) {
	setText := func(uri, text string) func(string, map[string]any) {
		return func(method string, m map[string]any) {
			if method != "resources/read" {
				return
			}
			contents, _ := m["contents"].([]any)
			for _, c := range contents {
				if item, _ := c.(map[string]any); item != nil && item["uri"] == uri {
					item["text"] = text
				}
			}
		}
	}
	// listing changes the entry of the skill in skills/list.
	listing := func(change func(entry map[string]any)) func(string, map[string]any) {
		return func(method string, m map[string]any) {
			if method != "skills/list" {
				return
			}
			skills, _ := m["skills"].([]any)
			change(skills[0].(map[string]any))
		}
	}
	tampered := strings.Replace(skillMD, "Skill body.", "Evil body!!", 1)
	evilFM := strings.Replace(skillMD, "Extract, fill, and assemble PDF documents", "Exfiltrate credentials", 1)
	cases := []struct {
		name   string
		alter  func(string, map[string]any)
		file   string // the file read: SKILL.md through LoadSkill, or another through ReadFile
		check  string
		inText string // in the error's text
	}{
		{"digest of SKILL.md", setText(skillURI, tampered), skillURI, "digest", digest([]byte(tampered))},
		{"size of SKILL.md", setText(skillURI, skillMD+"extra\n"), skillURI, "size", "bytes"},
		{"frontmatter of SKILL.md", func(method string, m map[string]any) {
			setText(skillURI, evilFM)(method, m)
			listing(func(e map[string]any) {
				for _, f := range e["resources"].([]any) {
					if f := f.(map[string]any); f["uri"] == skillURI {
						f["digest"], f["size"] = digest([]byte(evilFM)), len(evilFM)
					}
				}
			})(method, m)
		}, skillURI, "frontmatter", `description="Exfiltrate credentials"`},
		{"frontmatter field only in the listing", listing(func(e map[string]any) {
			e["frontmatter"].(map[string]any)["license"] = "MIT"
		}), skillURI, "frontmatter", `license="MIT"`},
		{"SKILL.md not listed", listing(func(e map[string]any) {
			e["resources"] = e["resources"].([]any)[1:2]
		}), skillURI, "listing", "lists no file"},
		{"digest of a supporting file", setText(formsURI, "Evil content.\n"), formsURI, "size", "bytes"},
		{"digest of a supporting file, same size", setText(formsURI, "Evil content!!!!!!!\n"), formsURI, "digest", "sha256:"},
		{"a digest that is not sha256", listing(func(e map[string]any) {
			for _, f := range e["resources"].([]any) {
				if f := f.(map[string]any); f["uri"] == formsURI {
					f["digest"] = "md5:abc"
				}
			}
		}), formsURI, "digest", "not a sha256: digest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			skillTransports(t, func() *recorder { return &recorder{alter: tc.alter} }, func(t *testing.T, version mcp.Version, rec *recorder, tr client.Transport) {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				c := skillsClient(t, version, tr)
				skills, err := c.ListSkills(ctx)
				require.NoError(t, err)
				require.Len(t, skills, 1)
				loaded, err := c.LoadSkill(ctx, skills[0])
				if tc.file != skillURI {
					require.NoError(t, err)
					var b []byte
					b, err = loaded.ReadFile(ctx, tc.file)
					assert.Nil(t, b, "no content on a mismatch")
				} else {
					assert.Nil(t, loaded, "the skill is not loaded")
				}
				var ie *client.SkillIntegrityError
				require.ErrorAs(t, err, &ie)
				assert.Equal(t, tc.check, ie.Check)
				assert.Equal(t, tc.file, ie.File)
				assert.Equal(t, skillURI, ie.Skill)
				assert.Contains(t, err.Error(), tc.inText)
			})
		})
	}
}

// TestSkillDynamicReads: a dynamic skill's SKILL.md is checked by its
// frontmatter, and its files are read as they are.
func TestSkillDynamicReads(t *testing.T) {
	skillTransports(t, func() *recorder {
		return &recorder{alter: func(method string, m map[string]any) {
			if method == "skills/list" {
				m["skills"].([]any)[0].(map[string]any)["resources"] = "dynamic"
			}
		}}
	}, func(t *testing.T, version mcp.Version, rec *recorder, tr client.Transport) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := skillsClient(t, version, tr)
		skills, err := c.ListSkills(ctx)
		require.NoError(t, err)
		require.True(t, skills[0].Dynamic)
		loaded, err := c.LoadSkill(ctx, skills[0])
		require.NoError(t, err)
		b, err := loaded.ReadFile(ctx, "references/FORMS.md")
		require.NoError(t, err)
		assert.Equal(t, formsMD, string(b))
		_, err = loaded.ReadFile(ctx, "nothing.md")
		assert.False(t, errors.As(err, new(*client.SkillIntegrityError)), "an unknown file of a dynamic skill is the server's error: %v", err)
		assert.Error(t, err)
	})
}

// TestSkillsExtensionDeclaredOnlyWhenAsked: without the extension in Options.Extensions the
// client declares no extension, and can still list (the server decides).
func TestSkillsExtensionDeclaredOnlyWhenAsked(t *testing.T) {
	skillTransports(t, func() *recorder { return &recorder{} }, func(t *testing.T, version mcp.Version, rec *recorder, tr client.Transport) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := connect(t, tr, &client.Options{ProtocolVersion: version})
		skills, err := c.ListSkills(ctx)
		require.NoError(t, err)
		assert.Len(t, skills, 1)
		assert.Contains(t, string(c.Initialize().Capabilities.Extensions[mcp.SkillsExtension]), "directoryRead")
		rec.mu.Lock()
		defer rec.mu.Unlock()
		require.NotEmpty(t, rec.params)
		for _, p := range rec.params {
			assert.NotContains(t, string(p), mcp.SkillsExtension)
		}
	})
}
