module github.com/mcpchain/mcp/internal/cli

go 1.26.0

toolchain go1.26.11

replace github.com/mcpchain/mcp => ../..

require github.com/mcpchain/mcp v0.0.0-00010101000000-000000000000

require (
	github.com/fsnotify/fsnotify v1.10.1
	github.com/google/jsonschema-go v0.4.3
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5
)

require (
	github.com/justinas/alice v1.2.0 // indirect
	github.com/lmittmann/tint v1.2.1 // indirect
	github.com/rs/cors v1.11.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
