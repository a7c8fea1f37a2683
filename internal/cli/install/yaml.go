package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"go.yaml.in/yaml/v3"
)

// gooseEntry is a stdio extension in Goose's config.yaml.
type gooseEntry struct {
	Name    string            `yaml:"name" json:"name"`
	Type    string            `yaml:"type" json:"type"`
	Cmd     string            `yaml:"cmd" json:"cmd"`
	Args    []string          `yaml:"args" json:"args"`
	Envs    map[string]string `yaml:"envs,omitempty" json:"envs,omitempty"`
	Enabled bool              `yaml:"enabled" json:"enabled"`
	Timeout int               `yaml:"timeout" json:"timeout"`
}

// gooseTimeout is the timeout, in seconds, goose configure writes.
const gooseTimeout = 300

func (c *Client) gooseEntry(s Server) gooseEntry {
	return gooseEntry{Name: s.Name, Type: "stdio", Cmd: s.Command, Args: append([]string{}, s.Args...), Envs: s.Env, Enabled: true, Timeout: gooseTimeout}
}

// shownEntry is the server's entry as the file holds it: indented JSON,
// or YAML for Goose.
func (c *Client) shownEntry(s Server) ([]byte, error) {
	if c.yaml {
		var b bytes.Buffer
		e := yaml.NewEncoder(&b)
		e.SetIndent(2)
		if err := e.Encode(c.gooseEntry(s)); err != nil {
			return nil, err
		}
		return bytes.TrimRight(b.Bytes(), "\n"), e.Close()
	}
	return json.MarshalIndent(c.Entry(s), "", "  ")
}

// document reads a YAML file as a node tree: a document whose content is
// a mapping (created for an empty file).
func document(file []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(file, &doc); err != nil {
		return nil, fmt.Errorf("not valid YAML (it was not changed): %w", err)
	}
	// A file whose node tree parses but whose values do not decode (an
	// alias that contains itself) is no configuration goose reads.
	var v any
	if err := doc.Decode(&v); doc.Kind != 0 && err != nil {
		return nil, fmt.Errorf("not valid YAML (it was not changed): %w", err)
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("not a YAML mapping (it was not changed)")
	}
	return &doc, nil
}

// value returns the value node of key in mapping m (nil when absent).
func value(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// mergeYAML sets the server's entry under c.Key, keeping every other key,
// entry and comment (the file is re-encoded: its indentation becomes two
// spaces).
func (c *Client) mergeYAML(file []byte, s Server) ([]byte, error) {
	doc, err := document(file)
	if err != nil {
		return nil, err
	}
	var entry yaml.Node
	if err := entry.Encode(c.gooseEntry(s)); err != nil {
		return nil, err
	}
	top := doc.Content[0]
	exts := value(top, c.Key)
	switch {
	case exts == nil:
		exts = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: c.Key}, exts)
	case exts.Kind == yaml.ScalarNode && exts.Tag == "!!null":
		*exts = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	case exts.Kind != yaml.MappingNode:
		return nil, fmt.Errorf("%q is not a mapping (it was not changed)", c.Key)
	}
	if old := value(exts, s.Name); old != nil {
		*old = entry
	} else {
		exts.Content = append(exts.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s.Name}, &entry)
	}
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(doc); err != nil {
		return nil, err
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// hasYAML reports whether file already holds exactly the server's entry.
// The entry is found in the node tree, as mergeYAML finds it: decoded
// whole, a mapping with a key that is not a string (an extension named 0)
// becomes a map[any]any, where the entry would not be seen.
func (c *Client) hasYAML(file []byte, s Server) bool {
	doc, err := document(file)
	if err != nil {
		return false
	}
	exts := value(doc.Content[0], c.Key)
	if exts == nil || exts.Kind != yaml.MappingNode {
		return false
	}
	node := value(exts, s.Name)
	if node == nil {
		return false
	}
	var cur any
	if node.Decode(&cur) != nil {
		return false
	}
	b, err := yaml.Marshal(c.gooseEntry(s))
	if err != nil {
		return false
	}
	var want any
	_ = yaml.Unmarshal(b, &want)
	return reflect.DeepEqual(cur, want)
}

// serversYAML reads the entries under c.Key, in order, each as JSON.
func (c *Client) serversYAML(file []byte) ([]member, error) {
	doc, err := document(file)
	if err != nil {
		return nil, err
	}
	exts := value(doc.Content[0], c.Key)
	if exts == nil || exts.Kind != yaml.MappingNode {
		return nil, nil
	}
	var out []member
	for i := 0; i+1 < len(exts.Content); i += 2 {
		var v any
		if err := exts.Content[i+1].Decode(&v); err != nil {
			return nil, fmt.Errorf("%q: %w", exts.Content[i].Value, err)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", exts.Content[i].Value, err)
		}
		out = append(out, member{exts.Content[i].Value, raw})
	}
	return out, nil
}
