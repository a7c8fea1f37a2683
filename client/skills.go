package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/skill"
)

// skillFile returns the file uri as sk lists it.
func skillFile(sk *mcp.Skill, uri string) (mcp.SkillFile, bool) {
	for _, f := range sk.Resources {
		if f.URI == uri {
			return f, true
		}
	}
	return mcp.SkillFile{}, false
}

// ListSkills returns every skill of the server (skills/list), following
// pagination. It reads none of their files: a host loads a skill when it
// needs it ([Client.LoadSkill]), as SEP-2640 requires.
func (c *Client) ListSkills(ctx context.Context) ([]mcp.Skill, error) {
	return list[mcp.Skill](ctx, c, "skills/list", "skills")
}

// GetSkill returns the entry of the skill whose SKILL.md is uri
// (skills/get). An unknown URI is the server's *mcp.Error with code -32602.
func (c *Client) GetSkill(ctx context.Context, uri string) (*mcp.Skill, error) {
	var res struct {
		Skill *mcp.Skill `json:"skill"`
	}
	if err := c.call(ctx, "skills/get", map[string]string{"uri": uri}, &res); err != nil {
		return nil, err
	}
	if res.Skill == nil {
		return nil, fmt.Errorf("mcp client: skills/get from %s answered without a skill", c.serverName())
	}
	return res.Skill, nil
}

// SkillIntegrityError is the error of a skill file whose content differs
// from the skill's entry: its size, its digest, or (SKILL.md) its
// frontmatter; or a file the entry does not list. The content is not
// returned: SEP-2640 forbids using unverified content.
type SkillIntegrityError struct {
	// Skill is the skill's URI (its SKILL.md), File the file read.
	Skill, File string
	// Check is what differed: "size", "digest", "frontmatter", or
	// "listing" (the entry lists no such file).
	Check string
	// Want is what the entry says, Got what the server sent (for
	// "frontmatter": the fields that differ, with both values).
	Want, Got string
}

func (e *SkillIntegrityError) Error() string {
	if e.Check == "listing" {
		return fmt.Sprintf("mcp client: skill %s lists no file %s; it is not read", e.Skill, e.File)
	}
	return fmt.Sprintf("mcp client: skill file %s fails %s verification: the listing says %s, the server sent %s; the content is not used",
		e.File, e.Check, e.Want, e.Got)
}

// LoadedSkill is a skill whose SKILL.md was read and verified; its other
// files are read, and verified, on demand with ReadFile.
type LoadedSkill struct {
	// Skill is the entry the files are verified against.
	mcp.Skill
	// Content is SKILL.md, verified: what the model reads.
	Content []byte

	c *Client
}

// LoadSkill reads sk's SKILL.md and verifies it against sk (an entry of
// [Client.ListSkills] or [Client.GetSkill]): its size, its sha256 digest,
// and that its frontmatter equals the entry's field by field. Any
// difference is a *[SkillIntegrityError] and the skill is not loaded.
// Nothing else is read: the skill's other files wait for
// [LoadedSkill.ReadFile]. A dynamic skill (no files listed) is checked
// by its frontmatter only.
func (c *Client) LoadSkill(ctx context.Context, sk mcp.Skill) (*LoadedSkill, error) {
	md, err := c.readSkillFile(ctx, &sk, sk.URI)
	if err != nil {
		return nil, err
	}
	if err := compareFrontmatter(&sk, md); err != nil {
		return nil, err
	}
	return &LoadedSkill{Skill: sk, Content: md, c: c}, nil
}

// ReadFile reads one file of the skill, by URI or by its path below the
// skill's directory ("references/FORMS.md"), and verifies it against the
// entry like LoadSkill verifies SKILL.md: a file the entry does not list,
// or whose size or digest differs, is a *[SkillIntegrityError] and no
// content. A dynamic skill's files cannot be verified and are returned
// as read.
func (l *LoadedSkill) ReadFile(ctx context.Context, file string) ([]byte, error) {
	uri := file
	if !strings.Contains(file, "://") {
		uri = strings.TrimSuffix(l.URI, "SKILL.md") + strings.TrimPrefix(file, "/")
	}
	return l.c.readSkillFile(ctx, &l.Skill, uri)
}

