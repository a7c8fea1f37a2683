package mcphttp

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/mcpchain/mcp"
	"github.com/mcpchain/mcp/internal/identity"
	"github.com/mcpchain/mcp/internal/jsonrpc"
	"github.com/mcpchain/mcp/internal/strictjson"
)

// Multi round-trip requests (MRTR) of revision 2026-07-28: a tools/call,
// prompts/get or resources/read whose handler asks the client something
// (Context.Ask, Elicit, Sample, Roots) ends its round with an
// input-required result
//
//	{"resultType":"input_required","inputRequests":{key: {method, params}},"requestState":"…"}
//
// and the client sends the same request again with inputResponses (the
// answers by key) and the requestState echoed. The handler then runs again
// from the start; its questions, asked under the same keys, are answered
// from inputResponses and from the answers earlier rounds gathered, which
// travel sealed in requestState (AES-GCM under Options.StateKey), bound
// to the method, the request's params, the caller and an expiry.

// DefaultStateTTL is how long a requestState stays valid by default.
const DefaultStateTTL = 10 * time.Minute

// ErrInputNotAllowed is what a question asked while serving a 2026-07-28
// request other than tools/call, prompts/get or resources/read fails with:
// the revision allows input-required results on those three only.
var ErrInputNotAllowed = errors.New("mcphttp: protocol revision " + string(mcp.Version20260728) +
	" allows questions to the client (input-required results) only while serving tools/call, prompts/get and resources/read")

// errNoServerRequests is what Peer.Call fails with on a 2026-07-28 request.
var errNoServerRequests = errors.New("mcphttp: protocol revision " + string(mcp.Version20260728) +
	" has no server-to-client requests; ask through mcp.Context's Ask, Elicit, Sample or Roots (an input-required result)")

// The reasons a requestState is refused; each is also in the -32602
// message the client gets.
var (
	errStateInvalid = errors.New("requestState is not one this server issued: it fails its integrity check (altered, truncated, or sealed under another key; replicas must share Options.StateKey)")
	errStateExpired = errors.New("requestState has expired; send the request again without requestState and inputResponses")
)

// stateAAD is the associated data of every sealed requestState: a version
// tag, so a future format is refused by this one rather than misread.
var stateAAD = []byte("mcpchain/mrtr/requestState/v1")

// sealer seals and opens requestState tokens.
type sealer struct {
	aead cipher.AEAD
	ttl  time.Duration
	now  func() time.Time
}

// newSealer derives an AES-256-GCM key from key (HMAC-SHA256 under a
// fixed label, so any secret of at least 16 bytes will do); an empty key
// means a random one, valid in this process only.
func newSealer(key []byte, ttl time.Duration) (*sealer, error) {
	if len(key) == 0 {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
	} else if len(key) < 16 {
		return nil, fmt.Errorf("mcphttp: Options.StateKey has %d bytes; it needs at least 16 (32 random bytes recommended)", len(key))
	}
	if ttl <= 0 {
		ttl = DefaultStateTTL
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("mcpchain requestState AES-256-GCM key"))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead, ttl: ttl, now: time.Now}, nil
}

// statePayload is what a requestState holds, encrypted.
type statePayload struct {
	// Method is the request's method.
	Method string `json:"m"`
	// Params is the SHA-256 of the request's salient params (paramsDigest).
	Params []byte `json:"d"`
	// Principal is the SHA-256 of the caller's identity (principalOf).
	Principal []byte `json:"p"`
	// Expires is when the state stops being accepted, in Unix milliseconds.
	Expires int64 `json:"e"`
	// Round counts the input-required results of the request so far.
	Round int `json:"r"`
	// Answers are the client's answers gathered by earlier rounds.
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

// seal encrypts p (with a fresh nonce, so no two states are equal) into a
// base64url token.
func (s *sealer) seal(p statePayload) (string, error) {
	plain, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, stateAAD)), nil
}

