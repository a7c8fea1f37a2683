//go:build unix

package install

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const userFile = `{"mcpServers": {"mine": {"command": "/usr/bin/mine"}}}`

// sandbox is a project directory and, beside it, a directory standing
// for the rest of the user's files, holding one file.
type sandbox struct {
	project, outside, file string
}

func newSandbox(t *testing.T) sandbox {
	t.Helper()
	d := t.TempDir()
	s := sandbox{project: filepath.Join(d, "project"), outside: filepath.Join(d, "outside")}
	s.file = filepath.Join(s.outside, "mcp.json")
	require.NoError(t, os.Mkdir(s.project, 0o755))
	require.NoError(t, os.Mkdir(s.outside, 0o755))
	require.NoError(t, os.WriteFile(s.file, []byte(userFile), 0o600))
	return s
}

// untouched checks that nothing outside the project was written.
func (s sandbox) untouched(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(s.file)
	require.NoError(t, err)
	require.Equal(t, userFile, string(b), "the file outside the project is unchanged")
	entries, err := os.ReadDir(s.outside)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no file was added outside the project")
}

func (s sandbox) at(parts ...string) string {
	return filepath.Join(append([]string{s.project}, parts...)...)
}

// TestWriteRefusesLinks: whatever a repository plants
// where install writes, nothing outside the project is written and the
// error names the path and what is wrong with it.
func TestWriteRefusesLinks(t *testing.T) {
	t.Parallel()
	existing := `{"servers": {"theirs": {"command": "/usr/bin/theirs"}}}`
	for _, tc := range []struct {
		name   string
		target string
		plant  func(t *testing.T, s sandbox)
		want   []string // in the error
	}{
		{"backup link", ".vscode/mcp.json", func(t *testing.T, s sandbox) {
			require.NoError(t, os.Mkdir(s.at(".vscode"), 0o755))
			require.NoError(t, os.WriteFile(s.at(".vscode", "mcp.json"), []byte(existing), 0o644))
			require.NoError(t, os.Symlink(s.file, s.at(".vscode", "mcp.json.bak")))
		}, []string{"mcp.json.bak is a symbolic link (to " + "", "install writes no file through a link"}},
		{"backup directory", ".vscode/mcp.json", func(t *testing.T, s sandbox) {
			require.NoError(t, os.MkdirAll(s.at(".vscode", "mcp.json.bak"), 0o755))
			require.NoError(t, os.WriteFile(s.at(".vscode", "mcp.json"), []byte(existing), 0o644))
		}, []string{"mcp.json.bak is not a regular file (a directory)"}},
		{"linked directory", ".vscode/mcp.json", func(t *testing.T, s sandbox) {
			require.NoError(t, os.Symlink(s.outside, s.at(".vscode")))
		}, []string{".vscode is a symbolic link"}},
		{"linked directory inside the project", ".vscode/mcp.json", func(t *testing.T, s sandbox) {
			require.NoError(t, os.Mkdir(s.at("elsewhere"), 0o755))
			require.NoError(t, os.Symlink("elsewhere", s.at(".vscode")))
		}, []string{".vscode is a symbolic link (to elsewhere)"}},
		{"linked deeper directory", "a/b/mcp.json", func(t *testing.T, s sandbox) {
			require.NoError(t, os.Mkdir(s.at("a"), 0o755))
			require.NoError(t, os.Symlink(s.outside, s.at("a", "b")))
		}, []string{filepath.Join("a", "b") + " is a symbolic link"}},
		{"a file where a directory goes", ".vscode/mcp.json", func(t *testing.T, s sandbox) {
			require.NoError(t, os.WriteFile(s.at(".vscode"), nil, 0o644))
		}, []string{".vscode is not a directory (a regular file)"}},
		{"linked config", ".vscode/mcp.json", func(t *testing.T, s sandbox) {
			require.NoError(t, os.Mkdir(s.at(".vscode"), 0o755))
			require.NoError(t, os.Symlink(s.file, s.at(".vscode", "mcp.json")))
		}, []string{"mcp.json is a symbolic link (to " + "", "give --file the path of a real file"}},
		{"fifo config", ".vscode/mcp.json", func(t *testing.T, s sandbox) {
			require.NoError(t, os.Mkdir(s.at(".vscode"), 0o755))
			require.NoError(t, syscall.Mkfifo(s.at(".vscode", "mcp.json"), 0o644))
		}, []string{"mcp.json is not a regular file (a named pipe)"}},
		{"directory config", ".mcp.json", func(t *testing.T, s sandbox) {
			require.NoError(t, os.Mkdir(s.at(".mcp.json"), 0o755))
		}, []string{".mcp.json is not a regular file (a directory)"}},
		{"climbing name", "../outside/mcp.json", func(t *testing.T, s sandbox) {}, []string{`"../outside/mcp.json" is not a path below`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			tc.plant(t, s)
			_, err := Clients["vscode"].Write(Target{Dir: s.project, Name: filepath.FromSlash(tc.target)}, srv)
			require.Error(t, err)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
			s.untouched(t)
		})
	}
}

// TestWritePlantedTempName: the temporary file is created exclusively,
// so a link planted at its name (were the random name guessed) is
// refused, not written through. Not parallel: it sets tempName.
func TestWritePlantedTempName(t *testing.T) {
	s := newSandbox(t)
	require.NoError(t, os.Symlink(s.file, s.at("guessed")))
	defer func(f func(string) string) { tempName = f }(tempName)
	tempName = func(string) string { return "guessed" }
	_, err := Clients["claude-code"].Write(Target{Dir: s.project, Name: ".mcp.json"}, srv)
	require.ErrorContains(t, err, "a temporary file")
	require.ErrorIs(t, err, fs.ErrExist)
	s.untouched(t)
}

