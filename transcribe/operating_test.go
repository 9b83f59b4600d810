package transcribe

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/internal/testtier"
)

// engineRun is one engine's transcripts of the clips it serves.
type engineRun struct {
	name    string
	autoCut float64 // the engine's constant
	clips   []clip
	trs     []*Transcript
}

// cuttable keeps the fillers FillerCuts may cut: none inside a word that
// is not its own.
func cuttable(t *Transcript) []Filler {
	var out []Filler
	for _, f := range t.Fillers {
		if _, _, in := wordsBeside(t.Words, f); !in {
			out = append(out, f)
		}
	}
	return out
}

// atLeast keeps the fillers of confidence thr or more.
func atLeast(fs []Filler, thr float64) []Filler {
	var out []Filler
	for _, f := range fs {
		if f.Confidence >= thr {
			out = append(out, f)
		}
	}
	return out
}

// scoreRun scores each clip's fillers chosen by pick.
func scoreRun(r engineRun, pick func(*Transcript) []Filler) []clipScore {
	var out []clipScore
	for i, c := range r.clips {
		out = append(out, scoreClip(c, pick(r.trs[i]), 0.3))
	}
	return out
}

// operatingPoint is the lowest confidence at which the cuttable fillers
// of the part reach precision 0.9 with at least minOperatingHits hits; ok
// is false when no confidence does. best is the highest precision seen
// with that many hits (for the report).
func operatingPoint(r engineRun, part string) (thr, best float64, ok bool) {
	var confs []float64
	for i, c := range r.clips {
		if c.part != part {
			continue
		}
		for _, f := range cuttable(r.trs[i]) {
			confs = append(confs, f.Confidence)
		}
	}
	slices.Sort(confs)
	confs = slices.Compact(confs)
	for _, th := range confs {
		f, h, fa := totals(scoreRun(r, func(t *Transcript) []Filler { return atLeast(cuttable(t), th) }), "", part)
		p, _ := prf(f, h, fa)
		if h < minOperatingHits {
			break // higher thresholds find fewer still
		}
		best = max(best, p)
		if p >= 0.9 && !ok {
			thr, ok = th, true
		}
	}
	return thr, best, ok
}

// speakerTable is the per-speaker report of a run: fillers listed
// (precision, recall) and fillers cut at the operating point.
func speakerTable(r engineRun, autoCut float64) string {
	listed := scoreRun(r, func(t *Transcript) []Filler { return t.Fillers })
	cut := scoreRun(r, func(t *Transcript) []Filler { return atLeast(cuttable(t), autoCut) })
	type key struct{ part, spk string }
	var keys []key
	sum := map[key][6]int{}
	for i, c := range r.clips {
		k := key{c.part, speaker(c.name)}
		if _, ok := sum[k]; !ok {
			keys = append(keys, k)
		}
		s := sum[k]
		s[0] += listed[i].fillers
		s[1] += listed[i].hits
		s[2] += listed[i].falseAls
		s[3] += cut[i].hits
		s[4] += cut[i].falseAls
		s[5]++
		sum[k] = s
	}
	slices.SortFunc(keys, func(a, b key) int { return strings.Compare(a.part+a.spk, b.part+b.spk) })
	var b strings.Builder
	fmt.Fprintf(&b, "| part | speaker | clips | fillers | listed: found / false | P | R | auto-cut: found / false | auto-cut P |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range keys {
		s := sum[k]
		p, rc := prf(s[0], s[1], s[2])
		cp, _ := prf(s[0], s[3], s[4])
		cps := fmt.Sprintf("%.2f", cp)
		if s[3]+s[4] == 0 {
			cps = "-"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d / %d | %.2f | %.2f | %d / %d | %s |\n", k.part, k.spk, s[5], s[0], s[1], s[2], p, rc, s[3], s[4], cps)
	}
	return b.String()
}

// TestFillerOperatingPoints measures each engine's operating point on the
// tune part of the labelled real material and checks the engine's
// constant against it: the lowest confidence reaching precision 0.9 (with
// minOperatingHits fillers found), or NoAutoCut when none does. It logs
// the per-speaker figures of docs/transcription.md, tune and report
// ("held") parts. pocketsphinx runs at about real time (4 minutes for the
// English clips; it never hears the French ones).
func TestFillerOperatingPoints(t *testing.T) {
	testtier.Slow(t, "every engine over the labelled filler clips")
	all := loadClips(t)
	ctx := context.Background()
	var runs []engineRun
	ac := engineRun{name: "acoustic", autoCut: AcousticAutoCut}
	for _, c := range all {
		tr, err := (&Acoustic{}).Transcribe(ctx, c.path, c.lang, nil)
		if err != nil {
			t.Fatalf("acoustic %s: %v", c.name, err)
		}
		ac.clips, ac.trs = append(ac.clips, c), append(ac.trs, tr)
	}
	runs = append(runs, ac)
	if _, err := exec.LookPath("pocketsphinx_continuous"); err == nil {
		ps := engineRun{name: "pocketsphinx", autoCut: PocketsphinxAutoCut}
		for _, c := range all {
			if ok, _ := (&Pocketsphinx{}).Serves(c.lang); !ok {
				continue
			}
			tr, err := (&Pocketsphinx{}).Transcribe(ctx, c.path, c.lang, nil)
			if err != nil {
				t.Fatalf("pocketsphinx %s: %v", c.name, err)
			}
			ps.clips, ps.trs = append(ps.clips, c), append(ps.trs, tr)
		}
		runs = append(runs, ps)
	} else {
		t.Log("pocketsphinx_continuous not installed: its operating point is not checked")
	}
	for _, r := range runs {
		thr, best, ok := operatingPoint(r, "tune")
		point := "none (precision 0.9 not reached)"
		if ok {
			point = fmt.Sprintf("%.4f", thr)
		}
		f, h, fa := totals(scoreRun(r, cuttable), "", "tune")
		t.Logf("%s: operating point on the tune part %s; best precision with %d or more found: %.2f; outside words at any confidence: %d of %d found, %d false; constant %g\n%s",
			r.name, point, minOperatingHits, best, h, f, fa, r.autoCut, speakerTable(r, r.autoCut))
		switch {
		case !ok && r.autoCut != NoAutoCut:
			t.Errorf("%s: the tune part reaches precision 0.9 at no confidence, but the engine cuts from %g: want NoAutoCut", r.name, r.autoCut)
		case ok && math.Abs(r.autoCut-thr) > 0.005:
			t.Errorf("%s: operating point measured %.4f, the engine's constant is %g", r.name, thr, r.autoCut)
		}
	}
}