// open decrypts and checks a token: errStateInvalid when it was not
// sealed by this key or was altered, errStateExpired when too old.
func (s *sealer) open(tok string) (statePayload, error) {
	var p statePayload
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) < s.aead.NonceSize()+s.aead.Overhead() {
		return p, errStateInvalid
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, b[:n], b[n:], stateAAD)
	if err != nil {
		return p, errStateInvalid
	}
	if json.Unmarshal(plain, &p) != nil {
		return p, errStateInvalid
	}
	if s.now().UnixMilli() > p.Expires {
		return p, errStateExpired
	}
	return p, nil
}

// paramsDigest is the SHA-256 of a request's params without what changes
// between rounds (inputResponses, requestState, _meta), canonicalised
// (members sorted, numbers as written), so that the state of one request
// is refused on another: a different tool, prompt, resource or arguments.
func paramsDigest(params json.RawMessage) []byte {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(params))
	d.UseNumber()
	if len(params) == 0 || d.Decode(&m) != nil || m == nil {
		m = map[string]any{}
	}
	delete(m, "inputResponses")
	delete(m, "requestState")
	delete(m, "_meta")
	b, _ := json.Marshal(m) // maps marshal with sorted keys; json.Number as written
	sum := sha256.Sum256(b)
	return sum[:]
}

// principalOf is what a requestState binds its caller by: the SHA-256 of
// the caller's key (identity.Key), nil for an anonymous caller. ok is
// false for auth data without a subject, which has no key: it cannot be
// told apart from another user's once sealed, so no requestState is
// issued to it (errNoPrincipal).
func principalOf(auth any) (p []byte, ok bool) {
	if auth == nil {
		return nil, true
	}
	key, ok := identity.Key(auth)
	if !ok {
		return nil, false
	}
	sum := sha256.Sum256([]byte(key))
	return sum[:], true
}

// errNoPrincipal is what a question asked while serving a 2026-07-28
// request of a caller whose auth data has no subject fails with: its
// answers would travel in a requestState that no later round could tell
// from another user's.
var errNoPrincipal = errors.New("mcphttp: this caller's auth data has no subject (mcp.Subject), so a question to the client " +
	"at revision " + string(mcp.Version20260728) + " cannot be carried to the request's next round (its requestState could not be bound to the caller); " +
	"the server's authentication must return auth data that implements mcp.Subject")

// inputRound is one round of a 2026-07-28 request: the answers it has
// (from requestState and inputResponses), the questions its handler asked
// that are still open, and what ends it. It is the small internal API of
// MRTR: serveRev20260728's requests use it through runRound; tasks can open a
// round with openRound, answer its questions with Inputs, and turn the
// open ones into an input-required result with result.
type inputRound struct {
	allowed bool // the method may end with an input-required result
	bound   bool // the caller can be bound to a requestState (principalOf)
	method  string
	params  json.RawMessage // the request's params, for the state's digest
	auth    any             // the caller's auth data, for the state's principal
	prev    int             // rounds before this one (from requestState)
	retried bool            // the request carried inputResponses or requestState

	mu      sync.Mutex
	answers map[string]json.RawMessage  // what the client answered, by key
	used    map[string]json.RawMessage  // answers the handler took
	pending map[string]mcp.InputRequest // questions without an answer
	fault   error                       // a malformed answer: the round's error
}

