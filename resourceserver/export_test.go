package resourceserver

import (
	"strconv"
	"time"
)

// FillDPoPReplayForTest remembers up to n made-up proofs of the key with
// thumbprint jkt in v's default (in-memory) replay cache, the way a
// client with a bound token and its key would make them, and returns how
// many were taken before the cache refused.
func FillDPoPReplayForTest(v *Verifier, jkt string, n int) int {
	m := v.dpop.replay.(*memoryReplay)
	for i := range n {
		id := hexSum(jkt + "\x00fill-" + strconv.Itoa(i))
		if fresh, err := m.rememberFor(jkt, id, time.Minute); err != nil || !fresh {
			return i
		}
	}
	return n
}

// MaxReplayIDs is the capacity of the in-memory replay cache.
const MaxReplayIDs = maxReplayIDs

// CachedSubjectToken is the token the introspection cache's session for
// tok holds ("" when none is cached, or when it holds none).
func CachedSubjectToken(v *Verifier, tok string) (token string, cached bool) {
	e, ok := v.intro.cache.get(tokenKey(tok))
	if !ok {
		return "", false
	}
	t, _ := e.s.SubjectToken()
	return t, true
}
