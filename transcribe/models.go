package transcribe

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DefaultModelBaseURL is where whisper.cpp's ggml models are published; a
// model NAME is the file ggml-NAME.bin there.
const DefaultModelBaseURL = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main"

// ErrChecksum reports a downloaded model whose checksum is not the pinned one.
var ErrChecksum = errors.New("checksum mismatch")

// Model is a whisper.cpp ggml model that autocut can download.
type Model struct {
	Name string // as whisper.cpp names it: "base.en"
	Size string // approximate, for display
	// SHA1 is the file's SHA-1 as whisper.cpp publishes it (models/README.md
	// of the whisper.cpp repository); no SHA-256 is published there.
	SHA1 string
}

// Models lists the models autocut knows the checksums of.
func Models() []Model {
	return []Model{
		{"tiny", "75 MiB", "bd577a113a864445d4c299885e0cb97d4ba92b5f"},
		{"tiny.en", "75 MiB", "c78c86eb1a8faa21b369bcd33207cc90d64ae9df"},
		{"base", "142 MiB", "465707469ff3a37a2b9b8d8f89f2f99de7299dac"},
		{"base.en", "142 MiB", "137c40403d78fd54d454da0f9bd998f78703390c"},
		{"small", "466 MiB", "55356645c2b361a969dfd0ef2c5a50d530afd8d5"},
		{"small.en", "466 MiB", "db8a495a91d927739e50b3fc1cc4c6b8f6c2d022"},
		{"medium", "1.5 GiB", "fd9727b6e1217c2f614f9b698455c4ffd82463b4"},
		{"medium.en", "1.5 GiB", "8c30f0e44ce9560643ebd10bbe50cd20eafd3723"},
		{"large-v3", "2.9 GiB", "ad82bf6a9043ceed055076d0fd39f5f186ff8062"},
		{"large-v3-q5_0", "1.1 GiB", "e6e2ed78495d403bef4b7cff42ef4aaadcfea8de"},
	}
}

// ModelStore keeps downloaded models in a directory.
type ModelStore struct {
	// Dir holds the models; "" means autocut/models under the user cache
	// directory (os.UserCacheDir).
	Dir string
	// BaseURL is where models are downloaded from; "" means
	// DefaultModelBaseURL. Tests point it at a local server.
	BaseURL string
	// Catalog lists the known models; nil means Models().
	Catalog []Model
	// Client does the downloads; nil means http.DefaultClient.
	Client *http.Client
	// Progress, when set, is told the bytes done and the total (-1 when
	// unknown) as a download goes.
	Progress func(done, total int64)
}

func (s *ModelStore) dir() (string, error) {
	if s.Dir != "" {
		return s.Dir, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("models: no user cache directory: %w", err)
	}
	return filepath.Join(c, "autocut", "models"), nil
}

// Lookup returns the catalog entry of name.
func (s *ModelStore) Lookup(name string) (Model, error) {
	cat := s.Catalog
	if cat == nil {
		cat = Models()
	}
	var names []string
	for _, m := range cat {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Model{}, fmt.Errorf("models: unknown model %q (known: %s)", name, strings.Join(names, ", "))
}

// Path is where model name is (or would be) stored: a file in Dir. A name
// that is empty or holds a path separator or ".." (which would name a
// file elsewhere) is an error; it need not be in the catalog.
func (s *ModelStore) Path(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") {
		return "", fmt.Errorf("models: bad model name %q", name)
	}
	d, err := s.dir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ggml-"+name+".bin"), nil
}

// Installed reports the path of model name when it has been downloaded.
func (s *ModelStore) Installed(name string) (string, bool) {
	p, err := s.Path(name)
	if err != nil {
		return "", false
	}
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p, true
	}
	return "", false
}