// openRound reads a 2026-07-28 request's requestState and inputResponses
// (for tools/call, prompts/get and resources/read; other methods get a
// round that refuses questions with ErrInputNotAllowed). A requestState
// that is altered, expired, or issued for another method, params or
// caller, and inputResponses that are not an object of objects, are
// -32602 errors saying what was wrong.
func (h *Handler) openRound(method string, params json.RawMessage, auth any) (*inputRound, error) {
	if !methodTable[method].rounds {
		return &inputRound{method: method}, nil
	}
	_, bound := principalOf(auth)
	rd := &inputRound{allowed: true, bound: bound, method: method, params: params, auth: auth}
	// Most requests carry neither member: skip decoding their params again.
	// (A member name spelled with escapes is not found, and so not used.)
	if !bytes.Contains(params, []byte(`"inputResponses"`)) && !bytes.Contains(params, []byte(`"requestState"`)) {
		return rd, nil
	}
	var p struct {
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage `json:"requestState"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, invalidParams("params must be an object")
		}
	}
	rd.retried = p.InputResponses != nil || p.RequestState != nil
	if p.RequestState != nil {
		var tok string
		if json.Unmarshal(p.RequestState, &tok) != nil || tok == "" {
			return nil, invalidParams("requestState must be the non-empty string of an input-required result, echoed unchanged")
		}
		if !bound {
			return nil, invalidParams("requestState was not issued to this caller: its auth data has no subject (mcp.Subject), and no requestState is bound to such a caller")
		}
		st, err := h.states.open(tok)
		if err != nil {
			return nil, invalidParams(err.Error())
		}
		principal, _ := principalOf(auth)
		switch {
		case st.Method != method:
			return nil, invalidParams(fmt.Sprintf("requestState was issued for %s, not %s", strictjson.Quote(st.Method), strictjson.Quote(method)))
		case !hmac.Equal(st.Params, paramsDigest(params)):
			return nil, invalidParams("requestState was issued for other params (another tool, prompt or resource, or other arguments); send the same params on every round")
		case !hmac.Equal(st.Principal, principal):
			return nil, invalidParams("requestState was issued to another caller")
		}
		rd.prev = st.Round
		rd.answers = st.Answers
	}
	if p.InputResponses != nil {
		resp, err := decodeInputResponses(p.InputResponses)
		if err != nil {
			return nil, err
		}
		// An answer an earlier round took stands: the client cannot change
		// it by answering the same key again.
		for k, v := range rd.answers {
			resp[k] = v
		}
		rd.answers = resp
	}
	return rd, nil
}

// decodeInputResponses decodes inputResponses: an object whose every
// member is an object (a client's result); null, another type, or a
// member that is not an object is -32602 naming it.
func decodeInputResponses(raw json.RawMessage) (map[string]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, invalidParams(fmt.Sprintf("inputResponses must be an object of the client's results by key, not %s", jsonKind(raw)))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, invalidParams("inputResponses does not decode: " + strictjson.Clip(err.Error(), strictjson.MaxQuoted))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := bytes.TrimSpace(m[k]); len(v) == 0 || v[0] != '{' {
			return nil, invalidParams(fmt.Sprintf("inputResponses[%s] must be an object (the client's result), not %s", strictjson.Quote(k), jsonKind(v)))
		}
	}
	return m, nil
}

// jsonKind names the JSON type of a raw value, for messages.
func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "a number"
}

func invalidParams(msg string) *mcp.Error {
	return &mcp.Error{Code: mcp.CodeInvalidParams, Message: "Invalid params: " + msg}
}

// Inputs answers the questions from the round's answers. When one has no
// answer (or the wrong kind of one is missing), it is recorded as open and
// the result is mcp.ErrInputRequired: the round ends with an
// input-required result. A malformed answer is a -32602 error, which
// also becomes the round's answer whatever the handler returns.
func (rd *inputRound) Inputs(_ context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	if !rd.allowed {
		return nil, ErrInputNotAllowed
	}
	if !rd.bound {
		return nil, errNoPrincipal
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]json.RawMessage, len(reqs))
	missing := false
	for _, k := range keys {
		req := reqs[k]
		raw, ok := rd.answers[k]
		if !ok {
			if rd.pending == nil {
				rd.pending = map[string]mcp.InputRequest{}
			}
			rd.pending[k] = req
			missing = true
			continue
		}
		if err := checkAnswer(k, req.Method, raw); err != nil {
			if rd.fault == nil {
				rd.fault = err
			}
			return nil, err
		}
		out[k] = raw
	}
	if missing {
		return nil, mcp.ErrInputRequired
	}
	if rd.used == nil {
		rd.used = map[string]json.RawMessage{}
	}
	for k, v := range out {
		rd.used[k] = v
	}
	return out, nil
}

// checkAnswer checks that the client's answer under key has the shape of
// the result of method: an elicitation result's action, a sampling result's
// role and content, a ListRootsResult's roots.
func checkAnswer(key, method string, raw json.RawMessage) error {
	bad := func(want string) error {
		return invalidParams(fmt.Sprintf("inputResponses[%s] is not a %s result: %s", strictjson.Quote(key), method, want))
	}
	var r struct {
		Action  *string         `json:"action"`
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
		Roots   json.RawMessage `json:"roots"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return bad("it does not decode")
	}
	switch method {
	case "elicitation/create":
		if r.Action == nil || (*r.Action != "accept" && *r.Action != "decline" && *r.Action != "cancel") {
			return bad(`"action" must be "accept", "decline" or "cancel"`)
		}
	case "sampling/createMessage":
		if r.Role == nil || len(r.Content) == 0 || string(r.Content) == "null" {
			return bad(`it needs "role" and "content"`)
		}
	case "roots/list":
		if len(r.Roots) == 0 || r.Roots[0] != '[' {
			return bad(`"roots" must be an array`)
		}
	}
	return nil
}

