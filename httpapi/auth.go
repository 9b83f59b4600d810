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

	"github.com/autocut-dev/autocut/apiv1"
)

// Subscription tiers a key may carry (what the API's documents call the
// key's plan, "pro" or "free"; named tiers here so that they are not
// mistaken for a cut plan, plan.Plan).
const (
	TierPro  = "pro"
	TierFree = "free"
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
	tier string
}

// Identity is an authenticated key: its owner id and subscription tier.
type Identity struct {
	Owner string
	Tier  string // TierPro or TierFree
}

// NewKeyStore returns an empty store.
func NewKeyStore() *KeyStore { return &KeyStore{} }

// Len returns the number of keys.
func (s *KeyStore) Len() int { return len(s.keys) }

// Add stores key (hashed) with its tier (TierPro or TierFree).
func (s *KeyStore) Add(key, tier string) error {
	if key == "" {
		return fmt.Errorf("%w: empty API key", apiv1.ErrBadRequest)
	}
	if tier != TierPro && tier != TierFree {
		return fmt.Errorf("%w: plan %q of an API key is neither %q nor %q", apiv1.ErrBadRequest, tier, TierPro, TierFree)
	}
	s.keys = append(s.keys, storedKey{hash: sha256.Sum256([]byte(key)), tier: tier})
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
		key, tier, ok := strings.Cut(line, ":")
		if !ok {
			tier = TierPro
		}
		if err := s.Add(strings.TrimSpace(key), strings.ToLower(strings.TrimSpace(tier))); err != nil {
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
	return Identity{Owner: ownerID(s.keys[found].hash), Tier: s.keys[found].tier}, true
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
	line := hex.EncodeToString(h[:]) + ":" + TierPro + "\n"
	if err := os.WriteFile(path, []byte("# SHA-256 of API keys, generated on first start: hash:plan\n"+line), 0o600); err != nil {
		return nil, "", fmt.Errorf("keys: %w", err)
	}
	s.keys = append(s.keys, storedKey{hash: h, tier: TierPro})
	return s, key, nil
}

// readHashes reads "hexsha256:plan" lines (plan: a tier, pro or free).
func (s *KeyStore) readHashes(r io.Reader) error {
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		hx, tier, _ := strings.Cut(line, ":")
		b, err := hex.DecodeString(hx)
		if err != nil || len(b) != sha256.Size {
			return fmt.Errorf("line %d: not a SHA-256 hex hash", n)
		}
		if tier != TierPro && tier != TierFree {
			return fmt.Errorf("line %d: unknown plan %q", n, tier)
		}
		var h [sha256.Size]byte
		copy(h[:], b)
		s.keys = append(s.keys, storedKey{hash: h, tier: tier})
	}
	return sc.Err()
}
