package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/oauth2"
)

// Credentials are what the handler keeps for one MCP server: the token,
// and what refreshing it needs (the token endpoint, the client it was
// issued to, the resource).
type Credentials struct {
	// Token is the access token and its refresh token.
	Token *oauth2.Token `json:"token"`
	// Issuer is the authorization server that issued it.
	Issuer string `json:"issuer"`
	// TokenURL is that server's token endpoint.
	TokenURL string `json:"token_url"`
	// Client is the client the token was issued to.
	Client ClientInfo `json:"client"`
	// Resource is the resource indicator the token was asked for.
	Resource string `json:"resource,omitempty"`
	// Scopes are the scopes that were asked for.
	Scopes []string `json:"scopes,omitempty"`
}

// ClientInfo is a client of an authorization server.
type ClientInfo struct {
	// ID is its client_id: issued, pre-registered, or the URL of its
	// metadata document.
	ID string `json:"client_id"`
	// Secret is its client_secret, when it has one.
	Secret string `json:"client_secret,omitempty"`
	// AuthMethod is how it authenticates at the token endpoint:
	// "client_secret_basic", "client_secret_post", "private_key_jwt"
	// (with Config.PrivateKey) or "none".
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

// TokenStore keeps the credentials of each MCP server (by its endpoint
// URL). Load returns nil, nil when it has none.
type TokenStore interface {
	Load(ctx context.Context, serverURL string) (*Credentials, error)
	Save(ctx context.Context, serverURL string, c *Credentials) error
}

// MemoryStore is a TokenStore in memory: the tokens last as long as the
// process.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string]Credentials
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{m: map[string]Credentials{}} }

// Load implements TokenStore.
func (s *MemoryStore) Load(_ context.Context, serverURL string) (*Credentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[serverURL]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// Save implements TokenStore.
func (s *MemoryStore) Save(_ context.Context, serverURL string, c *Credentials) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[serverURL] = *c
	return nil
}

// FileStore is a TokenStore in a JSON file (mode 0600), so that a
// command-line program keeps its tokens from one run to the next.
type FileStore struct {
	// Path is the file.
	Path string
	mu   sync.Mutex
}

// Load implements TokenStore.
func (s *FileStore) Load(_ context.Context, serverURL string) (*Credentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.read()
	if err != nil {
		return nil, err
	}
	c, ok := m[serverURL]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// Save implements TokenStore.
func (s *FileStore) Save(_ context.Context, serverURL string, c *Credentials) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.read()
	if err != nil {
		return err
	}
	m[serverURL] = *c
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.Path), ".tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.Path)
}

func (s *FileStore) read() (map[string]Credentials, error) {
	m := map[string]Credentials{}
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}
