package oauthclient

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/go-json-experiment/json"
)

// FileStore is a [TokenStore] kept in one JSON file, for a command line or
// desktop application whose tokens and registrations should outlive the
// process. The file holds secrets (access and refresh tokens, client
// secrets), so it is created with mode 0600 in a directory made with mode
// 0700. Every call reads the file afresh and every change replaces it
// atomically (a temporary file renamed over it), so processes sharing the
// file see each other's tokens and never a torn one; when two change it at
// the same moment, the last change wins.
type FileStore struct {
	path string
	mu   sync.Mutex // serializes this process's read-modify-write cycles
}

// NewFileStore returns a FileStore keeping its data at path. Nothing is
// read or written until the first call; a missing file is an empty store.
func NewFileStore(path string) *FileStore { return &FileStore{path: path} }

// fileContents is the file's JSON.
type fileContents struct {
	Tokens  []fileToken  `json:"tokens,omitempty"`
	Clients []fileClient `json:"clients,omitempty"`
}

// fileClient is one stored registration and the issuer it is keyed by.
type fileClient struct {
	Issuer string     `json:"issuer"`
	Client ClientInfo `json:"client"`
}

// fileToken is one stored token and what it is keyed by.
type fileToken struct {
	Issuer   string `json:"issuer"`
	Resource string `json:"resource"`
	Token    Token  `json:"token"`
}

// Token returns the stored token for issuer and resource.
func (s *FileStore) Token(_ context.Context, issuer, resource string) (*Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.read()
	if err != nil {
		return nil, err
	}
	for _, t := range c.Tokens {
		if t.Issuer == issuer && t.Resource == resource {
			return &t.Token, nil
		}
	}
	return nil, nil
}

// SaveToken stores t for issuer and resource, replacing any earlier one.
func (s *FileStore) SaveToken(_ context.Context, issuer, resource string, t *Token) error {
	return s.change(func(c *fileContents) {
		c.Tokens = slices.DeleteFunc(c.Tokens, func(ft fileToken) bool { return ft.Issuer == issuer && ft.Resource == resource })
		c.Tokens = append(c.Tokens, fileToken{Issuer: issuer, Resource: resource, Token: *t})
	})
}

// DeleteToken forgets the token for issuer and resource.
func (s *FileStore) DeleteToken(_ context.Context, issuer, resource string) error {
	return s.change(func(c *fileContents) {
		c.Tokens = slices.DeleteFunc(c.Tokens, func(ft fileToken) bool { return ft.Issuer == issuer && ft.Resource == resource })
	})
}

// Client returns the stored registration made with issuer.
func (s *FileStore) Client(_ context.Context, issuer string) (*ClientInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.read()
	if err != nil {
		return nil, err
	}
	for _, fc := range c.Clients {
		if fc.Issuer == issuer {
			return &fc.Client, nil
		}
	}
	return nil, nil
}

// SaveClient stores the registration ci made with issuer, replacing any
// earlier one. A private key in it is not stored.
func (s *FileStore) SaveClient(_ context.Context, issuer string, ci *ClientInfo) error {
	return s.change(func(c *fileContents) {
		c.Clients = slices.DeleteFunc(c.Clients, func(fc fileClient) bool { return fc.Issuer == issuer })
		c.Clients = append(c.Clients, fileClient{Issuer: issuer, Client: *ci})
	})
}

// read returns the file's contents; a missing file is an empty store.
func (s *FileStore) read() (*fileContents, error) {
	var c fileContents
	b, err := os.ReadFile(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &c, nil
	case err != nil:
		return nil, fmt.Errorf("oauthclient: reading the token store: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("oauthclient: the token store %s is not valid; delete it to start afresh: %w", s.path, err)
	}
	return &c, nil
}

// change applies edit to the stored contents and writes them back.
func (s *FileStore) change(edit func(*fileContents)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.read()
	if err != nil {
		return err
	}
	edit(c)
	b, err := json.Marshal(c, json.Deterministic(true))
	if err != nil {
		return fmt.Errorf("oauthclient: encoding the token store: %w", err)
	}
	return writeFileAtomic(s.path, b)
}

// writeFileAtomic replaces path with data, readable by the owner only.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("oauthclient: creating the token store's directory: %w", err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("oauthclient: writing the token store: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // fails harmlessly once renamed
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("oauthclient: writing the token store: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("oauthclient: writing the token store: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("oauthclient: writing the token store: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("oauthclient: writing the token store: %w", err)
	}
	return nil
}
