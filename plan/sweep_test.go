package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/internal/testtier"
)

// TestSweepKeepVoiced fits tuning.keepVoicedFrames (how long a faint
// stretch must be heard as a voice to stay, with crosstalk kept) on the
// tune part only: the tune part's conversations (the quieter voice's
// words lost, worst case and in all), the real-speech mixes (TestRealMix's
// cases, all from tune speakers: the pause time removed, the speech
// clipped) and the typing cases (keystrokes in the pauses, which the rule
// is there to cut), with the podcast preset, for each candidate. Slow
// tier.
func TestSweepKeepVoiced(t *testing.T) {
	testtier.Slow(t, "the sweep plans 262 mixes 7 times")
	m := corpus.NewMixer(realdata.AllRecordings(t)...)
	type mix struct {
		c  corpus.MixCase
		a  *dsp.Analysis
		tr corpus.MixTruth
	}
	var conv, mixes, typing []mix
	for _, c := range corpus.ConversationCases(conversationPairs["tune"], conversationBeds, 5000) {
		a, tr := analyseMix(t, m, c)
		conv = append(conv, mix{c, a, tr})
	}
	for _, c := range corpus.MixCases() {
		a, tr := analyseMix(t, m, c)
		mixes = append(mixes, mix{c, a, tr})
	}
	for _, c := range corpus.TypingCases() {
		a, tr := analyseMix(t, m, c)
		typing = append(typing, mix{c, a, tr})
	}
	p := DefaultPreset().Params
	presets := conversationPresets(t)
	lines := []string{fmt.Sprintf("%8s | %14s %14s | %10s %14s | %10s %14s", "frames", "conv worst ms", "conv lost s", "mix rem %", "mix clip ms", "typing rem %", "typing clip ms")}
	for _, k := range []int{1, 3, 5, 8, 10, 15, 0} {
		tu := defaultTuning
		tu.keepVoicedFrames = k
		scoreWith := func(x mix, q Params) corpus.MixScore {
			q = mixParams(x.c, q)
			pl, err := makeTuned(x.a, q, nil, tu)
			if err != nil {
				t.Fatal(err)
			}
			var cuts []corpus.Interval
			for _, c := range pl.Cuts {
				cuts = append(cuts, corpus.Interval{Start: c.Start, End: c.End})
			}
			return corpus.ScoreMix(x.tr, cuts, q.MinSilenceSec, q.KeepSilenceMs)
		}
		score := func(x mix) corpus.MixScore { return scoreWith(x, p) }
		// The quieter voice: over every conversational preset and full
		// removal.
		worst, lost := 0.0, 0.0
		for _, q := range presets {
			for _, x := range conv {
				s := scoreWith(x, q)
				worst, lost = max(worst, s.OtherClippedMs), lost+s.OtherClippedMs/1000
			}
		}
		rem, cut, clip := 0.0, 0.0, 0.0
		for _, x := range mixes {
			s := score(x)
			rem, cut, clip = rem+s.RemovableSec, cut+s.CutSec, max(clip, s.ClippedMs)
		}
		name := fmt.Sprint(k)
		if k == 0 {
			name = "0 (cut)"
		}
		trem, tcut, tclip := 0.0, 0.0, 0.0
		for _, x := range typing {
			s := score(x)
			trem, tcut, tclip = trem+s.RemovableSec, tcut+s.CutSec, max(tclip, s.ClippedMs)
		}
		lines = append(lines, fmt.Sprintf("%8s | %14.0f %14.2f | %10.1f %14.0f | %10.1f %14.0f", name, worst, lost, 100*cut/rem, clip, 100*tcut/trem, tclip))
	}
	t.Log("keepVoicedFrames on the tune part (conversations: every conversational preset and full removal; mixes and typing: podcast):\n" + strings.Join(lines, "\n"))
}
