// Package toolname holds the MCP tool-name rule, which package mcp
// applies when a tool is registered and packages toolsearch and codemode
// apply to the tool names of their options.
package toolname

// Valid reports whether name follows the MCP tool-name rule (2025-11-25):
// 1 to 128 characters, each one of A-Z, a-z, 0-9, underscore, hyphen or
// dot. A loop, not a regexp: a package-level regexp is compiled at init
// by every program that links this package.
func Valid(name string) bool {
	if len(name) == 0 || len(name) > 128 {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}
