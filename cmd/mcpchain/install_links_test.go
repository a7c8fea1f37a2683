//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInstallProjectPlantedLinks: a cloned repository
// that plants links or a FIFO where `install --project` writes gets no
// file outside the project written, and no hang. The user's own Cursor
// configuration stands for the file a planted link points at.
func TestInstallProjectPlantedLinks(t *testing.T) {
	t.Parallel()
	const userConfig = `{"mcpServers": {"mine": {"command": "/usr/bin/mine"}}}`
	const projectConfig = `{"servers": {"theirs": {"command": "/usr/bin/theirs"}}}`
	for _, tc := range []struct {
		name string
		// plant prepares the project; outside is the user's file.
		plant func(t *testing.T, project, outside string)
		// refused is what the error says; "" when install goes on.
		refused []string
	}{
		{"backup link", func(t *testing.T, project, outside string) {
			writeProject(t, project, projectConfig)
			require.NoError(t, os.Symlink(outside, filepath.Join(project, ".vscode", "mcp.json.bak")))
		}, []string{"mcp.json.bak", "symbolic link"}},
		{"temp link", func(t *testing.T, project, outside string) {
			// The name the temporary file had: it is random now, and
			// created exclusively, so a link there is never written.
			writeProject(t, project, projectConfig)
			require.NoError(t, os.Symlink(outside, filepath.Join(project, ".vscode", "mcp.json.mcpchain-tmp")))
		}, nil},
		{"linked directory", func(t *testing.T, project, outside string) {
			require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(project, ".vscode")))
		}, []string{".vscode", "symbolic link"}},
		{"linked config", func(t *testing.T, project, outside string) {
			require.NoError(t, os.Mkdir(filepath.Join(project, ".vscode"), 0o755))
			require.NoError(t, os.Symlink(outside, filepath.Join(project, ".vscode", "mcp.json")))
		}, []string{"mcp.json", "symbolic link"}},
		{"fifo config", func(t *testing.T, project, outside string) {
			require.NoError(t, os.Mkdir(filepath.Join(project, ".vscode"), 0o755))
			require.NoError(t, syscall.Mkfifo(filepath.Join(project, ".vscode", "mcp.json"), 0o644))
		}, []string{"mcp.json", "not a regular file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			home, project := t.TempDir(), t.TempDir()
			outside := filepath.Join(home, ".cursor", "mcp.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(outside), 0o755))
			require.NoError(t, os.WriteFile(outside, []byte(userConfig), 0o600))
			tc.plant(t, project, outside)

			r := run(t, home, project, "install", "vscode", "--no-check", "--project", "--name", "w", "--", "/opt/w")

			after, err := os.ReadFile(outside)
			require.NoError(t, err)
			require.Equal(t, userConfig, string(after), "the file outside the project is untouched")
			entries, err := os.ReadDir(filepath.Dir(outside))
			require.NoError(t, err)
			require.Len(t, entries, 1, "nothing new beside it")
			if tc.refused != nil {
				require.Equal(t, 1, r.code, r.stdout)
				for _, s := range tc.refused {
					require.Contains(t, r.stderr, s)
				}
				return
			}
			require.Equal(t, 0, r.code, r.stderr)
			fi, err := os.Lstat(filepath.Join(project, ".vscode", "mcp.json"))
			require.NoError(t, err)
			require.True(t, fi.Mode().IsRegular(), "the config is a file, not the planted link moved into place")
		})
	}
}

func writeProject(t *testing.T, project, config string) {
	t.Helper()
	require.NoError(t, os.Mkdir(filepath.Join(project, ".vscode"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(project, ".vscode", "mcp.json"), []byte(config), 0o644))
}
