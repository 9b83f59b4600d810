// Package corpus builds audio with known speech and pauses, so that the
// silence planner can be scored without a human listening: every audio
// file comes with a Truth that says where its speech is, and Score
// compares a list of cuts with it.
//
// A generator writes its cases into a directory: for each case one audio
// file per format (NAME.wav, NAME.mp3, ...) and NAME.truth.json. Generate
// is the synthetic generator (espeak-ng speech, levelled, separated by
// pauses of chosen lengths and laid over a noise floor); other generators
// (real speech mixed with noise beds, say) write the same Truth and share
// the cache (Cached) and the scoring (Score).
//
// The truth rule: a stretch of speech begins and ends where it is audible.
// Synthetic utterances are trimmed where their level falls under
// max(peak-40 dB, noise floor+6 dB), so what no listener (or detector)
// could hear under the noise counts as pause.
//
// The package is for tests: it runs external tools (espeak-ng, sox,
// ffmpeg) and writes files, and imports nothing of autocut's own, so the
// packages it judges (plan, dsp, transcode) can use it in their tests.
package corpus

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Interval is a stretch of time in seconds, [Start, End). In JSON it is a
// two-number array.
type Interval struct {
	Start, End float64
}

// Len is End-Start.
func (iv Interval) Len() float64 { return iv.End - iv.Start }

// MarshalJSON writes [start, end].
func (iv Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal([2]float64{iv.Start, iv.End})
}

// UnmarshalJSON reads [start, end].
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var a [2]float64
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("interval: %w", err)
	}
	iv.Start, iv.End = a[0], a[1]
	return nil
}

// byStart orders intervals by their start.
func byStart(a, b Interval) int { return cmp.Compare(a.Start, b.Start) }

// overlap is the length two intervals share.
func overlap(a, b Interval) float64 {
	return max(0, min(a.End, b.End)-max(a.Start, b.Start))
}

// Noise describes a case's noise floor.
type Noise struct {
	// Kind names the noise: "white", "pink" or "brown" for generated
	// beds; other generators name their recordings.
	Kind string `json:"kind"`
	// LevelDbfs is the bed's RMS level in the file: 20*log10 of the RMS
	// of its samples, full scale being 1.
	LevelDbfs float64 `json:"levelDbfs"`
}

// Truth is what a generator knows about one case.
type Truth struct {
	Name      string `json:"name"`
	Generator string `json:"generator"` // "synth", ...
	Language  string `json:"language,omitempty"`
	Voice     string `json:"voice,omitempty"`
	// Duration of the audio in seconds (exact: samples / SampleRate).
	Duration   float64 `json:"duration"`
	SampleRate int     `json:"sampleRate"`
	// SpeechLevelDbfs is the nominal speech level: utterances peak 12 dB
	// over it.
	SpeechLevelDbfs float64 `json:"speechLevelDbfs"`
	// TrimDbfs is the level under which an utterance's edges counted as
	// inaudible and were trimmed (the truth rule).
	TrimDbfs float64 `json:"trimDbfs"`
	Noise    *Noise  `json:"noise"` // nil: digital silence between utterances
	// Speech holds the audible speech, sorted and disjoint.
	Speech []Interval `json:"speech"`
	// Gaps are the pauses after utterances (between two of them, and the
	// tail after the last one when there is one). A lead-in before the
	// first utterance is not a gap; Silences adds it.
	Gaps []Interval `json:"gaps"`
	// Files maps a format ("wav", "wav24", "mp3", "m4a", "mp4") to the
	// file's name in the case's directory.
	Files map[string]string `json:"files"`

	dir string // where the truth file was read from or written to
}

// Silences returns every pause of the case in time order: the lead-in
// before the first utterance (if any) followed by the gaps.
func (t Truth) Silences() []Interval {
	var out []Interval
	if len(t.Speech) > 0 && t.Speech[0].Start > 0 {
		out = append(out, Interval{0, t.Speech[0].Start})
	}
	return append(out, t.Gaps...)
}

// File returns the path of the case's audio in format, or "" when the
// case was not generated in that format.
func (t Truth) File(format string) string {
	name, ok := t.Files[format]
	if !ok {
		return ""
	}
	return filepath.Join(t.dir, name)
}

// Dir is the directory the case's files are in.
func (t Truth) Dir() string { return t.dir }

// check reports a truth whose intervals are out of order, overlap or
// leave the file.
func (t Truth) check() error {
	all := append(slices.Clone(t.Speech), t.Gaps...)
	slices.SortFunc(all, byStart)
	const eps = 1e-9
	for i, iv := range all {
		if iv.End <= iv.Start || iv.Start < -eps || iv.End > t.Duration+eps {
			return fmt.Errorf("%s: interval %v outside [0, %g] or empty", t.Name, iv, t.Duration)
		}
		if i > 0 && iv.Start < all[i-1].End-eps {
			return fmt.Errorf("%s: intervals %v and %v overlap", t.Name, all[i-1], iv)
		}
	}
	return nil
}

// WriteTruth writes t as dir/NAME.truth.json.
func WriteTruth(dir string, t Truth) error {
	if err := t.check(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, t.Name+".truth.json"), append(b, '\n'), 0o644)
}

// ReadTruth reads a NAME.truth.json file.
func ReadTruth(path string) (Truth, error) {
	var t Truth
	b, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	if err := t.check(); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	t.dir = filepath.Dir(path)
	return t, nil
}

// Load reads every truth file in dir, sorted by name.
func Load(dir string) ([]Truth, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.truth.json"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	out := make([]Truth, 0, len(paths))
	for _, p := range paths {
		t, err := ReadTruth(p)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// doneFile marks a cache directory whose generation completed.
const doneFile = ".done"

// Cached returns the cases in root/autocut-corpus-HASH, where HASH is
// derived from key: when that directory is complete it is loaded, else
// build writes the cases into a fresh directory beside it, which is then
// renamed into place. Concurrent callers (test binaries of several
// packages) may build the same key at once; one rename wins and the
// others use its result. An empty root means os.TempDir().
//
// key must change whenever the output would (parameters, generator
// version): stale caches are never detected otherwise.
func Cached(ctx context.Context, root, key string, build func(ctx context.Context, dir string) error) (string, []Truth, error) {
	if root == "" {
		root = os.TempDir()
	}
	h := sha256.Sum256([]byte(key))
	dir := filepath.Join(root, "autocut-corpus-"+hex.EncodeToString(h[:8]))
	if _, err := os.Stat(filepath.Join(dir, doneFile)); err == nil {
		ts, err := Load(dir)
		return dir, ts, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp(root, "autocut-corpus-tmp-")
	if err != nil {
		return "", nil, err
	}
	defer os.RemoveAll(tmp)
	if err := build(ctx, tmp); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, doneFile), []byte(key+"\n"), 0o644); err != nil {
		return "", nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		// Another process may have finished first (the target then exists
		// and is not empty).
		if _, err2 := os.Stat(filepath.Join(dir, doneFile)); err2 != nil {
			return "", nil, fmt.Errorf("corpus cache: %w", errors.Join(err, err2))
		}
	}
	ts, err := Load(dir)
	return dir, ts, err
}

// cacheKey joins the parts of a cache key.
func cacheKey(parts ...string) string { return strings.Join(parts, "\x00") }
