package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpchain/mcp/internal/mimetype"
	"github.com/mcpchain/mcp/internal/strictjson"
	"github.com/mcpchain/mcp/skill"
)

// directoryMIMEType is the MIME type of a directory in
// resources/directory/read (SEP-2640).
const directoryMIMEType = "inode/directory"

// Skill errors. [Registry.AddSkills] returns errors that wrap one of
// these (or [ErrAlreadyRegistered]); the text names the file and the rule.
var (
	// ErrInvalidSkill means a SKILL.md breaks a rule of SEP-2640 or of the
	// Agent Skills format: no frontmatter, a bad name or description, a
	// name that differs from its directory, a reserved metadata key, a
	// skill over the limits, a skill inside another.
	ErrInvalidSkill = errors.New("invalid skill")
	// ErrNoSkills means the file system holds no SKILL.md at all.
	ErrNoSkills = errors.New("no skills found")
)

// SkillsExtension is the identifier of the skills extension (SEP-2640)
// in capabilities.extensions: a server with skills ([Server.AddSkills])
// declares it and answers skills/list and skills/get; a client that reads
// skills declares it too (client.Options.Extensions).
const SkillsExtension = "io.modelcontextprotocol/skills"

// Skill is one skill as skills/list and skills/get describe it, for the
// server that lists it ([Server.AddSkills]) and the client that reads it
// (client.Client.ListSkills): the URI of its SKILL.md, the file's
// frontmatter as JSON, and every file of the skill with its digest and
// size, which a client verifies the files against.
type Skill struct {
	// URI is the skill's SKILL.md: skill://<skill-path>/SKILL.md, the
	// last segment of <skill-path> being Name.
	URI string `json:"uri"`
	// Frontmatter is the SKILL.md YAML frontmatter as a JSON object.
	Frontmatter json.RawMessage `json:"frontmatter"`
	// Resources lists every file of the skill once, SKILL.md included
	// (none when Dynamic).
	Resources []SkillFile `json:"resources"`
	// Name and Description are the frontmatter's ("" when missing or
	// not strings).
	Name        string `json:"-"`
	Description string `json:"-"`
	// Dynamic is set for a skill whose server lists no files (the
	// entry's "resources" is the string "dynamic"): a client can verify
	// only its SKILL.md's frontmatter. AddSkills lists every file.
	Dynamic bool `json:"-"`
}

// SkillFile is one file of a skill: its resource URI, the SHA-256 of its
// raw bytes ("sha256:" and 64 lowercase hex digits) and its size in bytes.
type SkillFile struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// skillSet is what AddSkills registered, replaced as a whole (copy on
// write) so readers need no lock.
type skillSet struct {
	skills []Skill              // sorted by URI
	byURI  map[string]int       // SKILL.md URI → index in skills
	names  map[string]string    // skill name → its URI
	dirs   map[string][]dirNode // directory URI → direct children, sorted by URI
}

// dirNode is a child of a directory: a file (a registered resource) or a
// subdirectory.
type dirNode struct {
	uri string
	dir bool
	res Resource
}

// skillStore is the Server's skills; mu serializes writers.
type skillStore struct {
	mu  sync.Mutex
	set atomic.Pointer[skillSet]
}

// AddSkills serves the skills of fsys (SEP-2640): every directory that
// holds a SKILL.md is a skill, named by its directory, whose files are the
// directory's tree. Each file becomes a resource skill://<path>/<file>
// (SKILL.md with MIME type text/markdown and the frontmatter's name and
// description), and the server answers skills/list, skills/get and
// resources/directory/read. The files are read once, here: what is served
// is what the digests describe. It panics when a skill breaks a rule (see
// [Registry.AddSkills]); skills from a user's directory, read at run
// time, use [Registry.AddSkills].
//
//	//go:embed skills
//	var skillsFS embed.FS
//	…
//	sub, _ := fs.Sub(skillsFS, "skills")
//	srv.AddSkills(sub)
func (s *Server) AddSkills(fsys fs.FS) { must("AddSkills", s.tryAddSkills(fsys)) }

