package corpus

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/go-audio/wav"
	"github.com/google/go-cmp/cmp"
)

// readWAV decodes a 16- or 24-bit PCM WAV with go-audio/wav (not this
// package's writer) and returns its first channel scaled to [-1, 1], its
// channel count and its rate.
func readWAV(t *testing.T, path string) ([]float64, int, int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := wav.NewDecoder(f)
	buf, err := d.FullPCMBuffer()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ch := buf.Format.NumChannels
	full := float64(int(1)<<(buf.SourceBitDepth-1) - 1)
	x := make([]float64, len(buf.Data)/ch)
	for i := range x {
		x[i] = float64(buf.Data[i*ch]) / full
		for c := 1; c < ch; c++ {
			if buf.Data[i*ch+c] != buf.Data[i*ch] {
				t.Fatalf("%s: channels differ at frame %d", path, i)
			}
		}
	}
	return x, ch, buf.Format.SampleRate
}

// rmsDb is the RMS level of x[a:b] in dBFS (-inf for digital silence).
func rmsDb(x []float64, a, b int) float64 {
	a, b = max(a, 0), min(b, len(x))
	var s float64
	for _, v := range x[a:b] {
		s += v * v
	}
	return 10 * math.Log10(s/float64(b-a))
}

// testCases are four cases from seed 7, one per noise floor (none, pink,
// brown, white), kept short.
func testCases() []Case {
	cs := Cases(7, 4)
	noises := []*Noise{nil, {"pink", -58}, {"brown", -45}, {"white", -55}}
	for i := range cs {
		cs[i].Noise = noises[i]
		cs[i].Lines, cs[i].Gaps = cs[i].Lines[:4], cs[i].Gaps[:4]
		cs[i].Gaps[1] = 0.12 // a breath-length pause in every case
	}
	return cs
}

// TestSynthTruthMatchesAudio generates one case per noise floor and
// checks the truth against the audio, decoded by go-audio/wav: the file
// is as long as the truth says; speech, lead-in and gaps tile it; the
// pauses hold the noise floor at its level (RMS within 1 dB) and nothing
// else (the file minus the regenerated noise bed is zero there, to 16-bit
// rounding); the speech (the file minus the bed) peaks 12 dB over the
// speech level and is audible right at both edges (its first and last
// 20 ms no more than 3 dB under the trim level, so at least 3 dB over the
// floor); the 24-bit file matches the 16-bit one; the mp3 lasts as long
// (plus at most 0.1 s of encoder padding).
func TestSynthTruthMatchesAudio(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cases := testCases()
	truths, err := Synthesize(ctx, dir, cases, WAV, WAV24, MP3)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(truths, loaded, cmp.AllowUnexported(Truth{})); diff != "" {
		t.Errorf("truths written and read back differ (-written +read):\n%s", diff)
	}
	const w = SampleRate / 50 // 20 ms
	const lsb = 1.0 / 32767
	for k, tr := range truths {
		x, ch, rate := readWAV(t, tr.File(WAV))
		if ch != 2 || rate != SampleRate {
			t.Fatalf("%s: %d channels at %d Hz", tr.Name, ch, rate)
		}
		if got, want := len(x), int(math.Round(tr.Duration*SampleRate)); got != want {
			t.Fatalf("%s: %d frames, truth says %d", tr.Name, got, want)
		}
		x24, _, _ := readWAV(t, tr.File(WAV24))
		var maxDiff float64
		for i := range x24 {
			maxDiff = max(maxDiff, math.Abs(x24[i]-x[i]))
		}
		if len(x24) != len(x) || maxDiff > lsb {
			t.Errorf("%s: 24-bit file: %d frames, differs from the 16-bit one by %g", tr.Name, len(x24), maxDiff)
		}

		// Lead-in, speech and gaps tile [0, duration].
		end := 0.0
		sil := tr.Silences()
		for i, s := range tr.Speech {
			if len(sil) > 0 && sil[0].Start == end && sil[0].End <= s.Start {
				end, sil = sil[0].End, sil[1:]
			}
			if math.Abs(s.Start-end) > 1e-9 {
				t.Errorf("%s: speech %d starts at %.6f, the previous interval ends at %.6f", tr.Name, i, s.Start, end)
			}
			end = s.End
		}
		if len(sil) > 0 && math.Abs(sil[0].Start-end) < 1e-9 {
			end, sil = sil[0].End, sil[1:]
		}
		if len(sil) > 0 || math.Abs(end-tr.Duration) > 1e-9 {
			t.Errorf("%s: intervals end at %.6f of %.6f, %d silences left over", tr.Name, end, tr.Duration, len(sil))
		}

		// speech is the file minus the noise bed.
		floor := math.Inf(-1)
		speech := append([]float64(nil), x...)
		if c := cases[k]; c.Noise != nil {
			floor = c.Noise.LevelDbfs
			bed, err := noiseBed(c.Noise.Kind, len(x), c.Noise.LevelDbfs, c.NoiseSeed)
			if err != nil {
				t.Fatal(err)
			}
			for i := range speech {
				speech[i] -= float64(bed[i])
			}
		}
		idx := func(sec float64) int { return int(math.Round(sec * SampleRate)) }
		var pooled, n, residue float64
		for _, g := range tr.Silences() {
			a, b := idx(g.Start), idx(g.End)
			for i := a; i < b; i++ {
				pooled += x[i] * x[i]
				residue = max(residue, math.Abs(speech[i]))
			}
			n += float64(b - a)
		}
		pooledDb := 10 * math.Log10(pooled/n)
		if tr.Noise == nil && pooled != 0 || tr.Noise != nil && math.Abs(pooledDb-floor) > 1 {
			t.Errorf("%s: pauses at %.2f dBFS, noise floor %.1f", tr.Name, pooledDb, floor)
		}
		if residue > lsb {
			t.Errorf("%s: something besides the noise floor in the pauses: up to %.1f dBFS", tr.Name, 20*math.Log10(residue))
		}

		minEdge := math.Inf(1)
		for i, s := range tr.Speech {
			a, b := idx(s.Start), idx(s.End)
			var peak float64
			for _, v := range speech[a:b] {
				peak = max(peak, math.Abs(v))
			}
			if p := 20 * math.Log10(peak); math.Abs(p-(tr.SpeechLevelDbfs+12)) > 0.1 {
				t.Errorf("%s: utterance %d peaks at %.2f dBFS, want %.1f", tr.Name, i, p, tr.SpeechLevelDbfs+12)
			}
			in, out := rmsDb(speech, a, a+w), rmsDb(speech, b-w, b)
			minEdge = min(minEdge, in-tr.TrimDbfs, out-tr.TrimDbfs)
			if min(in, out) < tr.TrimDbfs-3 || min(in, out) < floor+3 {
				t.Errorf("%s: utterance %d [%.3f, %.3f]: first 20 ms %.1f dBFS, last %.1f; trim level %.1f, floor %.1f",
					tr.Name, i, s.Start, s.End, in, out, tr.TrimDbfs, floor)
			}
		}
		t.Logf("%s %-10s speech %5.1f trim %5.1f: %d utterances; pauses %6.1f dBFS; quietest 20 ms at a speech edge %+5.1f dB from the trim level",
			tr.Name, noiseName(tr.Noise), tr.SpeechLevelDbfs, tr.TrimDbfs, len(tr.Speech), pooledDb, minEdge)

		// The MP3 carries the same audio: its length matches up to the
		// encoder's padding.
		if d := probeDuration(t, tr.File(MP3)); d < tr.Duration-0.002 || d > tr.Duration+0.1 {
			t.Errorf("%s: mp3 lasts %.3f s, truth %.3f s", tr.Name, d, tr.Duration)
		}
	}
}

