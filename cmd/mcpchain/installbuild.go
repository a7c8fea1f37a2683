package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/client"
	"github.com/mcpchain/mcp/internal/cli/install"
	"github.com/mcpchain/mcp/internal/cli/termtext"
)

// goPackage is the Go main package install was given: a local directory,
// or a remote PKG@VERSION.
type goPackage struct {
	dir    string // absolute, for a local package
	remote string // PKG@VERSION
	goBin  string // the go command
}

// serverBinDir is where install --build puts the binaries it builds, one per
// server name: $XDG_DATA_HOME/mcpchain/bin (default ~/.local/share on
// Unix and macOS; %LOCALAPPDATA% on Windows). A per-user directory that
// does not move, unlike a build cache, so the entry stays valid.
func serverBinDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "mcpchain", "bin"), nil
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "mcpchain", "bin"), nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share", "mcpchain", "bin"), nil
}

// binPath is the binary install --build writes for the server name.
func binPath(name string) (string, error) {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\:`) || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("--name %q cannot name the binary install builds: give a plain name", name)
	}
	dir, err := serverBinDir()
	if err != nil {
		return "", err
	}
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(dir, name), nil
}

// build builds the package into path: go build -o for a local package
// (from its directory, so its own module decides the dependencies), go
// install with GOBIN for PKG@VERSION. The binary is written beside path
// and renamed over it, so a running copy of the old one is not damaged.
// The go command's output goes to w.
func build(ctx context.Context, goBin string, pkg goPackage, path string, w io.Writer) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	var cmd *exec.Cmd
	out := filepath.Join(tmp, filepath.Base(path))
	if pkg.remote != "" {
		cmd = exec.CommandContext(ctx, goBin, "install", pkg.remote)
		cmd.Env = append(os.Environ(), "GOBIN="+tmp)
	} else {
		cmd = exec.CommandContext(ctx, goBin, "build", "-o", out, ".")
		cmd.Dir = pkg.dir
	}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building %s: %w", pkg, err)
	}
	if pkg.remote != "" {
		// go install names the binary after the package's last element.
		entries, err := os.ReadDir(tmp)
		if err != nil || len(entries) != 1 {
			return fmt.Errorf("building %s: go install wrote %d files, want 1", pkg, len(entries))
		}
		if err := os.Rename(filepath.Join(tmp, entries[0].Name()), out); err != nil {
			return err
		}
	}
	if err := os.Rename(out, path); err != nil {
		return err
	}
	fmt.Fprintf(w, "built %s into %s (%.1fs)\n", pkg, path, time.Since(start).Seconds())
	return nil
}

func (p goPackage) String() string {
	if p.remote != "" {
		return p.remote
	}
	return p.dir
}

// tailBuffer keeps the last max bytes written to it; safe for the
// goroutine exec copies a child's stderr with.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = b.buf[len(b.buf)-b.max:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(bytes.TrimRight(b.buf, "\n"))
}

// checkServer starts the server as a client would (its command, args and
// env; from a directory that is not the project's) and sends initialize:
// an error, with the server's stderr, when it does not answer within
// timeout. It returns the server's name and version.
func checkServer(ctx context.Context, srv install.Server, timeout time.Duration) (mcp.Implementation, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, srv.Command, srv.Args...)
	cmd.Dir = os.TempDir()
	cmd.Env = os.Environ()
	for k, v := range srv.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr := &tailBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second
	c, err := client.Connect(ctx, client.Command(cmd), &client.Options{Info: mcp.Implementation{Name: "mcpchain-install-check", Version: "0.1.0"}})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer to initialize within %s (--check-timeout)", timeout)
		}
		msg := fmt.Sprintf("the server does not start: %s %s: %v", srv.Command, strings.Join(srv.Args, " "), err)
		if s := stderr.String(); s != "" {
			msg += "\nits stderr:\n" + termtext.Clean(s)
		} else {
			msg += "\n(it wrote nothing on stderr)"
		}
		return mcp.Implementation{}, errors.New(msg + "\nnothing was written; --no-check writes the entry anyway")
	}
	info := c.Initialize().ServerInfo
	_ = c.Close()
	return info, nil
}