// tryAddSkills is [Server.AddSkills] returning the error
// ([Registry.AddSkills]).
func (s *Server) tryAddSkills(fsys fs.FS) error {
	found, err := loadSkills(fsys)
	if err != nil {
		return err
	}
	s.skills.mu.Lock()
	defer s.skills.mu.Unlock()
	old := s.skills.set.Load()
	next := &skillSet{byURI: map[string]int{}, names: map[string]string{}, dirs: map[string][]dirNode{}}
	if old != nil {
		next.skills = slices.Clone(old.skills)
		for k, v := range old.names {
			next.names[k] = v
		}
		for k, v := range old.dirs {
			next.dirs[k] = slices.Clone(v)
		}
	}
	for _, ls := range found {
		if uri, ok := next.names[ls.skill.Name]; ok {
			return fmt.Errorf("skill %q (%s): %w: the name is already served by %s (skill names must be unique)", ls.skill.Name, ls.skill.URI, ErrAlreadyRegistered, uri)
		}
		next.names[ls.skill.Name] = ls.skill.URI
		next.skills = append(next.skills, ls.skill)
	}
	// The files become resources; on a clash the ones added are removed.
	var added []string
	for _, ls := range found {
		for _, r := range ls.files {
			if err := s.tryAddResource(r); err != nil {
				s.removeResources(added)
				return fmt.Errorf("skill %q: %w", ls.skill.Name, err)
			}
			added = append(added, r.URI)
			next.addFile(r)
		}
	}
	sort.Slice(next.skills, func(i, j int) bool { return next.skills[i].URI < next.skills[j].URI })
	for i, sk := range next.skills {
		next.byURI[sk.URI] = i
	}
	for k := range next.dirs {
		sort.Slice(next.dirs[k], func(i, j int) bool { return next.dirs[k][i].uri < next.dirs[k][j].uri })
	}
	s.skills.set.Store(next)
	// s.skills.mu is held here, not s.mu, which offer takes.
	s.offer(SkillsExtension, json.RawMessage(`{"directoryRead":true}`))
	return nil
}

// addFile records r and every directory above it up to the scheme.
func (set *skillSet) addFile(r Resource) {
	child := dirNode{uri: r.URI, res: r}
	for {
		i := strings.LastIndexByte(child.uri, '/')
		parent := child.uri[:i]
		if strings.HasSuffix(parent, ":/") { // skill://<authority> has no parent
			return
		}
		known := set.dirs[parent] != nil
		if !slices.ContainsFunc(set.dirs[parent], func(n dirNode) bool { return n.uri == child.uri }) {
			set.dirs[parent] = append(set.dirs[parent], child)
		}
		if known {
			return
		}
		child = dirNode{uri: parent, dir: true}
	}
}

// hasSkills reports whether the server serves skills (so it declares the
// skills extension).
func (s *Server) hasSkills() bool {
	set := s.skills.set.Load()
	return set != nil && len(set.skills) > 0
}

// listSkills returns the skills the server serves, sorted by URI (what
// skills/list answers: skills are visible to every caller).
func (s *Server) listSkills() []Skill {
	set := s.skills.set.Load()
	if set == nil {
		return nil
	}
	return set.skills
}

// getSkill returns the skill whose SKILL.md is uri. An unknown URI is an
// *[Error] with [CodeInvalidParams] and {"uri": uri} as data.
func (s *Server) getSkill(ctx context.Context, auth any, uri string) (Skill, error) {
	if set := s.skills.set.Load(); set != nil {
		if i, ok := set.byURI[uri]; ok {
			return set.skills[i], nil
		}
	}
	return Skill{}, &Error{Code: CodeInvalidParams, Message: "Invalid params: no skill has the URI " + strictjson.Quote(uri) +
		" (skills/list lists them; a skill's URI is its SKILL.md)", Data: map[string]string{"uri": dataURI(uri)}}
}