func noiseName(n *Noise) string {
	if n == nil {
		return "none"
	}
	return fmt.Sprintf("%s%g", n.Kind, n.LevelDbfs)
}

// TestCasesDeterministic: a seed always draws the same cases, another seed
// others, and every draw is within the documented ranges.
func TestCasesDeterministic(t *testing.T) {
	a, b := Cases(1, 20), Cases(1, 20)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("Cases(1) differs between calls:\n%s", diff)
	}
	if cmp.Equal(a, Cases(2, 20)) {
		t.Fatal("seeds 1 and 2 drew the same cases")
	}
	kinds := map[string]bool{}
	for _, c := range a {
		if n := len(c.Lines); n < 5 || n > 10 || len(c.Gaps) != n {
			t.Errorf("%s: %d lines, %d gaps", c.Name, n, len(c.Gaps))
		}
		if c.SpeechDbfs < -36 || c.SpeechDbfs > -18 || c.Speed < 140 || c.Speed > 190 {
			t.Errorf("%s: speech %g dBFS at %d wpm", c.Name, c.SpeechDbfs, c.Speed)
		}
		for _, g := range c.Gaps {
			if g < 0 || g > 5 {
				t.Errorf("%s: gap %g s", c.Name, g)
			}
		}
		kinds[noiseName(c.Noise)] = true
		if c.TrimDbfs() < c.SpeechDbfs+12-40 || (c.Noise != nil && c.TrimDbfs() < c.Noise.LevelDbfs+6) {
			t.Errorf("%s: trim level %g", c.Name, c.TrimDbfs())
		}
	}
	if len(kinds) < 4 {
		t.Errorf("20 cases drew only the noise floors %v", kinds)
	}
}

// TestSynthesizeErrors: bad recipes are refused with an error naming the
// case, before or while generating.
func TestSynthesizeErrors(t *testing.T) {
	ctx := context.Background()
	c := testCases()[0]
	bad := []struct {
		name    string
		formats []string
		mod     func(*Case)
	}{
		{"unknown format", []string{"ogg"}, func(*Case) {}},
		{"no lines", []string{WAV}, func(c *Case) { c.Lines, c.Gaps = nil, nil }},
		{"gaps do not match lines", []string{WAV}, func(c *Case) { c.Gaps = c.Gaps[:1] }},
		{"unknown noise", []string{WAV}, func(c *Case) { c.Noise = &Noise{"purple", -50} }},
		{"unknown voice", []string{WAV}, func(c *Case) { c.Voice = "xx-nonexistent" }},
	}
	for _, b := range bad {
		cc := c
		cc.Lines, cc.Gaps = append([]string(nil), c.Lines...), append([]float64(nil), c.Gaps...)
		b.mod(&cc)
		if _, err := Synthesize(ctx, t.TempDir(), []Case{cc}, b.formats...); err == nil {
			t.Errorf("%s: no error", b.name)
		} else {
			t.Logf("%s: %v", b.name, err)
		}
	}
}

// probeDuration is a file's duration by ffprobe.
func probeDuration(t *testing.T, path string) float64 {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("ffprobe %s: %q", path, out)
	}
	return d
}