// readSkillFile reads uri with resources/read and verifies it against
// its entry in sk.
func (c *Client) readSkillFile(ctx context.Context, sk *mcp.Skill, uri string) ([]byte, error) {
	want, listed := skillFile(sk, uri)
	if !listed && !sk.Dynamic {
		return nil, &SkillIntegrityError{Skill: sk.URI, File: uri, Check: "listing"}
	}
	res, err := c.ReadResource(ctx, uri)
	if err != nil {
		return nil, err
	}
	b, err := fileBytes(res, uri)
	if err != nil {
		return nil, fmt.Errorf("mcp client: skill file %s from %s: %w", uri, c.serverName(), err)
	}
	if !listed {
		return b, nil // dynamic: nothing to verify against
	}
	if err := verifyFile(sk.URI, want, b); err != nil {
		return nil, err
	}
	return b, nil
}

// fileBytes is the raw content of a resources/read result: the item for
// uri (or the only one), its text as UTF-8 or its blob.
func fileBytes(res *mcp.ReadResourceResult, uri string) ([]byte, error) {
	var item *mcp.ResourceContents
	for i := range res.Contents {
		if res.Contents[i].URI == uri {
			item = &res.Contents[i]
			break
		}
		if res.Contents[i].URI == "" && item == nil {
			item = &res.Contents[i]
		}
	}
	if item == nil && len(res.Contents) == 1 {
		item = &res.Contents[0]
	}
	if item == nil {
		return nil, fmt.Errorf("the result has %d contents and none for the file", len(res.Contents))
	}
	if item.Blob != nil {
		return item.Blob, nil
	}
	return []byte(item.Text), nil
}

// verifyFile checks b against its entry: the size first (a cheap check
// SEP-2640 counts as a digest mismatch), then the sha256 digest.
func verifyFile(skill string, want mcp.SkillFile, b []byte) error {
	if int64(len(b)) != want.Size {
		return &SkillIntegrityError{Skill: skill, File: want.URI, Check: "size",
			Want: strconv.FormatInt(want.Size, 10) + " bytes", Got: strconv.Itoa(len(b)) + " bytes"}
	}
	sum := sha256.Sum256(b)
	got := "sha256:" + hex.EncodeToString(sum[:])
	if !strings.EqualFold(want.Digest, got) {
		w := want.Digest
		if !strings.HasPrefix(strings.ToLower(w), "sha256:") {
			w = strconv.Quote(w) + " (not a sha256: digest)"
		}
		return &SkillIntegrityError{Skill: skill, File: want.URI, Check: "digest", Want: w, Got: got}
	}
	return nil
}

// compareFrontmatter parses the frontmatter of md and compares it field
// by field with sk's (a missing field equals null).
func compareFrontmatter(sk *mcp.Skill, md []byte) error {
	raw, err := skill.ParseFrontmatter(md)
	if err != nil {
		return &SkillIntegrityError{Skill: sk.URI, File: sk.URI, Check: "frontmatter", Want: "a frontmatter", Got: "none readable (" + err.Error() + ")"}
	}
	var file, entry map[string]any
	_ = json.Unmarshal(raw, &file)
	if len(sk.Frontmatter) == 0 || json.Unmarshal(sk.Frontmatter, &entry) != nil {
		return &SkillIntegrityError{Skill: sk.URI, File: sk.URI, Check: "frontmatter", Want: "no frontmatter object", Got: string(raw)}
	}
	keys := map[string]bool{}
	for k := range file {
		keys[k] = true
	}
	for k := range entry {
		keys[k] = true
	}
	var wants, gots []string
	for k := range keys {
		if !reflect.DeepEqual(file[k], entry[k]) {
			w, _ := json.Marshal(entry[k])
			g, _ := json.Marshal(file[k])
			wants = append(wants, k+"="+string(w))
			gots = append(gots, k+"="+string(g))
		}
	}
	if len(wants) == 0 {
		return nil
	}
	sort.Strings(wants)
	sort.Strings(gots)
	return &SkillIntegrityError{Skill: sk.URI, File: sk.URI, Check: "frontmatter",
		Want: strings.Join(wants, ", "), Got: strings.Join(gots, ", ")}
}
