package openapi

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// FuzzLoad: no document makes Load (or the planning of its operations)
// panic or hang; what it refuses is an error.
func FuzzLoad(f *testing.F) {
	// Small seeds: the fuzzer minimizes each new input it finds, one run
	// per byte removed, so a large seed (the Petstore) spends the budget
	// there.
	f.Add([]byte(schemaSpec))
	f.Add([]byte("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {/a: {get: {responses: {'200': {description: ok}}}}}\n"))
	f.Add([]byte(`{"openapi":"3.0.0","info":{"title":"t","version":"1"},"paths":{"/{a}":{"parameters":[{"$ref":"#/components/parameters/x"}]}}}`))
	f.Add([]byte("openapi: 3.0.0\ncomponents: {schemas: {A: {$ref: '#/components/schemas/A'}}}\n"))
	f.Fuzz(func(t *testing.T, spec []byte) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			loadAndPlan(t, spec)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			buf := make([]byte, 1<<20)
			t.Fatalf("hang on %q:\n%s", spec, buf[:runtime.Stack(buf, true)])
		}
	})
}

func loadAndPlan(t *testing.T, spec []byte) {
	{
		doc, err := LoadLenient(spec)
		if err != nil {
			return
		}
		ops, err := operations(doc, DefaultBodyKey)
		if err != nil {
			return
		}
		for _, o := range ops {
			if !validName(o.name) {
				t.Fatalf("tool name %q is not a valid MCP tool name", o.name)
			}
		}
		_, _ = GenerateDoc(doc, GenOptions{})
	}
}

func validName(n string) bool {
	if len(n) == 0 || len(n) > 128 {
		return false
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// FuzzBuildRequest: no arguments make building or validating a request
// panic; a failure is an ArgumentError naming an argument.
func FuzzBuildRequest(f *testing.F) {
	doc, err := Load([]byte(schemaSpec))
	if err != nil {
		f.Fatal(err)
	}
	a, err := newAPI(doc, Options{})
	if err != nil {
		f.Fatal(err)
	}
	for i, args := range []string{
		`{"id":7,"header_id":"h 1","q":"xy","name":"a","child":{"name":"b"}}`,
		`{"body":[{"name":"a"}]}`,
		`{"tags":["a","b c"],"filter":{"b":2,"a":"x"},"session":"s1","X-Trace":"t"}`,
		`{"id":"a/b","name":"a"}`,
		`{"id":12345678901234567890}`,
		`null`,
	} {
		f.Add(uint8(i), []byte(args))
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		o := a.ops[int(which)%len(a.ops)]
		args, err := decodeArgs(raw)
		if err != nil {
			return
		}
		req, pp, err := buildRequest(context.Background(), a.base, o, args)
		if err != nil {
			var ae *ArgumentError
			if !errors.As(err, &ae) && req != nil {
				t.Fatalf("%T %v", err, err)
			}
			return
		}
		if err := a.validate(req, o, pp); err != nil {
			var ae *ArgumentError
			if !errors.As(err, &ae) || ae.Arg == "" {
				t.Fatalf("validation error %T %v names no argument", err, err)
			}
		}
	})
}