// FirstInstalled returns the first downloaded model of the catalog, in the
// order of preference base.en, base, small.en, small, then the rest.
func (s *ModelStore) FirstInstalled() (string, bool) {
	cat := s.Catalog
	if cat == nil {
		cat = Models()
	}
	order := []string{"base.en", "base", "small.en", "small"}
	for _, m := range cat {
		order = append(order, m.Name)
	}
	for _, n := range order {
		if p, ok := s.Installed(n); ok {
			return p, true
		}
	}
	return "", false
}

// Pull downloads model name unless it is already there and returns its path.
// The download goes to PATH.part, resumes from there with an HTTP Range
// request when the server allows it (else it starts over), and becomes PATH
// only once its SHA-1 matches the pinned one: an interrupted download leaves
// the .part file and no model, a mismatch leaves neither.
func (s *ModelStore) Pull(ctx context.Context, name string) (string, error) {
	m, err := s.Lookup(name)
	if err != nil {
		return "", err
	}
	final, err := s.Path(name)
	if err != nil {
		return "", err
	}
	if p, ok := s.Installed(name); ok {
		return p, nil
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	part := final + ".part"
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	defer f.Close()
	h := sha1.New()
	// Hash what an earlier attempt left, then continue after it.
	have, err := io.Copy(h, f)
	if err != nil {
		return "", fmt.Errorf("models: read %s: %w", part, err)
	}
	if err := s.fetch(ctx, m, f, h, have); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err // cancelled after the last bytes arrived: keep the .part for a resume
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != m.SHA1 {
		f.Close()
		os.Remove(part)
		return "", fmt.Errorf("models: %s: %w: SHA-1 %s, want %s (the download was removed)", name, ErrChecksum, got, m.SHA1)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	if err := os.Rename(part, final); err != nil {
		return "", fmt.Errorf("models: %w", err)
	}
	return final, nil
}

// fetch appends the rest of the model (after have bytes) to f and h.
func (s *ModelStore) fetch(ctx context.Context, m Model, f *os.File, h hash.Hash, have int64) error {
	base := s.BaseURL
	if base == "" {
		base = DefaultModelBaseURL
	}
	url := strings.TrimRight(base, "/") + "/ggml-" + m.Name + ".bin"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("models: %w", err)
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("models: download %s: %w", m.Name, err)
	}
	defer resp.Body.Close()
	total := int64(-1)
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			return fmt.Errorf("models: download %s: the server resumed at %q, not at byte %d", m.Name, resp.Header.Get("Content-Range"), have)
		}
		total = size
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		return nil // the .part file is whole already; the checksum decides
	case resp.StatusCode == http.StatusOK:
		// a fresh download, or a server that ignores Range: start over
		if have > 0 {
			if err := f.Truncate(0); err != nil {
				return fmt.Errorf("models: %w", err)
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("models: %w", err)
			}
			h.Reset()
			have = 0
		}
		total = resp.ContentLength
	default:
		return fmt.Errorf("models: download %s: %s", m.Name, resp.Status)
	}
	if _, err := f.Seek(have, io.SeekStart); err != nil {
		return fmt.Errorf("models: %w", err)
	}
	pw := &progressWriter{done: have, total: total, report: s.Progress}
	if _, err := io.Copy(io.MultiWriter(f, h, pw), resp.Body); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("models: download %s interrupted (run the same command again to resume): %w", m.Name, err)
	}
	if total >= 0 && pw.done != total {
		return fmt.Errorf("models: download %s: got %d of %d bytes (run the same command again to resume)", m.Name, pw.done, total)
	}
	return nil
}

// parseContentRange reads "bytes START-END/SIZE" (SIZE may be "*").
func parseContentRange(v string) (start, size int64, ok bool) {
	v, found := strings.CutPrefix(v, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, sz, found := strings.Cut(v, "/")
	if !found {
		return 0, 0, false
	}
	s, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	size = -1
	if sz != "*" {
		if size, err = strconv.ParseInt(sz, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return start, size, true
}

type progressWriter struct {
	done, total int64
	report      func(done, total int64)
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	if p.report != nil {
		p.report(p.done, p.total)
	}
	return len(b), nil
}