// readSkillDirectory returns the direct children of a directory of the
// served skills (skill://demo-skill, skill://demo-skill/references, …):
// files as their resources, subdirectories with MIME type
// directoryMIMEType, sorted by URI. A URI that is not such a directory
// (a file, or nothing) is an *[Error] with [CodeInvalidParams].
func (s *Server) readSkillDirectory(ctx context.Context, auth any, uri string) ([]Resource, error) {
	set := s.skills.set.Load()
	var nodes []dirNode
	if set != nil {
		nodes = set.dirs[strings.TrimSuffix(uri, "/")]
	}
	if nodes == nil {
		return nil, &Error{Code: CodeInvalidParams, Message: "Invalid params: " + strictjson.Quote(uri) +
			" is not a directory of this server's skills (a skill's directory is its SKILL.md URI without /SKILL.md)",
			Data: map[string]string{"uri": dataURI(uri)}}
	}
	out := make([]Resource, len(nodes))
	for i, n := range nodes {
		if n.dir {
			out[i] = Resource{URI: n.uri, Name: path.Base(n.uri), MIMEType: directoryMIMEType}
		} else {
			out[i] = n.res
		}
	}
	return out, nil
}

// loadedSkill is a skill read from a file system, not yet registered.
type loadedSkill struct {
	skill Skill
	files []Resource
}

// loadSkills finds and reads every skill of fsys, checking each.
func loadSkills(fsys fs.FS) ([]loadedSkill, error) {
	// Pass 1: the skill directories.
	var dirs []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "SKILL.md" {
			if !d.Type().IsRegular() {
				return fmt.Errorf("%w: %s is not a regular file (a link, a device): a skill's files are served as they are, so links are refused", ErrInvalidSkill, p)
			}
			dir := path.Dir(p)
			if dir == "." {
				return fmt.Errorf("%w: SKILL.md is at the root of the file system: put each skill in a directory named after it and pass the parent (fs.Sub)", ErrInvalidSkill)
			}
			for _, o := range dirs {
				if strings.HasPrefix(dir, o+"/") {
					return fmt.Errorf("%w: %s is inside skill %s: a skill's directory is all one skill", ErrInvalidSkill, p, o)
				}
			}
			dirs = append(dirs, dir)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: no directory holds a SKILL.md", ErrNoSkills)
	}
	out := make([]loadedSkill, 0, len(dirs))
	for _, dir := range dirs {
		ls, err := loadSkill(fsys, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, ls)
	}
	return out, nil
}

// loadSkill reads the skill in dir: its SKILL.md and every file below.
func loadSkill(fsys fs.FS, dir string) (loadedSkill, error) {
	md, err := readSkillFile(fsys, dir+"/SKILL.md", skill.MaxBytes)
	if err != nil {
		return loadedSkill{}, err
	}
	fm, raw, err := parseFrontmatter(md)
	if err != nil {
		return loadedSkill{}, fmt.Errorf("%w: %s/SKILL.md: %v", ErrInvalidSkill, dir, err)
	}
	name, description, err := checkFrontmatter(fm, path.Base(dir))
	if err != nil {
		return loadedSkill{}, fmt.Errorf("%w: %s/SKILL.md: %v", ErrInvalidSkill, dir, err)
	}
	base := "skill://" + escapePath(dir)
	sk := Skill{URI: base + "/SKILL.md", Frontmatter: raw, Name: name, Description: description}
	var files []Resource
	var total int64
	err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// A link may point anywhere the server's process can read (a
			// key, a credentials file): a skill's directory from elsewhere
			// (a cloned repository) would serve it to every client.
			return fmt.Errorf("%w: %s is a symbolic link: a skill's files must be regular files in its directory (links are not served; copy the file)", ErrInvalidSkill, p)
		}
		if !d.Type().IsRegular() {
			return nil // a device, a pipe, a socket: not served
		}
		if len(files) == skill.MaxFiles {
			return fmt.Errorf("%w: skill %s has more than %d files", ErrInvalidSkill, dir, skill.MaxFiles)
		}
		b, err := readSkillFile(fsys, p, skill.MaxBytes-total)
		if err != nil {
			return err
		}
		total += int64(len(b))
		rel := strings.TrimPrefix(p, dir+"/")
		sum := sha256.Sum256(b)
		r := Resource{URI: base + "/" + escapePath(rel), Name: p, MIMEType: skillMIME(rel, b), Size: int64(len(b)), Load: fileLoader(b)}
		if rel == "SKILL.md" {
			r.Name, r.Description = name, description
		}
		files = append(files, r)
		sk.Resources = append(sk.Resources, SkillFile{URI: r.URI, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(b))})
		return nil
	})
	if err != nil {
		return loadedSkill{}, err
	}
	return loadedSkill{skill: sk, files: files}, nil
}

