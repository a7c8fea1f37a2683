// Package strictjson checks JSON from outside before anything recursive or
// case-insensitive touches it.
//
// [Check] is a single linear pass that accepts exactly what json.Valid
// accepts, and in the same pass refuses input nested deeper than a limit
// (so a 20 KB argument of 10,000 nested arrays costs nothing beyond the
// scan) and objects with a duplicate member name (encoding/json lets the
// last one win, so a gateway reading the first sees another value than the
// code that runs).
//
// [Unmarshal] is json.Unmarshal that also refuses a member whose name
// matches a struct field only case-insensitively ({"Name": …} for a field
// tagged "name"): encoding/json would accept it, and a policy that reads
// params.name would see a different value from the one that runs.
package strictjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxDepth is the nesting limit callers use when they have no
// configured one: deep enough for any real MCP message (the envelope,
// params and arguments take three levels; a JSON Schema in an elicitation
// request a few more), far below encoding/json's 10,000.
const DefaultMaxDepth = 64

// maxQuoted bounds how much of an offending name an error quotes, so that
// attacker input is never reflected in full.
const maxQuoted = 128

// SyntaxError means the input is not one valid JSON value.
type SyntaxError struct {
	Offset int // byte offset of the error
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return "invalid JSON at byte " + strconv.Itoa(e.Offset)
}

// DepthError means the input nests objects and arrays deeper than allowed.
type DepthError struct {
	Limit  int // the nesting limit
	Offset int // byte offset of the first container past the limit
}

// Error implements error.
func (e *DepthError) Error() string {
	return fmt.Sprintf("JSON nested deeper than %d levels (at byte %d)", e.Limit, e.Offset)
}

// DuplicateError means an object names the same member twice.
type DuplicateError struct {
	Name   string // the member name, cut to 128 bytes
	Offset int    // byte offset of the second occurrence
	Depth  int    // nesting depth of the object (1 for the outermost)
}

// Error implements error.
func (e *DuplicateError) Error() string {
	return fmt.Sprintf("duplicate member %s: member names must be unique", Quote(e.Name))
}

// Check reports whether data is one valid JSON value (surrounded by
// optional white space) nested at most maxDepth levels deep (a value
// inside no container is level 0; maxDepth <= 0 means [DefaultMaxDepth])
// whose objects have no duplicate member names. The error is a
// *SyntaxError, a *DepthError or a *DuplicateError; a syntax or depth error
// wins over a duplicate found earlier in the input.
func Check(data []byte, maxDepth int) error {
	if maxDepth <= 0 {
		maxDepth = DefaultMaxDepth
	}
	c := checker{data: data, max: maxDepth}
	c.ws()
	if !c.value(0) {
		return c.fail()
	}
	c.ws()
	if c.pos != len(c.data) {
		return &SyntaxError{Offset: c.pos}
	}
	if c.dup != nil {
		return c.dup
	}
	return nil
}

type checker struct {
	data []byte
	pos  int
	max  int
	// high is set by str when the string it read has a byte of 0x80 or
	// more (not ASCII: a name that may not decode to itself).
	high  bool
	depth *DepthError
	dup   *DuplicateError
	// names[:n] holds the member names of the objects being checked, the
	// innermost object's last; each object compares a name only with its
	// own, from the index it started at. They are kept here, in Check's
	// frame, rather than in object's: with an array of names in each
	// frame, a level of nesting took 1 KB of stack, and the three levels
	// of a tools/call were the deepest point of the request. An object
	// whose names do not fit (more than smallObject, or no room left)
	// keeps them in a map.
	names [2 * smallObject][]byte
	n     int
}

func (c *checker) fail() error {
	if c.depth != nil {
		return c.depth
	}
	return &SyntaxError{Offset: c.pos}
}

func (c *checker) ws() {
	for c.pos < len(c.data) {
		switch c.data[c.pos] {
		case ' ', '\t', '\r', '\n':
			c.pos++
		default:
			return
		}
	}
}

