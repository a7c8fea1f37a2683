package gotool

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestArgs(t *testing.T) {
	got := Args("build", "-o", "x", ".")
	if Race {
		assert.Equal(t, []string{"build", "-race", "-o", "x", "."}, got)
	} else {
		assert.Equal(t, []string{"build", "-o", "x", "."}, got)
	}
}

// TestCommandMatchesThisBinary builds a program with Command and checks,
// from the build information the go command records in it, that it was
// built with the race detector exactly when this test binary was.
func TestCommandMatchesThisBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "prog")
	cmd := Command("build", "-o", bin, "./testdata/prog")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	info, err := exec.Command("go", "version", "-m", bin).CombinedOutput()
	require.NoError(t, err, "%s", info)
	assert.Equal(t, Race, slices.Contains(strings.Fields(string(info)), "-race=true"), "go version -m:\n%s", info)
}
