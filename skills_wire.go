package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// skillJSON is a Skill as encoding/json sees it, without its methods.
type skillJSON Skill

// MarshalJSON encodes the entry as skills/list sends it; a Dynamic one
// has "resources": "dynamic".
func (s Skill) MarshalJSON() ([]byte, error) {
	if !s.Dynamic {
		return json.Marshal(skillJSON(s))
	}
	return json.Marshal(struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   string          `json:"resources"`
	}{s.URI, s.Frontmatter, "dynamic"})
}

// UnmarshalJSON reads an entry leniently, as a client takes what a
// well-meaning server sends: members it does not know are ignored, Name
// and Description come from the frontmatter, a size sent as 12.0 is 12,
// and a file entry that is not an object with a URI is left out (so that
// a read of that file fails verification rather than the whole list).
func (s *Skill) UnmarshalJSON(data []byte) error {
	var w struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*s = Skill{URI: w.URI}
	if fm := bytes.TrimSpace(w.Frontmatter); len(fm) > 0 && fm[0] == '{' {
		s.Frontmatter = append(json.RawMessage(nil), fm...)
		var named struct {
			Name        any `json:"name"`
			Description any `json:"description"`
		}
		_ = json.Unmarshal(fm, &named)
		s.Name, _ = named.Name.(string)
		s.Description, _ = named.Description.(string)
	}
	var dynamic string
	if json.Unmarshal(w.Resources, &dynamic) == nil {
		s.Dynamic = dynamic == "dynamic"
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(w.Resources, &items) != nil {
		return nil
	}
	for _, it := range items {
		var f struct {
			URI    string      `json:"uri"`
			Digest string      `json:"digest"`
			Size   json.Number `json:"size"`
		}
		if json.Unmarshal(it, &f) != nil || f.URI == "" {
			continue
		}
		size := int64(-1) // unknown: no read matches it
		if n, err := strconv.ParseInt(string(f.Size), 10, 64); err == nil {
			size = n
		} else if x, err := strconv.ParseFloat(string(f.Size), 64); err == nil && x >= 0 && x == float64(int64(x)) {
			size = int64(x)
		}
		s.Resources = append(s.Resources, SkillFile{URI: f.URI, Digest: f.Digest, Size: size})
	}
	return nil
}