// value checks one value at nesting level depth; recursion is bounded by
// the limit, so the Go stack stays small whatever the input.
func (c *checker) value(depth int) bool {
	if c.pos >= len(c.data) {
		return false
	}
	switch b := c.data[c.pos]; {
	case b == '{' || b == '[':
		if depth >= c.max {
			c.depth = &DepthError{Limit: c.max, Offset: c.pos}
			return false
		}
		if b == '{' {
			return c.object(depth + 1)
		}
		return c.array(depth + 1)
	case b == '"':
		_, ok := c.str()
		return ok
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number()
	case b == 't':
		return c.lit("true")
	case b == 'f':
		return c.lit("false")
	case b == 'n':
		return c.lit("null")
	}
	return false
}

func (c *checker) lit(s string) bool {
	if !bytes.HasPrefix(c.data[c.pos:], []byte(s)) {
		return false
	}
	c.pos += len(s)
	return true
}

func (c *checker) digits() int {
	n := 0
	for c.pos < len(c.data) && c.data[c.pos] >= '0' && c.data[c.pos] <= '9' {
		c.pos++
		n++
	}
	return n
}

func (c *checker) number() bool {
	if c.data[c.pos] == '-' {
		c.pos++
	}
	if c.pos >= len(c.data) {
		return false
	}
	if c.data[c.pos] == '0' {
		c.pos++
	} else if c.digits() == 0 {
		return false
	}
	if c.pos < len(c.data) && c.data[c.pos] == '.' {
		c.pos++
		if c.digits() == 0 {
			return false
		}
	}
	if c.pos < len(c.data) && (c.data[c.pos] == 'e' || c.data[c.pos] == 'E') {
		c.pos++
		if c.pos < len(c.data) && (c.data[c.pos] == '+' || c.data[c.pos] == '-') {
			c.pos++
		}
		if c.digits() == 0 {
			return false
		}
	}
	return true
}

// str checks a string and returns its raw bytes between the quotes.
func (c *checker) str() ([]byte, bool) {
	c.pos++ // the opening quote
	start := c.pos
	var acc byte // every byte ORed: its high bit says whether one was not ASCII
	for c.pos < len(c.data) {
		switch b := c.data[c.pos]; {
		case b == '"':
			raw := c.data[start:c.pos]
			c.pos++
			c.high = acc >= 0x80
			return raw, true
		case b == '\\':
			c.pos++
			if c.pos >= len(c.data) {
				return nil, false
			}
			switch c.data[c.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.pos++
			case 'u':
				c.pos++
				for i := 0; i < 4; i++ {
					if c.pos >= len(c.data) || !isHex(c.data[c.pos]) {
						return nil, false
					}
					c.pos++
				}
			default:
				return nil, false
			}
		case b < 0x20:
			return nil, false
		default:
			acc |= b
			c.pos++
		}
	}
	return nil, false
}

func isHex(b byte) bool {
	return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F')
}

func (c *checker) array(depth int) bool {
	c.pos++
	c.ws()
	if c.pos < len(c.data) && c.data[c.pos] == ']' {
		c.pos++
		return true
	}
	for {
		c.ws()
		if !c.value(depth) {
			return false
		}
		c.ws()
		if c.pos >= len(c.data) {
			return false
		}
		switch c.data[c.pos] {
		case ',':
			c.pos++
		case ']':
			c.pos++
			return true
		default:
			return false
		}
	}
}

// smallObject is how many names an object may have before duplicate
// detection switches from a linear scan to a map.
const smallObject = 16

func (c *checker) object(depth int) bool {
	start := c.n
	ok := c.members(depth, start)
	c.n = start
	return ok
}

