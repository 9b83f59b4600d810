package transcribe

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/proc"
	"github.com/autocut-dev/autocut/internal/tail"
)

// minFillerSec is the shortest keyword-spotting match kept as a filler: a
// filled pause is a sustained vowel, while matches under 100 ms were vowels
// inside words on our flite test material (all false alarms there; all true
// fillers matched for 130 ms or more).
const minFillerSec = 0.1

// Pocketsphinx transcribes English with CMU pocketsphinx from Debian
// (pocketsphinx, pocketsphinx-en-us) as a subprocess: a subprocess keeps cgo
// out of the build, isolates a decoder crash from the server, and is killed
// on cancellation. Two passes: one for words, one keyword-spotting pass for
// um/uh/hmm, which plain decoding almost never outputs.
type Pocketsphinx struct {
	Binary       string  // default pocketsphinx_continuous
	ModelDir     string  // default /usr/share/pocketsphinx/model/en-us
	KWSThreshold float64 // default 1e+5
}

func (p *Pocketsphinx) bin() string { return orDefault(p.Binary, "pocketsphinx_continuous") }
func (p *Pocketsphinx) model() string {
	return orDefault(p.ModelDir, "/usr/share/pocketsphinx/model/en-us")
}

func orDefault(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Name returns "pocketsphinx".
func (p *Pocketsphinx) Name() string { return "pocketsphinx" }

// Available checks for the binary and the English model.
func (p *Pocketsphinx) Available(ctx context.Context) error {
	if _, err := exec.LookPath(p.bin()); err != nil {
		return errNotAvailable("pocketsphinx: %s not found (apt-get install pocketsphinx pocketsphinx-en-us)", p.bin())
	}
	if _, err := os.Stat(filepath.Join(p.model(), "en-us")); err != nil {
		return errNotAvailable("pocketsphinx: no English model in %s (apt-get install pocketsphinx-en-us)", p.model())
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		return errNotAvailable("pocketsphinx: ffmpeg not found (apt-get install ffmpeg)")
	}
	return nil
}

// Serves reports whether pocketsphinx hears lang: English only (its one
// model here). A language not given ("") is served, assumed English.
func (p *Pocketsphinx) Serves(lang string) (bool, string) {
	if lang == "" || lang == "en" {
		return true, ""
	}
	return false, "pocketsphinx has only an English model here"
}

// Transcribe runs both passes over path (English only). With lang "" the
// speech is assumed English: the transcript says so, and no filler is cut
// without review (pocketsphinx cannot tell the language, and its English
// model hears "fillers" in any other).
func (p *Pocketsphinx) Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*Transcript, error) {
	if lang != "" && lang != "en" {
		return nil, fmt.Errorf("%w: %w: pocketsphinx has only an English model here, not %q", ErrUnavailable, ErrLanguage, lang)
	}
	if err := p.Available(ctx); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	dir, cleanup, err := scratch()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	wav, err := to16kWAV(ctx, path, dir)
	if err != nil {
		return nil, err
	}
	report(progress, 0.05)
	m := p.model()
	base := []string{"-infile", wav, "-time", "yes", "-logfn", os.DevNull,
		"-hmm", filepath.Join(m, "en-us"), "-dict", filepath.Join(m, "cmudict-en-us.dict")}
	out, err := p.run(ctx, append(base, "-lm", filepath.Join(m, "en-us.lm.bin")))
	if err != nil {
		return nil, err
	}
	words := parseSphinx(out, false)
	report(progress, 0.55)
	th := p.KWSThreshold
	if th <= 0 {
		th = 1e+5
	}
	kws := filepath.Join(dir, "fillers.kws")
	var kb strings.Builder
	for _, w := range []string{"um", "uh", "hmm"} {
		fmt.Fprintf(&kb, "%s /%g/\n", w, th)
	}
	if err := os.WriteFile(kws, []byte(kb.String()), 0o600); err != nil {
		return nil, err
	}
	out, err = p.run(ctx, append(base, "-kws", kws))
	if err != nil {
		return nil, err
	}
	var fillers []Filler
	for _, w := range parseSphinx(out, true) {
		if w.End-w.Start < minFillerSec {
			continue // a vowel inside a word, not a filled pause
		}
		fillers = append(fillers, Filler{Word: w.Word, Start: w.Start, End: w.End, Kind: "filler", Confidence: w.Confidence})
	}
	fillers = append(fillers, DetectFillers(words, "en")...)
	report(progress, 1)
	t := &Transcript{Status: "done", Language: "en", Engine: p.Name(), Words: words, Fillers: mergeFillers(fillers)}
	autoCut := float64(PocketsphinxAutoCut)
	if lang == "" {
		t.Warning = WarnLanguageAssumed
		autoCut = NoAutoCut
	}
	MarkFillers(t, autoCut)
	return t, nil
}

func (p *Pocketsphinx) run(ctx context.Context, args []string) ([]byte, error) {
	cmd := proc.Command(ctx, p.bin(), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("pocketsphinx: %v: %s", err, tail.Lines(stderr.String(), 3))
	}
	return out, nil
}

// parseSphinx reads "word start end confidence" lines (with -time yes),
// skipping <s>, </s>, <sil> and noise tokens.
func parseSphinx(out []byte, kws bool) []Word {
	var words []Word
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		start, e1 := strconv.ParseFloat(f[1], 64)
		end, e2 := strconv.ParseFloat(f[2], 64)
		conf, e3 := strconv.ParseFloat(f[3], 64)
		if e1 != nil || e2 != nil || e3 != nil || end < start {
			continue
		}
		w := normalize(f[0])
		if w == "" || strings.HasPrefix(f[0], "<") || strings.HasPrefix(f[0], "[") || strings.HasPrefix(f[0], "++") {
			continue
		}
		words = append(words, Word{Word: w, Start: start, End: end, Confidence: conf})
	}
	if kws { // the keyword pass lists detections newest first
		for i, j := 0, len(words)-1; i < j; i, j = i+1, j-1 {
			words[i], words[j] = words[j], words[i]
		}
	}
	return words
}

func report(p dsp.Progress, f float64) {
	if p != nil {
		p(f)
	}
}
