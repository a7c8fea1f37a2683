// Package middleware holds the http.Handler middleware of an MCP server,
// one idea per file, each a func(http.Handler) http.Handler that composes
// with github.com/justinas/alice and works alone. The same chain serves
// Streamable HTTP, stdio and embedded sessions, so a middleware written
// once sees every transport.
package middleware
