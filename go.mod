module github.com/mcpchain/mcp

go 1.26

require (
	github.com/google/jsonschema-go v0.4.3
	github.com/justinas/alice v1.2.0
	github.com/lmittmann/tint v1.2.1
	github.com/rs/cors v1.11.1
	github.com/stretchr/testify v1.12.1
	github.com/yosida95/uritemplate/v3 v3.0.2
	go.uber.org/goleak v1.3.0
)

require go.yaml.in/yaml/v3 v3.0.5 // indirect