// members checks an object's members, the opening brace being at c.pos;
// the object's names go to c.names from index start on.
func (c *checker) members(depth, start int) bool {
	c.pos++
	c.ws()
	if c.pos < len(c.data) && c.data[c.pos] == '}' {
		c.pos++
		return true
	}
	var big map[string]struct{} // the names, once there are more than smallObject
	for {
		c.ws()
		if c.pos >= len(c.data) || c.data[c.pos] != '"' {
			return false
		}
		at := c.pos
		raw, ok := c.str()
		if !ok {
			return false
		}
		if c.dup == nil {
			// The name as encoding/json decodes it: escapes resolved, and
			// each byte that is not valid UTF-8 read as U+FFFD, so that two
			// names it would conflate ("\xaf" and "\x8d") are duplicates.
			name := raw
			if c.high || bytes.IndexByte(raw, '\\') >= 0 {
				name = unescape(c.data[at:c.pos])
			}
			seen := false
			if big != nil {
				_, seen = big[string(name)]
				big[string(name)] = struct{}{}
			} else {
				own := c.names[start:c.n]
				for _, prev := range own {
					if bytes.Equal(prev, name) {
						seen = true
						break
					}
				}
				if len(own) < smallObject && c.n < len(c.names) {
					c.names[c.n] = name
					c.n++
				} else {
					big = nameSet(own, name)
				}
			}
			if seen {
				c.dup = &DuplicateError{Name: truncate(string(name)), Offset: at, Depth: depth}
			}
		}
		c.ws()
		if c.pos >= len(c.data) || c.data[c.pos] != ':' {
			return false
		}
		c.pos++
		c.ws()
		if !c.value(depth) {
			return false
		}
		c.ws()
		if c.pos >= len(c.data) {
			return false
		}
		switch c.data[c.pos] {
		case ',':
			c.pos++
		case '}':
			c.pos++
			return true
		default:
			return false
		}
	}
}

// nameSet returns the set of names and name.
func nameSet(names [][]byte, name []byte) map[string]struct{} {
	set := make(map[string]struct{}, 2*len(names))
	for _, n := range names {
		set[string(n)] = struct{}{}
	}
	set[string(name)] = struct{}{}
	return set
}

// unescape decodes a quoted JSON string already checked by str.
func unescape(quoted []byte) []byte {
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return quoted
	}
	return []byte(s)
}

func truncate(s string) string {
	if len(s) <= maxQuoted {
		return s
	}
	return s[:cutAt(s, maxQuoted)] + "…"
}

// MaxQuoted is how many bytes of a client's value [Quote] and [Clip] keep.
const MaxQuoted = maxQuoted

// Quote quotes s for an error message or a log line: at most 128 bytes of
// it (cut at a character boundary, then "…"), with every invalid UTF-8
// byte (\xff), every control or non-printing character and every
// U+FFFD (\ufffd) escaped, so that the result is printable ASCII plus
// graphic characters and nothing after a replacement character or a
// terminal escape disappears from the reader's view (some log handlers,
// tint among them, stop at the first U+FFFD).
func Quote(s string) string {
	cut := len(s) > maxQuoted
	if cut {
		s = s[:cutAt(s, maxQuoted)]
	}
	q := strconv.QuoteToGraphic(s)
	if strings.ContainsRune(q, utf8.RuneError) {
		q = strings.ReplaceAll(q, string(utf8.RuneError), `\ufffd`)
	}
	if cut {
		q += "…"
	}
	return q
}

// ForLog is s as a log attribute's value: s itself when it is at most
// 128 bytes of printable ASCII without quotes or backslashes (a session
// ID, a method name, a number), else [Quote] of it. A client's value in a
// log line is then never longer than about 130 bytes, and never holds an
// invalid byte, a control character or a U+FFFD behind which a log
// handler would hide the rest.
func ForLog(s string) string {
	if len(s) > maxQuoted {
		return Quote(s)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return Quote(s)
		}
	}
	return s
}

// ForLogBytes is [ForLog] of b; it copies no more of b than it keeps.
func ForLogBytes(b []byte) string {
	return ForLog(string(b[:min(len(b), maxQuoted+1)]))
}

// QuoteBytes is [Quote] of b; it copies no more of b than it keeps.
func QuoteBytes(b []byte) string {
	return Quote(string(b[:min(len(b), maxQuoted+1)]))
}

// Clip cuts s to at most n bytes (n <= 0: 128) at a character boundary
// and marks the cut with "…". Use it on a whole message that may embed a
// client's value, when the parts cannot be quoted one by one (a
// validation library's error); JSON encoding then escapes what needs it.
func Clip(s string, n int) string {
	if n <= 0 {
		n = maxQuoted
	}
	if len(s) <= n {
		return s
	}
	return s[:cutAt(s, n)] + "…"
}

// cutAt returns the index at most n at which to cut s: the start of the
// character that straddles n, unless the bytes before n are not UTF-8
// (then n itself).
func cutAt(s string, n int) int {
	for i := n; i > 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			return i
		}
	}
	return n
}