// ended reports whether the round has open questions.
func (rd *inputRound) ended() bool {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return len(rd.pending) > 0
}

// result is the input-required result of a round with open questions:
// the questions, and a new requestState carrying the answers the handler
// took (so the next round needs only the new ones).
func (rd *inputRound) result(s *sealer) (json.RawMessage, error) {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	reqs := make(map[string]json.RawMessage, len(rd.pending))
	for k, q := range rd.pending {
		params := q.Params
		if params == nil {
			params = struct{}{}
		}
		pb, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("mcphttp: encoding the params of input request %q: %w", k, err)
		}
		if string(pb) == "null" {
			pb = []byte("{}")
		}
		b := jsonrpc.AppendString(append(make([]byte, 0, len(pb)+64), `{"method":`...), q.Method)
		reqs[k] = append(append(append(b, `,"params":`...), pb...), '}')
	}
	principal, ok := principalOf(rd.auth)
	if !ok {
		return nil, errNoPrincipal // Inputs asked nothing: never reached
	}
	tok, err := s.seal(statePayload{Method: rd.method, Params: paramsDigest(rd.params), Principal: principal,
		Expires: s.now().Add(s.ttl).UnixMilli(), Round: rd.prev + 1, Answers: rd.used})
	if err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{
		"resultType":    json.RawMessage(`"input_required"`),
		"inputRequests": appendObject(nil, reqs),
		"requestState":  jsonrpc.AppendString(nil, tok),
	}
	return appendObject(nil, out), nil
}

// finish decides what a round answers, given what its handler returned: a
// malformed answer's error; the input-required result when questions are
// open (whatever the handler made of mcp.ErrInputRequired); else the
// handler's own result or error.
func (rd *inputRound) finish(s *sealer, res any, err error) (any, error) {
	rd.mu.Lock()
	fault := rd.fault
	rd.mu.Unlock()
	if fault != nil {
		return nil, fault
	}
	if rd.ended() {
		return rd.result(s)
	}
	return res, err
}

// runRound runs a 2026-07-28 request's handler as one round (handleRequest
// calls it for 2026-07-28 requests): it opens the round, which the handler's
// Context reaches through its peer (Handler.context), and turns open
// questions into an input-required result.
func (h *Handler) runRound(ctx context.Context, k *call, fn methodFunc) (any, error) {
	rd, err := h.openRound(k.msg.Method, k.msg.Params, k.auth)
	if err != nil {
		return nil, err
	}
	k.round = rd
	res, err := fn(h, ctx, k)
	return rd.finish(h.states, res, err)
}

// inputPeer is the peer of a 2026-07-28 request: notifications go on the
// request's stream, questions to the round; it sends no requests.
type inputPeer struct {
	*requestPeer
	round *inputRound
}

var _ mcpInputPeer = (*inputPeer)(nil)

// Call fails: the revision has no server-to-client requests.
func (p *inputPeer) Call(context.Context, string, any) (json.RawMessage, error) {
	return nil, errNoServerRequests
}

// Inputs answers the questions from the round (inputRound.Inputs); the
// questions carry the request's trace context (withTrace).
func (p *inputPeer) Inputs(ctx context.Context, reqs map[string]mcp.InputRequest) (map[string]json.RawMessage, error) {
	reqs, err := withTrace(reqs, p.trace(ctx))
	if err != nil {
		return nil, err
	}
	return p.round.Inputs(ctx, reqs)
}
