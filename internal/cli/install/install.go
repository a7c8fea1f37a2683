// Package install writes an MCP server's entry into the configuration
// file of an MCP client (Claude Desktop, Claude Code, Cursor, VS Code,
// Gemini CLI, Goose, or a generic mcp.json): the file each client
// documents, merged so that every other key and server is kept,
// idempotent, with a .bak backup of the file it replaces; and lists the
// servers those files hold (Discover).
package install

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
)

// Server is the stdio server to install.
type Server struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
}

// Client describes one MCP client's configuration file.
type Client struct {
	// ID is the name on the command line.
	ID string
	// Key is the object of the file that maps server names to entries.
	Key string
	// Type, set, is written as the entry's "type" (VS Code requires
	// "stdio"; Claude Code writes it too).
	Type string
	// path returns the user-level file; project the project-level one
	// ("" when the client has none).
	path    func(e Env) (string, error)
	project string
	// yaml: the file is YAML and entries have Goose's shape.
	yaml bool
}

// Env is what the paths depend on, so tests can set every OS.
type Env struct {
	GOOS   string
	Home   string
	Getenv func(string) string
	// Dir is the project directory (--project), normally the working one.
	Dir string
}

// Target is a file install writes. Dir is taken as it is: created when
// missing, a symbolic link followed (the user's own configuration
// directory, the project directory). Name is a path below Dir: each of
// its directories install creates, or enters only when it is a real
// directory, never through a link, and the file itself must be a regular
// file or missing.
type Target struct {
	Dir  string
	Name string
}

// Path is the target's file path.
func (t Target) Path() string { return filepath.Join(t.Dir, t.Name) }

// OSEnv is the running system's Env.
func OSEnv() (Env, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return Env{}, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return Env{}, err
	}
	return Env{GOOS: runtime.GOOS, Home: home, Getenv: os.Getenv, Dir: dir}, nil
}

func (e Env) env(k, def string) string {
	if e.Getenv != nil {
		if v := e.Getenv(k); v != "" {
			return v
		}
	}
	return def
}

// appData is %APPDATA% on Windows (default %USERPROFILE%\AppData\Roaming).
func (e Env) appData() string {
	return e.env("APPDATA", filepath.Join(e.Home, "AppData", "Roaming"))
}

// xdgConfig is $XDG_CONFIG_HOME (default ~/.config).
func (e Env) xdgConfig() string { return e.env("XDG_CONFIG_HOME", filepath.Join(e.Home, ".config")) }

