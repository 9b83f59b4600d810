package httpapi

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Plans a key may carry.
const (
	PlanPro  = "pro"
	PlanFree = "free"
)

// KeysFileName is the file under the data directory holding the hash of the
// key generated on first start.
const KeysFileName = "keys.sha256"

// KeyStore holds API keys as SHA-256 hashes. It is immutable after setup and
// safe for concurrent lookups.
type KeyStore struct {
	keys []storedKey
}

type storedKey struct {
	hash [sha256.Size]byte
	plan string
}

// Identity is an authenticated key: its owner id and plan.
type Identity struct {
	Owner string
	Plan  string
}

// NewKeyStore returns an empty store.
func NewKeyStore() *KeyStore { return &KeyStore{} }

// Len returns the number of keys.
func (s *KeyStore) Len() int { return len(s.keys) }

// Add stores key (hashed) with plan ("pro" or "free").
func (s *KeyStore) Add(key, plan string) error {
	if key == "" {
		return fmt.Errorf("%w: empty API key", ErrBadRequest)
	}
	if plan != PlanPro && plan != PlanFree {
		return fmt.Errorf("%w: plan %q of an API key is neither %q nor %q", ErrBadRequest, plan, PlanPro, PlanFree)
	}
	s.keys = append(s.keys, storedKey{hash: sha256.Sum256([]byte(key)), plan: plan})
	return nil
}

// ParseKeys adds keys from text "key1:pro,key2:free" (commas or newlines
// separate entries; blank lines and lines starting with # are ignored; a key
// without a plan is Pro).
func (s *KeyStore) ParseKeys(text string) error {
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, plan, ok := strings.Cut(line, ":")
		if !ok {
			plan = PlanPro
		}
		if err := s.Add(strings.TrimSpace(key), strings.ToLower(strings.TrimSpace(plan))); err != nil {
			return err
		}
	}
	return nil
}

// Lookup authenticates key. It hashes key and compares the hash with every
// stored hash in constant time (no early exit).
func (s *KeyStore) Lookup(key string) (Identity, bool) {
	h := sha256.Sum256([]byte(key))
	found := -1
	for i := range s.keys {
		if subtle.ConstantTimeCompare(h[:], s.keys[i].hash[:]) == 1 {
			found = i
		}
	}
	if found < 0 || key == "" {
		return Identity{}, false
	}
	return Identity{Owner: ownerID(s.keys[found].hash), Plan: s.keys[found].plan}, true
}

// ownerID derives a stable owner id from a key hash (a hash of the hash, so
// the stored hash is never written into job records).
func ownerID(h [sha256.Size]byte) string {
	o := sha256.Sum256(append([]byte("autocut-owner:"), h[:]...))
	return "own_" + hex.EncodeToString(o[:12])
}

// LoadKeys builds the key store from the AUTOCUT_API_KEYS value env and the
// keys file (either may be empty). When neither yields a key, it falls back
// to dataDir/keys.sha256; when that does not exist either, it generates one
// Pro key, stores its hash there and returns the key in generated (to be
// printed once). The generated key is ignored once keys are configured.
func LoadKeys(env, keysFile, dataDir string) (store *KeyStore, generated string, err error) {
	s := NewKeyStore()
	if err := s.ParseKeys(env); err != nil {
		return nil, "", fmt.Errorf("AUTOCUT_API_KEYS: %w", err)
	}
	if keysFile != "" {
		b, err := os.ReadFile(keysFile)
		if err != nil {
			return nil, "", fmt.Errorf("keys file: %w", err)
		}
		if err := s.ParseKeys(string(b)); err != nil {
			return nil, "", fmt.Errorf("keys file %s: %w", keysFile, err)
		}
	}
	if s.Len() > 0 {
		return s, "", nil
	}
	path := filepath.Join(dataDir, KeysFileName)
	f, err := os.Open(path)
	switch {
	case err == nil:
		defer f.Close()
		if err := s.readHashes(f); err != nil {
			return nil, "", fmt.Errorf("%s: %w", path, err)
		}
		if s.Len() > 0 {
			return s, "", nil
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, "", fmt.Errorf("keys: %w", err)
	}
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, "", fmt.Errorf("generate key: %w", err)
	}
	key := "ac_" + hex.EncodeToString(raw[:])
	h := sha256.Sum256([]byte(key))
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, "", fmt.Errorf("keys: %w", err)
	}
	line := hex.EncodeToString(h[:]) + ":" + PlanPro + "\n"
	if err := os.WriteFile(path, []byte("# SHA-256 of API keys, generated on first start: hash:plan\n"+line), 0o600); err != nil {
		return nil, "", fmt.Errorf("keys: %w", err)
	}
	s.keys = append(s.keys, storedKey{hash: h, plan: PlanPro})
	return s, key, nil
}

// readHashes reads "hexsha256:plan" lines.
func (s *KeyStore) readHashes(r io.Reader) error {
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		hx, plan, _ := strings.Cut(line, ":")
		b, err := hex.DecodeString(hx)
		if err != nil || len(b) != sha256.Size {
			return fmt.Errorf("line %d: not a SHA-256 hex hash", n)
		}
		if plan != PlanPro && plan != PlanFree {
			return fmt.Errorf("line %d: unknown plan %q", n, plan)
		}
		var h [sha256.Size]byte
		copy(h[:], b)
		s.keys = append(s.keys, storedKey{hash: h, plan: plan})
	}
	return sc.Err()
}
