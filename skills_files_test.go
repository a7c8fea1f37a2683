package mcp_test

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/skill"
)

// TestAddSkillsRefusesLinks: a skill directory from elsewhere (a cloned
// repository) may hold symbolic links; os.DirFS follows them, so a link
// to ~/.ssh/id_ed25519 or /etc/passwd would be served to every client as
// a file of the skill. A link (to a file, inside the skill or out of it,
// or as SKILL.md itself) is refused by name, and nothing is registered.
func TestAddSkillsRefusesLinks(t *testing.T) {
	t.Parallel()
	md := []byte("---\nname: demo\ndescription: A demo.\n---\n# Demo\n")
	for _, tc := range []struct {
		name string
		make func(t *testing.T, root, outside string)
	}{
		{"a link out of the directory", func(t *testing.T, root, outside string) {
			require.NoError(t, os.Symlink(outside, filepath.Join(root, "demo", "notes.txt")))
		}},
		{"a relative link climbing out", func(t *testing.T, root, outside string) {
			require.NoError(t, os.Symlink("../../secret.txt", filepath.Join(root, "demo", "notes.txt")))
		}},
		{"a link within the skill", func(t *testing.T, root, outside string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "demo", "real.txt"), []byte("x"), 0o600))
			require.NoError(t, os.Symlink("real.txt", filepath.Join(root, "demo", "notes.txt")))
		}},
		{"SKILL.md a link", func(t *testing.T, root, outside string) {
			require.NoError(t, os.WriteFile(outside, md, 0o600))
			require.NoError(t, os.Remove(filepath.Join(root, "demo", "SKILL.md")))
			require.NoError(t, os.Symlink(outside, filepath.Join(root, "demo", "SKILL.md")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			outside := filepath.Join(base, "secret.txt")
			require.NoError(t, os.WriteFile(outside, []byte("-----BEGIN PRIVATE KEY-----"), 0o600))
			root := filepath.Join(base, "skills")
			require.NoError(t, os.MkdirAll(filepath.Join(root, "demo"), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(root, "demo", "SKILL.md"), md, 0o600))
			tc.make(t, root, outside)

			srv := newSkillServer(t)
			err := srv.Registry().AddSkills(os.DirFS(root))
			require.ErrorIs(t, err, mcp.ErrInvalidSkill)
			assert.Contains(t, err.Error(), "link")
			assert.Empty(t, srv.ListSkills(t.Context(), nil), "nothing registered")
			assert.Empty(t, srv.ListResources(t.Context(), nil))
		})
	}
}

// TestAddSkillsDoesNotReadHugeFiles: a file over what is left of
// skill.MaxBytes is refused from its size, unread, and one whose size the
// file system understates (a file that grows, /dev/zero behind a custom
// fs.FS) is read no further than the limit.
func TestAddSkillsDoesNotReadHugeFiles(t *testing.T) {
	t.Parallel()
	md := &fstest.MapFile{Data: []byte("---\nname: demo\ndescription: A demo.\n---\n# Demo\n")}
	for _, name := range []string{"demo/zero.bin", "demo/SKILL.md"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fsys := endlessFS{MapFS: fstest.MapFS{"demo/SKILL.md": md, "demo/zero.bin": {}}, endless: name}
			srv := newSkillServer(t)
			err := srv.Registry().AddSkills(&fsys)
			require.ErrorIs(t, err, mcp.ErrInvalidSkill)
			assert.Contains(t, err.Error(), "over")
			assert.LessOrEqual(t, fsys.read.Load(), int64(skill.MaxBytes+1<<16), "the read stopped at the limit")
		})
	}

	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "demo"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "demo", "SKILL.md"), md.Data, 0o600))
	f, err := os.Create(filepath.Join(dir, "demo", "huge.bin"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(1<<40)) // sparse: a terabyte that takes no disk
	require.NoError(t, f.Close())
	err = newSkillServer(t).Registry().AddSkills(os.DirFS(dir))
	require.ErrorIs(t, err, mcp.ErrInvalidSkill)
	assert.Contains(t, err.Error(), "huge.bin")
}

// endlessFS is a MapFS whose file endless reads as zeros without end
// (its size says 0), counting what was read.
type endlessFS struct {
	fstest.MapFS
	endless string
	read    atomic.Int64
}

func (e *endlessFS) Open(name string) (fs.File, error) {
	f, err := e.MapFS.Open(name)
	if err != nil || name != e.endless {
		return f, err
	}
	return &endlessFile{File: f, n: &e.read}, nil
}

type endlessFile struct {
	fs.File
	n *atomic.Int64
}

func (f *endlessFile) Read(p []byte) (int, error) {
	if f.n.Load() > 64<<20 {
		return 0, io.EOF // a guard for the old code, which read to the end
	}
	clear(p)
	f.n.Add(int64(len(p)))
	return len(p), nil
}
