module github.com/mcpchain/mcp/openapi

go 1.26.0

toolchain go1.26.11

replace github.com/mcpchain/mcp => ..

require github.com/mcpchain/mcp v0.0.0-00010101000000-000000000000

require (
	github.com/getkin/kin-openapi v0.153.0
	github.com/google/jsonschema-go v0.4.3
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/go-openapi/jsonpointer v1.0.0 // indirect
	github.com/justinas/alice v1.2.0 // indirect
	github.com/lmittmann/tint v1.2.1 // indirect
	github.com/rs/cors v1.11.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)