// TestWriteIgnoresOldTempName: the fixed temporary name of before
// (FILE.mcpchain-tmp) is no longer used: a link there is left alone.
func TestWriteIgnoresOldTempName(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	require.NoError(t, os.Symlink(s.file, s.at(".mcp.json.mcpchain-tmp")))
	res, err := Clients["claude-code"].Write(Target{Dir: s.project, Name: ".mcp.json"}, srv)
	require.NoError(t, err)
	require.True(t, res.Changed)
	fi, err := os.Lstat(s.at(".mcp.json"))
	require.NoError(t, err)
	require.True(t, fi.Mode().IsRegular())
	s.untouched(t)
	entries, err := os.ReadDir(s.project)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.ElementsMatch(t, []string{".mcp.json", ".mcp.json.mcpchain-tmp"}, names, "no temporary file is left behind")
}

// TestWriteModes: a file that holds --env values is 0600; otherwise an
// existing file keeps its mode and a new one is 0644 less the umask.
func TestWriteModes(t *testing.T) {
	t.Parallel()
	noEnv := Server{Name: "plain", Command: "/usr/bin/plain"}
	c := Clients["cursor"]
	for _, tc := range []struct {
		name     string
		existing fs.FileMode // 0: no file
		s        Server
		want     fs.FileMode
		backup   fs.FileMode
	}{
		{"new with env", 0, srv, 0o600, 0},
		{"existing 0644 with env", 0o644, srv, 0o600, 0o600},
		{"existing 0640 with env", 0o640, srv, 0o600, 0o600},
		{"existing 0640 without env", 0o640, noEnv, 0o640, 0o640},
		{"existing 0604 without env", 0o604, noEnv, 0o604, 0o604},
		{"existing 0600 without env", 0o600, noEnv, 0o600, 0o600},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "mcp.json")
			if tc.existing != 0 {
				require.NoError(t, os.WriteFile(path, []byte(`{"other": 1}`), 0o600))
				require.NoError(t, os.Chmod(path, tc.existing))
			}
			res, err := c.Write(Target{Dir: dir, Name: "mcp.json"}, tc.s)
			require.NoError(t, err)
			require.True(t, res.Changed)
			require.Equal(t, tc.want, res.Mode)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			require.Equal(t, tc.want, fi.Mode().Perm())
			if tc.backup != 0 {
				fi, err := os.Stat(path + ".bak")
				require.NoError(t, err)
				require.Equal(t, tc.backup, fi.Mode().Perm(), "the backup keeps the old file's mode (less group and other bits with env)")
			}
		})
	}

	t.Run("new without env", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		_, err := c.Write(Target{Dir: dir, Name: "mcp.json"}, noEnv)
		require.NoError(t, err)
		fi, err := os.Stat(filepath.Join(dir, "mcp.json"))
		require.NoError(t, err)
		perm := fi.Mode().Perm()
		assert.Equal(t, fs.FileMode(0o600), perm&0o600, "the owner reads and writes it")
		assert.Zero(t, perm&^0o644, "at most 0644 (the umask may take more)")
	})

	t.Run("unchanged with env is tightened", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		path := filepath.Join(dir, "mcp.json")
		doc, err := c.Document(srv)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, doc, 0o600))
		require.NoError(t, os.Chmod(path, 0o644))
		res, err := c.Write(Target{Dir: dir, Name: "mcp.json"}, srv)
		require.NoError(t, err)
		require.False(t, res.Changed)
		require.True(t, res.Tightened)
		fi, err := os.Stat(path)
		require.NoError(t, err)
		require.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, doc, b, "the content is not rewritten")
	})
}

// FuzzWriteTarget: whatever name install is given below a project that
// holds planted links (to a directory outside, to a file outside, as a
// backup), it writes nothing outside the project, and what it writes is
// a regular file inside it.
func FuzzWriteTarget(f *testing.F) {
	for _, s := range []string{"mcp.json", ".vscode/mcp.json", "link/mcp.json", "file", "file.bak", "../outside/mcp.json",
		"a/../../outside/x", "/abs", "", ".", "a//b", "link", "dir/link/x", "x\x00y", "0/", "ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		s := newSandbox(t)
		require.NoError(t, os.Symlink(s.outside, s.at("link")))
		require.NoError(t, os.Mkdir(s.at("dir"), 0o755))
		require.NoError(t, os.Symlink("../link", s.at("dir", "link")))
		require.NoError(t, os.Symlink(s.file, s.at("file")))
		require.NoError(t, os.Symlink(s.file, s.at("ok.bak")))
		require.NoError(t, os.WriteFile(s.at("ok"), []byte("{}"), 0o644))
		res, err := Clients["cursor"].Write(Target{Dir: s.project, Name: filepath.FromSlash(name)}, srv)
		s.untouched(t)
		if err != nil {
			return
		}
		fi, err := os.Lstat(res.Path)
		require.NoError(t, err)
		require.True(t, fi.Mode().IsRegular(), "%q: wrote a regular file", name)
		real, err := filepath.EvalSymlinks(res.Path)
		require.NoError(t, err)
		project, err := filepath.EvalSymlinks(s.project)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(real, project+string(filepath.Separator)), "%q: wrote %s, inside the project", name, real)
	})
}
