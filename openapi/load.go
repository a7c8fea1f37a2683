package openapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// MaxSpecBytes bounds the size of a document [Load] accepts.
const MaxSpecBytes = 64 << 20

// Load parses an OpenAPI 3.0 or 3.1 document (YAML or JSON), resolves its
// internal $refs and validates it. External references (other files,
// URLs) are refused: a document given as bytes has no location to resolve
// them against, and fetching them would reach the network at load time.
// Examples are not validated (real-world documents often carry examples
// that do not match their schemas, and they do not change the tools).
func Load(spec []byte) (*openapi3.T, error) { return load(spec, false) }

// LoadLenient is [Load] without the validation of the document: for a
// real-world document that breaks a rule of its version (a "null" type in
// a 3.0 document, say) but is otherwise usable. It still refuses what
// cannot be parsed or resolved.
func LoadLenient(spec []byte) (*openapi3.T, error) { return load(spec, true) }

func load(spec []byte, lenient bool) (*openapi3.T, error) {
	if len(spec) == 0 {
		return nil, errors.New("openapi: empty document")
	}
	if len(spec) > MaxSpecBytes {
		return nil, fmt.Errorf("openapi: document of %d bytes is over the limit of %d", len(spec), MaxSpecBytes)
	}
	l := openapi3.NewLoader()
	l.IsExternalRefsAllowed = false
	doc, err := loadData(l, spec)
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	if doc.OpenAPI == "" {
		return nil, errors.New("openapi: not an OpenAPI 3 document (no \"openapi\" version field)")
	}
	if lenient {
		return doc, nil
	}
	if err := doc.Validate(context.Background(), openapi3.DisableExamplesValidation(),
		openapi3.AllowExtraSiblingFields("description", "example", "examples", "summary", "title", "nullable", "deprecated")); err != nil {
		return nil, fmt.Errorf("openapi: invalid document (LoadLenient, Options.Lenient and GenOptions.Lenient skip this check): %w", err)
	}
	return doc, nil
}

// loadData runs the loader, turning a panic of the parser on hostile
// input into an error (found by FuzzLoad).
func loadData(l *openapi3.Loader, spec []byte) (doc *openapi3.T, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("cannot parse the document: %v", r)
		}
	}()
	return l.LoadFromData(spec)
}