// Clients are the clients install knows, by ID.
var Clients = map[string]*Client{
	// Claude Desktop: "claude_desktop_config.json", under "mcpServers",
	// entries {command, args, env}; macOS ~/Library/Application
	// Support/Claude/, Windows %APPDATA%\Claude\
	// (https://modelcontextprotocol.io/quickstart/user). Anthropic ships
	// no Linux build; community builds and installers use
	// $XDG_CONFIG_HOME/Claude/ (~/.config/Claude/).
	"claude-desktop": {ID: "claude-desktop", Key: "mcpServers", path: func(e Env) (string, error) {
		switch e.GOOS {
		case "darwin":
			return filepath.Join(e.Home, "Library", "Application Support", "Claude", "claude_desktop_config.json"), nil
		case "windows":
			return filepath.Join(e.appData(), "Claude", "claude_desktop_config.json"), nil
		}
		return filepath.Join(e.xdgConfig(), "Claude", "claude_desktop_config.json"), nil
	}},
	// Claude Code: user scope is "mcpServers" at the top of ~/.claude.json
	// (%USERPROFILE%\.claude.json on Windows), entries {type: "stdio",
	// command, args, env}, as `claude mcp add --scope user` writes them;
	// project scope is .mcp.json at the project root
	// (https://code.claude.com/docs/en/mcp, "MCP installation scopes").
	"claude-code": {ID: "claude-code", Key: "mcpServers", Type: "stdio", project: ".mcp.json", path: func(e Env) (string, error) {
		return filepath.Join(e.Home, ".claude.json"), nil
	}},
	// Cursor: ~/.cursor/mcp.json (global, every OS) or .cursor/mcp.json in
	// the project, under "mcpServers", entries {command, args, env}
	// (https://cursor.com/docs/mcp, "Configuration locations").
	"cursor": {ID: "cursor", Key: "mcpServers", project: filepath.Join(".cursor", "mcp.json"), path: func(e Env) (string, error) {
		return filepath.Join(e.Home, ".cursor", "mcp.json"), nil
	}},
	// VS Code: mcp.json in the user profile or .vscode/mcp.json in the
	// workspace, under "servers" (not "mcpServers"), stdio entries
	// {type: "stdio", command, args, env}
	// (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration).
	// The default profile's folder is Code/User under the OS's
	// application-data directory: %APPDATA%, ~/Library/Application
	// Support, $XDG_CONFIG_HOME (~/.config).
	"vscode": {ID: "vscode", Key: "servers", Type: "stdio", project: filepath.Join(".vscode", "mcp.json"), path: func(e Env) (string, error) {
		switch e.GOOS {
		case "darwin":
			return filepath.Join(e.Home, "Library", "Application Support", "Code", "User", "mcp.json"), nil
		case "windows":
			return filepath.Join(e.appData(), "Code", "User", "mcp.json"), nil
		}
		return filepath.Join(e.xdgConfig(), "Code", "User", "mcp.json"), nil
	}},
	// Gemini CLI: ~/.gemini/settings.json (every OS) or
	// .gemini/settings.json in the project, under "mcpServers", stdio
	// entries {command, args, env} (HTTP ones have "httpUrl")
	// (https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md).
	"gemini": {ID: "gemini", Key: "mcpServers", project: filepath.Join(".gemini", "settings.json"), path: func(e Env) (string, error) {
		return filepath.Join(e.Home, ".gemini", "settings.json"), nil
	}},
	// Goose: config.yaml in ~/.config/goose (macOS too; $XDG_CONFIG_HOME
	// on Linux), %APPDATA%\Block\goose\config on Windows, YAML, under
	// "extensions", stdio entries {name, type: stdio, cmd, args, envs,
	// enabled, timeout} (https://block.github.io/goose/docs/guides/config-files,
	// and the entries goose configure writes). No project file.
	"goose": {ID: "goose", Key: "extensions", yaml: true, path: func(e Env) (string, error) {
		switch e.GOOS {
		case "windows":
			return filepath.Join(e.appData(), "Block", "goose", "config", "config.yaml"), nil
		case "darwin":
			return filepath.Join(e.Home, ".config", "goose", "config.yaml"), nil
		}
		return filepath.Join(e.xdgConfig(), "goose", "config.yaml"), nil
	}},
	// mcp-json: the generic {"mcpServers": {name: {command, args, env}}}
	// most clients read; printed, or written to --file.
	"mcp-json": {ID: "mcp-json", Key: "mcpServers", project: "mcp.json"},
}

