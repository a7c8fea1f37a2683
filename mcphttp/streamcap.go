package mcphttp

import (
	"fmt"
	"net/http"
	"sync"
)

// streamCap counts long-lived streams that hold no session slot of their
// own (subscriptions/listen streams, legacy SSE streams before their
// initialize) by client (clientKey), so that one client cannot take every
// stream the server allows: against Options.MaxSessionsPerClient per
// client and, when max is set, Options.MaxSessions in all.
type streamCap struct {
	mu    sync.Mutex
	total int
	per   map[string]int
}

// streamRefusal is why take refused a stream: the HTTP status and the
// message (naming the option) to send.
type streamRefusal struct {
	status int
	msg    string
}

// take counts a stream of client key ("" is not counted per client)
// unless that would pass max streams in all (max <= 0: not checked) or
// perClient for the client (<= 0: not checked).
func (s *streamCap) take(key string, what string, max, perClient int) *streamRefusal {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case max > 0 && s.total >= max:
		return &streamRefusal{http.StatusServiceUnavailable, fmt.Sprintf(
			"Service Unavailable: %d %s are open, the limit (mcphttp.Options.MaxSessions); retry later", max, what)}
	case key != "" && perClient > 0 && s.per[key] >= perClient:
		return &streamRefusal{http.StatusTooManyRequests, fmt.Sprintf(
			"Too Many Requests: this client holds %d %s, the limit per client (mcphttp.Options.MaxSessionsPerClient); close one or retry later", perClient, what)}
	}
	s.total++
	if key != "" {
		if s.per == nil {
			s.per = map[string]int{}
		}
		s.per[key]++
	}
	return nil
}

// give uncounts a stream take counted.
func (s *streamCap) give(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total--
	if key != "" {
		if s.per[key]--; s.per[key] <= 0 {
			delete(s.per, key)
		}
	}
}
