package transcribe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// TestPocketsphinxRealFillers reports pocketsphinx (the words engine, with
// its keyword-spotting filler pass) on the English clips of the real
// material, alone and fused with the acoustic detector, for the tuning and
// the held-back part (AUTOCUT_SPHINX=1: pocketsphinx runs at about realtime,
// minutes for the whole set). The fusion rules are compared on the tuning
// part; the held-back part is reported.
func TestPocketsphinxRealFillers(t *testing.T) {
	if os.Getenv("AUTOCUT_SPHINX") == "" {
		t.Skip("set AUTOCUT_SPHINX=1")
	}
	if _, err := exec.LookPath("pocketsphinx_continuous"); err != nil {
		t.Skip("pocketsphinx_continuous not installed (scripts/test.sh installs it)")
	}
	var en []clip
	for _, c := range loadClips(t) {
		if c.lang == "en" {
			en = append(en, c)
		}
	}
	cf := clipFeatures(t, en)
	rules := []struct {
		name string
		fuse func(ac []Filler, tr *Transcript) []Filler
	}{
		{"pocketsphinx alone", func(ac []Filler, tr *Transcript) []Filler { return tr.Fillers }},
		{"acoustic alone", func(ac []Filler, tr *Transcript) []Filler { return ac }},
		{"union", func(ac []Filler, tr *Transcript) []Filler {
			return mergeFillers(append(append([]Filler{}, ac...), tr.Fillers...))
		}},
		{"acoustic confirmed by a pocketsphinx filler", func(ac []Filler, tr *Transcript) []Filler {
			var out []Filler
			for _, a := range ac {
				for _, f := range tr.Fillers {
					if a.Start < f.End+0.1 && f.Start < a.End+0.1 {
						out = append(out, a)
						break
					}
				}
			}
			return out
		}},
		{"acoustic not mostly inside a recognised word", func(ac []Filler, tr *Transcript) []Filler {
			return outsideWords(ac, tr, 0.5)
		}},
		{"pocketsphinx fillers + acoustic outside words", func(ac []Filler, tr *Transcript) []Filler {
			return mergeFillers(append(outsideWords(ac, tr, 0.5), tr.Fillers...))
		}},
	}
	scores := make([][]clipScore, len(rules))
	for _, x := range cf {
		tr, err := (&Pocketsphinx{}).Transcribe(context.Background(), x.c.path, "en", nil)
		if err != nil {
			t.Fatalf("%s: %v", x.c.name, err)
		}
		ac := (&Acoustic{}).detect(x.feats, x.hop)
		for i, r := range rules {
			scores[i] = append(scores[i], scoreClip(x.c, r.fuse(ac, tr), 0.3))
		}
	}
	for i, r := range rules {
		line := r.name + ":"
		for _, part := range []string{"tune", "held"} {
			p, rc := prf(totals(scores[i], "en", part))
			f, h, fa := totals(scores[i], "en", part)
			line += fmt.Sprintf(" | %s: %d/%d found, %d false, precision %.2f recall %.2f", part, h, f, fa, p, rc)
		}
		t.Log(line)
	}
	t.Logf("pocketsphinx alone, held-back part:\n%s", table(scores[0], "held"))
}

// outsideWords keeps the detections that overlap the recognised words
// (fillers excluded) for less than frac of their length.
func outsideWords(ac []Filler, tr *Transcript, frac float64) []Filler {
	sure := map[string]bool{}
	for _, w := range sureFillers["en"] {
		sure[w] = true
	}
	var out []Filler
	for _, a := range ac {
		var in float64
		for _, w := range tr.Words {
			if sure[w.Word] {
				continue
			}
			in += max(0, min(a.End, w.End)-max(a.Start, w.Start))
		}
		if in < frac*(a.End-a.Start) {
			out = append(out, a)
		}
	}
	return out
}
