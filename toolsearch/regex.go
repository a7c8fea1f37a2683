package toolsearch

import (
	"context"
	"fmt"
	"regexp"
	"regexp/syntax"
	"time"
)

// The regular expression mode. Go's regexp runs in time linear in the
// text (RE2: no backtracking), so no pattern can hang a search; what a
// pattern can still cost is bounded three ways: its length
// (maxPatternBytes), the size of its compiled program (maxPatternInsts:
// a short pattern with counted repeats, a{1000}, compiles to thousands of
// instructions, and matching costs the text's length times those), and
// the time one search may take (regexBudget), after which the matches
// found so far are returned with a note.

const (
	// maxPatternBytes bounds a pattern (the limit Anthropic's regex tool
	// search sets too).
	maxPatternBytes = 200
	// maxPatternInsts bounds the compiled program of a pattern.
	maxPatternInsts = 1000
	// regexBudget bounds the time of one regular expression search.
	regexBudget = 250 * time.Millisecond
)

// compilePattern compiles a pattern the model sent, case-insensitive,
// or returns an error the model can act on.
func compilePattern(p string) (*regexp.Regexp, error) {
	if len(p) > maxPatternBytes {
		return nil, fmt.Errorf("the pattern is %d bytes long; at most %d", len(p), maxPatternBytes)
	}
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return nil, fmt.Errorf("the pattern is not a regular expression (RE2 syntax, as Go's regexp reads it): %v", err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, fmt.Errorf("the pattern is not a regular expression: %v", err)
	}
	if len(prog.Inst) > maxPatternInsts {
		return nil, fmt.Errorf("the pattern is too complex (its counted repeats expand to %d steps; at most %d): use fewer or smaller repeats", len(prog.Inst), maxPatternInsts)
	}
	return regexp.Compile("(?i)" + p)
}

// regexSearch returns up to limit tools of s that re matches, tools whose
// name matches first, then those whose title or description does, then
// those whose arguments or tags do, each group in list order. stopped is
// true when the budget (regexBudget for a search tool call) or ctx ended
// the search before every tool was tried.
func (s *snapshot) regexSearch(ctx context.Context, re *regexp.Regexp, limit int, budget time.Duration) (hits []int, stopped bool) {
	if limit <= 0 {
		return nil, false
	}
	deadline := time.Now().Add(budget)
	taken := make(map[int]bool)
	for tier := range 3 {
		for i, d := range s.docs {
			if ctx.Err() != nil || time.Now().After(deadline) {
				return hits, true
			}
			if taken[i] {
				continue
			}
			var text string
			switch tier {
			case 0:
				text = d.reName
			case 1:
				text = d.reText
			default:
				text = d.reArgs
			}
			if re.MatchString(text) {
				hits = append(hits, i)
				taken[i] = true
				if len(hits) == limit {
					return hits, false
				}
			}
		}
	}
	return hits, false
}