// errSkillTooLarge is a skill file read past what is left of
// [skill.MaxBytes].
var errSkillTooLarge = fmt.Errorf("%w: the skill is over %d bytes", ErrInvalidSkill, skill.MaxBytes)

// readSkillFile reads the regular file p of a skill, at most limit bytes:
// its size is checked before it is read, and the read stops past limit (a
// file that grows, or whose size the file system does not know), so a
// huge file costs nothing. A link, or anything but a regular file, is
// refused.
func readSkillFile(fsys fs.FS, p string, limit int64) ([]byte, error) {
	fi, err := fs.Lstat(fsys, p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (a link, a device): links are not served", ErrInvalidSkill, p)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w (%s)", errSkillTooLarge, p)
	}
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w (%s)", errSkillTooLarge, p)
	}
	return b, nil
}

// fileLoader serves b: text when it is UTF-8, a blob otherwise.
func fileLoader(b []byte) func(context.Context, *Context) ([]ResourceContents, error) {
	text := utf8.Valid(b)
	return func(context.Context, *Context) ([]ResourceContents, error) {
		if text {
			return []ResourceContents{{Text: string(b)}}, nil
		}
		return []ResourceContents{{Blob: b}}, nil
	}
}

// skillMIME is a file's MIME type: by its extension (text/markdown for
// .md, SKILL.md included; the system's table for an extension not in
// extensionTypes), else text/plain or application/octet-stream by
// content.
func skillMIME(name string, b []byte) string {
	if t := mimetype.ByExtension(path.Ext(name), true); t != "" {
		return t
	}
	if utf8.Valid(b) {
		return "text/plain"
	}
	return "application/octet-stream"
}

// escapePath percent-encodes each segment of a slash-separated path so
// that it is a valid URI path, and its first segment a valid RFC 3986
// reg-name: everything but unreserved characters and sub-delims.
func escapePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '/', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~!$&'()*+,;=", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// parseFrontmatter returns the YAML frontmatter of a SKILL.md as a map
// for checkFrontmatter and as the JSON skills/list carries
// ([skill.ParseFrontmatter], the parser a host compares with). Numbers
// stay json.Number, so the map encodes back to the same JSON.
func parseFrontmatter(md []byte) (map[string]any, json.RawMessage, error) {
	raw, err := skill.ParseFrontmatter(md)
	if err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var fm map[string]any
	if err := dec.Decode(&fm); err != nil {
		return nil, nil, fmt.Errorf("the frontmatter has no JSON form: %v", err)
	}
	return fm, raw, nil
}

// checkFrontmatter applies the rules of SEP-2640 and the Agent Skills
// format to a parsed frontmatter: name (the naming rule, equal to the
// skill's directory), description (1 to 1024 characters), metadata (a
// mapping with no key under the reserved io.modelcontextprotocol/ prefix).
func checkFrontmatter(fm map[string]any, dirName string) (name, description string, err error) {
	name, _ = fm["name"].(string)
	switch {
	case name == "":
		return "", "", errors.New("the frontmatter needs a name (a string)")
	case !skill.ValidName(name):
		return "", "", fmt.Errorf("name %s breaks the naming rule: 1 to 64 characters of a-z, 0-9 and -, not starting or ending with -, no --", strictjson.Quote(name))
	case name != dirName:
		return "", "", fmt.Errorf("name %s differs from its directory %s: the skill's URI ends with its directory, which must be its name", strictjson.Quote(name), strictjson.Quote(dirName))
	}
	description, _ = fm["description"].(string)
	switch n := utf8.RuneCountInString(description); {
	case strings.TrimSpace(description) == "":
		return "", "", errors.New("the frontmatter needs a description (a non-empty string): it tells the model when to use the skill")
	case n > 1024:
		return "", "", fmt.Errorf("the description is %d characters, over 1024", n)
	}
	if md, ok := fm["metadata"]; ok && md != nil {
		m, ok := md.(map[string]any)
		if !ok {
			return "", "", errors.New("metadata must be a mapping")
		}
		for k := range m {
			if strings.HasPrefix(k, "io.modelcontextprotocol/") {
				return "", "", fmt.Errorf("metadata key %s is under io.modelcontextprotocol/, which is reserved for MCP extensions", strictjson.Quote(k))
			}
		}
	}
	return name, description, nil
}
