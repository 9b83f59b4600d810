package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/testtier"
)

// breathMaxClipMs is TestBreathMix's regression ceiling per blast level
// (dB over the speech level): the worst speech clipped in a case with
// breath blasts, as measured (the bar is 10 ms). With the references
// taken from the full band, 4 of the 18 cases clipped at 25 dB (up to
// 3270 ms, librispeech over crosstalk).
var breathMaxClipMs = map[float64]float64{15: 0, 25: 0}

// TestBreathMix plans the tune part's short recordings over every bed at
// 15 dB (TestCodecMix's default cases) as they are and with a breath blast
// on the microphone (corpus.Breath: 35 Hz, 15 and 25 dB over the speech
// level) opening every other phrase, with the podcast preset. The blasts
// are no speech and the rumble filter takes them out of the render, so
// the plan takes its speech level and peak from the levels after that
// filter (references): the speech clipped per case is logged beside the
// case as it is, and may not exceed breathMaxClipMs. (A report-part
// recording, MFA's cold_corpus, lost words this way; this is the tune
// part's case of it.)
func TestBreathMix(t *testing.T) {
	testtier.Slow(t, "breath cases: about 60 s")
	var cds []corpus.Condition
	for _, db := range slices.Sorted(maps.Keys(breathMaxClipMs)) {
		cds = append(cds, corpus.Breath(db))
	}
	res := runCodecMix(t, codecCases(false), cds)
	for _, cd := range cds {
		rows := res.rows[cd.Name]
		var lines []string
		worst, clipping, low := 0.0, 0, 100.0
		for i, r := range rows {
			b := res.base[i]
			worst = max(worst, r.s.ClippedMs)
			low = min(low, r.s.RemovedPct)
			if r.s.ClippedMs > 0 {
				clipping++
			}
			lines = append(lines, fmt.Sprintf("%-34s clip %6.1f ms (as it is %6.1f)  removed %5.1f%% (%5.1f%%)",
				r.c.Name, r.s.ClippedMs, b.s.ClippedMs, r.s.RemovedPct, b.s.RemovedPct))
		}
		t.Logf("%s, podcast: %d of %d cases clip, worst %.0f ms, removal %.1f %% at least:\n%s",
			cd.Name, clipping, len(rows), worst, low, strings.Join(lines, "\n"))
		if ceil := breathMaxClipMs[cd.BreathDb]; worst > ceil+1e-6 {
			t.Errorf("%s: a case clips %.0f ms of speech (ceiling %g ms)", cd.Name, worst, ceil)
		}
	}
}