// IDs lists the client IDs, sorted.
func IDs() []string {
	var ids []string
	for id := range Clients {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Path returns the file install writes for the client: the project file
// (in e.Dir) when project is set, else the user file.
func (c *Client) Path(e Env, project bool) (string, error) {
	t, err := c.Target(e, project)
	if err != nil {
		return "", err
	}
	return t.Path(), nil
}

// Target returns the file install writes for the client, as [Client.Write]
// takes it: the project file below e.Dir when project is set, else the
// user file, its directory taken as it is.
func (c *Client) Target(e Env, project bool) (Target, error) {
	if project || c.path == nil {
		if c.project == "" {
			return Target{}, fmt.Errorf("%s has no project configuration file", c.ID)
		}
		return Target{Dir: e.Dir, Name: c.project}, nil
	}
	p, err := c.path(e)
	if err != nil {
		return Target{}, err
	}
	return Target{Dir: filepath.Dir(p), Name: filepath.Base(p)}, nil
}

// Entry is a server's entry in a client's file, members in the order
// the clients' documentation shows them.
type Entry struct {
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// Entry is the server's entry in the client's format.
func (c *Client) Entry(s Server) Entry {
	return Entry{Type: c.Type, Command: s.Command, Args: append([]string{}, s.Args...), Env: s.Env}
}

// Document is a whole file holding only the server's entry (what
// mcp-json prints).
func (c *Client) Document(s Server) ([]byte, error) {
	return c.Merge(nil, s)
}

// Merge returns file (a client's configuration, nil or empty for none)
// with the server's entry set under c.Key, keeping every other member
// and server, in their order. A file that is not a JSON object (VS Code
// allows comments, for one) is an error: it is not rewritten.
func (c *Client) Merge(file []byte, s Server) ([]byte, error) {
	if c.yaml {
		return c.mergeYAML(file, s)
	}
	top, err := members(file)
	if err != nil {
		return nil, err
	}
	entry, err := json.Marshal(c.Entry(s))
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(top, func(m member) bool { return m.key == c.Key })
	var servers []member
	if i >= 0 {
		if servers, err = members(top[i].value); err != nil {
			return nil, fmt.Errorf("%q: %w", c.Key, err)
		}
	}
	j := slices.IndexFunc(servers, func(m member) bool { return m.key == s.Name })
	if j >= 0 {
		servers[j].value = entry
	} else {
		servers = append(servers, member{s.Name, entry})
	}
	obj := encode(servers)
	if i >= 0 {
		top[i].value = obj
	} else {
		top = append(top, member{c.Key, obj})
	}
	var out bytes.Buffer
	if err := json.Indent(&out, encode(top), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// Result says what Write did.
type Result struct {
	Path string
	// Changed is false when the file already held the same entry.
	Changed bool
	// Backup is the copy of the previous file ("" when there was none
	// or nothing changed).
	Backup string
	// Entry is the entry written, as JSON.
	Entry []byte
	// Mode is the file's permission bits once written (or as found, when
	// nothing changed).
	Mode fs.FileMode
	// Tightened: nothing else changed, but the file, which holds the
	// server's environment, was readable by others and is no longer.
	Tightened bool
	// Previous is the entry of the same name that was replaced, as JSON
	// (nil when there was none).
	Previous json.RawMessage
}

// Write merges the server into the target file: nothing changes when the
// entry there is already the same; otherwise the previous file is copied
// to FILE.bak and the new one written. Both are written to a new file of
// a random name, created exclusively in the same directory, then renamed
// over the old one, so a file is never written through a link. The file,
// FILE.bak and each directory below t.Dir must be a regular file or
// directory, or missing (directories are then created, 0755): a symbolic
// link or any other kind of file is refused, naming it.
//
// A file that holds the server's environment (Server.Env) is written
// 0600 (an existing one, and its backup, lose their group and other
// bits); otherwise an existing file and its backup keep its mode, and a
// new one is 0644 (less the umask).
func (c *Client) Write(t Target, s Server) (*Result, error) {
	if !filepath.IsLocal(t.Name) {
		return nil, fmt.Errorf("%q is not a path below %s", t.Name, t.Dir)
	}
	name := filepath.Clean(t.Name)
	path := t.Path()
	dir, err := openTargetDir(t.Dir, filepath.Dir(name))
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	base := filepath.Base(name)

	f, info, err := openRegular(dir, base, path)
	if err != nil {
		return nil, err
	}
	var old []byte
	if f != nil {
		defer f.Close()
		if old, err = io.ReadAll(f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	entry, err := c.shownEntry(s)
	if err != nil {
		return nil, err
	}
	secret := len(s.Env) > 0
	res := &Result{Path: path, Entry: entry}
	if c.has(old, s) {
		res.Mode = info.Mode().Perm()
		if secret {
			if err := tighten(f, res, path); err != nil {
				return nil, err
			}
		}
		return res, nil
	}
	merged, err := c.Merge(old, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res.Previous = c.previous(old, s.Name)
	mode, exact := fileMode(info, secret)
	if info != nil {
		res.Backup = path + ".bak"
		if err := replace(dir, base+".bak", res.Backup, old, backupMode(info, secret), true); err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
	}
	if err := replace(dir, base, path, merged, mode, exact); err != nil {
		return nil, err
	}
	res.Changed, res.Mode = true, mode
	return res, nil
}

// tighten takes the group and other bits off the mode of file f (at
// path), unchanged but now holding the server's environment.
func tighten(f *os.File, res *Result, path string) error {
	if res.Mode&0o077 == 0 {
		return nil
	}
	if err := f.Chmod(res.Mode &^ 0o077); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	res.Mode &^= 0o077
	res.Tightened = true
	return nil
}

// previous is the entry named name in the file's old content, nil when
// there is none.
func (c *Client) previous(old []byte, name string) json.RawMessage {
	servers, err := c.servers(old)
	if err != nil {
		return nil
	}
	if i := slices.IndexFunc(servers, func(m member) bool { return m.key == name }); i >= 0 {
		return servers[i].value
	}
	return nil
}

// backupMode is the mode of an existing file's backup: the file's, less
// group and other bits with the server's environment (secret), since the
// old file may hold this server's previous values.
func backupMode(info fs.FileInfo, secret bool) fs.FileMode {
	if secret {
		return info.Mode().Perm() &^ 0o077
	}
	return info.Mode().Perm()
}

// fileMode is the mode a file is written with, and whether it is exact
// (the umask does not apply): an existing file's (info), 0644 for a new
// one; with the server's environment (secret), without group and other
// bits, 0600 for a new one.
func fileMode(info fs.FileInfo, secret bool) (fs.FileMode, bool) {
	mode, exact := fs.FileMode(0o644), false
	if info != nil {
		mode, exact = info.Mode().Perm(), true
	}
	if secret {
		if info == nil {
			mode = 0o600
		}
		mode &^= 0o077
		exact = true
	}
	return mode, exact
}

// openTargetDir opens the directory rel below top (both created when
// missing, refused when a link or not a directory).
func openTargetDir(top, rel string) (*os.Root, error) {
	if err := os.MkdirAll(top, 0o755); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(top)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return enterDirs(root, top, rel)
}

// enterDirs opens the directory rel below top (at path shown), each of
// its directories created when missing; one that is a symbolic link or
// not a directory is refused.
func enterDirs(top *os.Root, shown, rel string) (*os.Root, error) {
	d, err := top.OpenRoot(".")
	if err != nil {
		return nil, err
	}
	if rel == "." {
		return d, nil
	}
	for _, p := range strings.Split(filepath.ToSlash(rel), "/") {
		shown = filepath.Join(shown, p)
		fi, err := d.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			if err = d.Mkdir(p, 0o755); err == nil || errors.Is(err, fs.ErrExist) {
				fi, err = d.Lstat(p)
			}
		}
		if err == nil {
			err = kind(d, p, shown, fi, true)
		}
		var next *os.Root
		if err == nil {
			next, err = d.OpenRoot(p)
		}
		if err == nil {
			// The directory opened is the one checked, not a link put
			// in its place meanwhile.
			var got fs.FileInfo
			if got, err = next.Stat("."); err == nil && !os.SameFile(fi, got) {
				err = fmt.Errorf("%s changed while install opened it", shown)
			}
			if err != nil {
				next.Close()
			}
		}
		d.Close()
		if err != nil {
			return nil, err
		}
		d = next
	}
	return d, nil
}

// openRegular opens the file name of dir (at path shown) for reading: nil
// when it does not exist, an error when it is a symbolic link or not a
// regular file. A FIFO is neither opened for long nor read.
func openRegular(dir *os.Root, name, shown string) (*os.File, fs.FileInfo, error) {
	fi, err := dir.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if err := kind(dir, name, shown, fi, false); err != nil {
		return nil, nil, err
	}
	f, err := dir.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	got, err := f.Stat()
	if err == nil && (!got.Mode().IsRegular() || !os.SameFile(fi, got)) {
		err = fmt.Errorf("%s changed while install opened it", shown)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, got, nil
}

// kind refuses fi (name in dir, at path shown) unless it is a directory
// (wantDir) or a regular file.
func kind(dir *os.Root, name, shown string, fi fs.FileInfo, wantDir bool) error {
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		to, _ := dir.Readlink(name)
		return fmt.Errorf("%s is a symbolic link (to %s): install writes no file through a link; remove it, or give --file the path of a real file", shown, to)
	case wantDir && m.IsDir(), !wantDir && m.IsRegular():
		return nil
	case wantDir:
		return fmt.Errorf("%s is not a directory (%s)", shown, describe(m))
	}
	return fmt.Errorf("%s is not a regular file (%s): install replaces only a regular file", shown, describe(m))
}

func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsRegular():
		return "a regular file"
	}
	return "mode " + m.String()
}

// tempName is the name of a new temporary file beside name: random, so
// that no one can plant anything at it beforehand.
var tempName = func(name string) string {
	return "." + name + "." + rand.Text()[:12] + ".mcpchain-tmp"
}

// replace writes data as the file name of dir (at path shown): to a new
// file created exclusively, mode mode (exactly, when exact; else less the
// umask), then renamed over name, which must be a regular file or
// missing.
func replace(dir *os.Root, name, shown string, data []byte, mode fs.FileMode, exact bool) (err error) {
	if fi, err := dir.Lstat(name); err == nil {
		if err := kind(dir, name, shown, fi, false); err != nil {
			return err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	tmp := tempName(name)
	f, err := dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("%s: a temporary file: %w", shown, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			_ = dir.Remove(tmp)
		}
	}()
	if exact {
		if err = f.Chmod(mode); err != nil {
			return err
		}
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return dir.Rename(tmp, name)
}

// has reports whether file already holds exactly the server's entry.
func (c *Client) has(file []byte, s Server) bool {
	if c.yaml {
		return c.hasYAML(file, s)
	}
	var doc map[string]json.RawMessage
	var servers map[string]any
	if len(bytes.TrimSpace(file)) == 0 || json.Unmarshal(file, &doc) != nil || json.Unmarshal(doc[c.Key], &servers) != nil {
		return false
	}
	cur, ok := servers[s.Name]
	if !ok {
		return false
	}
	var want any
	b, _ := json.Marshal(c.Entry(s))
	_ = json.Unmarshal(b, &want)
	return reflect.DeepEqual(cur, want)
}

const unsupported = " (comments and trailing commas are not supported: fix or move the file; it was not changed)"

type member struct {
	key   string
	value json.RawMessage
}

// members reads a JSON object's members in order, values raw.
func members(b []byte) ([]member, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(b))
	t, err := d.Token()
	if err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object" + unsupported)
	}
	var out []member
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("not valid JSON%s: %w", unsupported, err)
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("not valid JSON%s: %w", unsupported, err)
		}
		if i := slices.IndexFunc(out, func(m member) bool { return m.key == k }); i >= 0 {
			out[i].value = v // the last duplicate wins, as in JSON.parse
			continue
		}
		out = append(out, member{k, v})
	}
	if _, err := d.Token(); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("not valid JSON: data after the object")
	}
	return out, nil
}

func encode(ms []member) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// Lookup returns the entry the target file holds for the server name, as
// JSON (nil when the file or the entry does not exist). It reads only,
// with Write's rules: no directory below t.Dir, nor the file, may be a
// link or of another kind.
func (c *Client) Lookup(t Target, name string) (json.RawMessage, error) {
	file, err := read(t)
	if err != nil || file == nil {
		return nil, err
	}
	servers, err := c.servers(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Path(), err)
	}
	for _, m := range servers {
		if m.key == name {
			return m.value, nil
		}
	}
	return nil, nil
}

// servers reads the entries under c.Key of file, in order.
func (c *Client) servers(file []byte) ([]member, error) {
	if c.yaml {
		return c.serversYAML(file)
	}
	top, err := members(file)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(top, func(m member) bool { return m.key == c.Key })
	if i < 0 {
		return nil, nil
	}
	s, err := members(top[i].value)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", c.Key, err)
	}
	return s, nil
}

// read returns the target file's contents (nil when it, or a directory
// of its path, does not exist), refusing links as Write does.
func read(t Target) ([]byte, error) {
	if !filepath.IsLocal(t.Name) {
		return nil, fmt.Errorf("%q is not a path below %s", t.Name, t.Dir)
	}
	name := filepath.Clean(t.Name)
	d, err := os.OpenRoot(t.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	shown := t.Dir
	if rel := filepath.Dir(name); rel != "." {
		for _, p := range strings.Split(filepath.ToSlash(rel), "/") {
			shown = filepath.Join(shown, p)
			fi, err := d.Lstat(p)
			if err == nil {
				err = kind(d, p, shown, fi, true)
			}
			var next *os.Root
			if err == nil {
				next, err = d.OpenRoot(p)
			}
			d.Close()
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			d = next
		}
	}
	defer d.Close()
	f, _, err := openRegular(d, filepath.Base(name), t.Path())
	if err != nil || f == nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.Path(), err)
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}
