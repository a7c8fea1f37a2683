// Package devserver is `mcpchain dev`: it builds a Go MCP server, runs it,
// watches the module's files, and on a change rebuilds and restarts it,
// keeping the last good server when a build fails. Over stdio it is
// itself the client's server: it passes the messages through, replays
// the client's initialize to each new server, and tells the client to
// list again. Over HTTP it restarts the server behind an optional logging
// reverse proxy. Every request is logged, one line each, to stderr.
package devserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Config configures Run.
type Config struct {
	// Package is the main package to build (default ".").
	Package string
	// Args are the server's arguments.
	Args []string
	// Dir is where go build runs (default the working directory); the
	// module that holds it is watched.
	Dir string
	// URL, set, is where the server serves Streamable HTTP (the server's
	// arguments must make it listen there): dev runs it as an HTTP
	// server. Empty: the server speaks stdio, through dev.
	URL string
	// ProxyAddr, set with URL, is where dev listens (host:port) for a
	// reverse proxy to URL that logs each request; its path is URL's.
	ProxyAddr string
	// Debounce is how long dev waits after the last file change before
	// it rebuilds (default 200 ms).
	Debounce time.Duration
	// Stdin and Stdout are the client's side of stdio (default os.Stdin
	// and os.Stdout); Stderr gets dev's log and the server's stderr.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Ready, set, is called with the proxy's URL (HTTP mode) once it
	// listens.
	Ready func(url string)
}

// server is a running generation of the user's server, over stdio or HTTP.
type server interface {
	// restart replaces the running server with bin; a failure leaves the
	// previous one running.
	restart(ctx context.Context, bin string) error
	stop()
	// ended is closed when the client went away (stdio: its stdin
	// ended), which ends dev.
	ended() <-chan struct{}
	// firstBuilt is called once the first build has ended, well or not.
	firstBuilt()
}

// Run builds and runs the server until ctx ends, rebuilding on changes.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Package == "" {
		cfg.Package = "."
	}
	if cfg.Debounce == 0 {
		cfg.Debounce = 200 * time.Millisecond
	}
	if cfg.Stdin == nil {
		cfg.Stdin = os.Stdin
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		cfg.Dir = wd
	}
	log := &logger{w: cfg.Stderr, now: time.Now}
	root, err := moduleRoot(ctx, cfg.Dir)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "mcpchain-dev-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := watchTree(w, root); err != nil {
		return err
	}
	log.event("watching %s", root)

	var srv server
	if cfg.URL != "" {
		h, err := newHTTPServer(ctx, cfg, log)
		if err != nil {
			return err
		}
		srv = h
	} else {
		srv = newStdioServer(ctx, cfg, log)
	}
	defer srv.stop()

	b := &builder{cfg: cfg, dir: tmp, log: log}
	b.rebuild(ctx, srv)
	srv.firstBuilt()

	var timer *time.Timer
	fire := make(chan struct{}, 1)
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return errors.New("file watcher closed")
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() && !skipDir(ev.Name, root) {
					_ = watchTree(w, ev.Name)
				}
			}
			if !relevant(ev.Name) {
				continue
			}
			if timer == nil {
				timer = time.AfterFunc(cfg.Debounce, func() {
					select {
					case fire <- struct{}{}:
					default:
					}
				})
			} else {
				timer.Reset(cfg.Debounce)
			}
		case err := <-w.Errors:
			log.event("watch error: %v", err)
		case <-srv.ended():
			return nil
		case <-fire:
			b.rebuild(ctx, srv)
		}
	}
}

// builder builds generations of the server binary.
type builder struct {
	cfg  Config
	dir  string
	log  *logger
	n    int
	last [32]byte // hash of the running binary
}

// rebuild builds the package and, when that succeeds and the binary
// changed, restarts the server with it.
func (b *builder) rebuild(ctx context.Context, srv server) {
	b.n++
	bin := filepath.Join(b.dir, fmt.Sprintf("server-%d", b.n))
	if isWindows {
		bin += ".exe"
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, b.cfg.Package)
	cmd.Dir = b.cfg.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		keeps := "the last good server keeps running"
		if b.last == [32]byte{} {
			keeps = "no server runs until a build succeeds"
		}
		b.log.event("build failed (%s); %s:\n%s", round(time.Since(start)), keeps, strings.TrimRight(string(out), "\n"))
		return
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		b.log.event("build: %v", err)
		return
	}
	sum := sha256.Sum256(data)
	if sum == b.last {
		b.log.event("built in %s: binary unchanged, server not restarted", round(time.Since(start)))
		_ = os.Remove(bin)
		return
	}
	b.log.event("built %s in %s", b.cfg.Package, round(time.Since(start)))
	if err := srv.restart(ctx, bin); err != nil {
		b.log.event("restart failed: %v", err)
		return
	}
	b.last = sum
}

// moduleRoot is the directory of the go.mod that holds dir.
func moduleRoot(ctx context.Context, dir string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "env", "GOMOD")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("%s is not in a Go module", dir)
	}
	return filepath.Dir(mod), nil
}

// skipDir reports whether a directory is left unwatched: hidden ones
// (.git), node_modules, vendor and testdata.
func skipDir(path, root string) bool {
	if path == root {
		return false
	}
	base := filepath.Base(path)
	return strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "node_modules" || base == "vendor" || base == "testdata"
}

func watchTree(w *fsnotify.Watcher, root string) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if skipDir(path, root) {
			return filepath.SkipDir
		}
		return w.Add(path)
	})
}

// relevant reports whether a change of the file may change the binary:
// anything but tests, hidden files and editors' temporary files. (A
// change that leaves the binary the same, a README say, is rebuilt but
// does not restart the server.)
func relevant(path string) bool {
	base := filepath.Base(path)
	switch {
	case strings.HasSuffix(base, "_test.go"),
		strings.HasPrefix(base, "."),
		strings.HasSuffix(base, "~"),
		strings.HasSuffix(base, ".swp"), strings.HasSuffix(base, ".swx"),
		strings.HasSuffix(base, ".tmp"),
		base == "4913": // vim's write test
		return false
	}
	return true
}

// readLines calls f with each line of r (without its newline) until r ends.
func readLines(r io.Reader, f func([]byte)) error {
	br := newLineReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if line = bytes.TrimRight(line, "\r\n"); len(bytes.TrimSpace(line)) > 0 {
			f(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
