// Package schemacheck validates server.json documents against the
// registry's published schema shipped in ../testdata/registry, for the
// tests of package serverjson and of the mcpchain command. It uses
// github.com/google/jsonschema-go, which reads the schema's draft-07.
package schemacheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/google/jsonschema-go/jsonschema"
)

// Path is the shipped schema's path on this machine (found from this
// file's, so any test of the module can read it).
func Path() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "registry", "server.schema.json")
}

// Load reads and resolves the schema at path.
func Load(path string) (*jsonschema.Resolved, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s.Resolve(nil)
}

// Check validates the JSON document doc against rs.
func Check(rs *jsonschema.Resolved, doc []byte) error {
	var v any
	d := json.NewDecoder(bytes.NewReader(doc))
	if err := d.Decode(&v); err != nil {
		return err
	}
	return rs.Validate(v)
}
