package plan

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/internal/testtier"
)

// pairSource is a dsp.Source of two mono signals as left and right, the
// right one times sign.
type pairSource struct {
	rate int
	l, r []float32
	sign float32
}

func (s *pairSource) Format() dsp.Format { return dsp.Format{SampleRate: s.rate, Channels: 2} }

func (s *pairSource) Read(p []float32) (int, error) {
	n := min(len(p)/2, len(s.l))
	if n == 0 {
		return 0, io.EOF
	}
	for i := range n {
		p[2*i], p[2*i+1] = s.l[i], s.sign*s.r[i]
	}
	s.l, s.r = s.l[n:], s.r[n:]
	return 2 * n, nil
}

// TestStereoMix plans stereo recordings of the real-speech set, wired
// right and with one channel in opposite polarity (a microphone cable
// wired the other way round): the speech on both channels, each over its
// own bed (the speaker's vinyl mix at 15 dB with its pink noise mix, its
// music mix at 20 dB with its static mix, the second brought to the
// first's speech level, scored against the first's truth). The voice network hears a stereo input as one channel; as the
// sum of the channels it heard nothing of the speech in opposite
// polarity, and on such files (one signal as L and -L) 0-38 % of the
// removable pause time was cut and june over crosstalk lost 1.66 s of
// speech (dsp's stereoPolarity). Wired either way, each case must plan
// alike: removal within a point, clipping no more than 10 ms apart.
func TestStereoMix(t *testing.T) {
	testtier.Slow(t, "stereo cases: about 20 s")
	m := corpus.NewMixer(realdata.AllRecordings(t)...)
	byName := map[string]corpus.MixCase{}
	for _, c := range corpus.MixCases() {
		byName[c.Name] = c
	}
	pr := DefaultPreset()
	var lines []string
	for _, sp := range corpus.MixSpeech() {
		name := corpus.MixSpeaker(sp)
		for _, pair := range [][2]string{{"vinyl-15", "pink-15"}, {"music-20", "static-20"}} {
			c, ok := byName[name+"-"+pair[0]]
			d, ok2 := byName[name+"-"+pair[1]]
			if !ok || !ok2 {
				t.Fatalf("no cases %s-%s and %s-%s", name, pair[0], name, pair[1])
			}
			left, err := m.Mix(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			right, err := m.Mix(context.Background(), d)
			if err != nil {
				t.Fatal(err)
			}
			// The speech at one level on both channels, as one microphone
			// gives it.
			g := float32(math.Pow(10, (left.Truth.SpeechDb-right.Truth.SpeechDb)/20))
			r := make([]float32, len(right.Samples))
			for i, v := range right.Samples {
				r[i] = g * v
			}
			var rows [2]mixRow
			for k, sign := range []float32{1, -1} {
				a, err := dsp.Analyze(context.Background(), &pairSource{left.Rate, left.Samples, r, sign}, dsp.Info{Name: c.Name}, nil)
				if err != nil {
					t.Fatal(err)
				}
				rows[k] = planMix(c, a, left.Truth, pr.Params)
			}
			w, inv := rows[0].s, rows[1].s
			lines = append(lines, fmt.Sprintf("%-28s wired right: removed %5.1f%% clip %4.0f P95 %3.0f; inverted: removed %5.1f%% clip %4.0f P95 %3.0f",
				c.Name+"+"+pair[1], w.RemovedPct, w.ClippedMs, w.BoundaryP95, inv.RemovedPct, inv.ClippedMs, inv.BoundaryP95))
			if inv.RemovedPct < w.RemovedPct-1 || inv.ClippedMs > w.ClippedMs+10 {
				t.Errorf("%s with %s, one channel inverted: removed %.1f %%, clipped %.0f ms; wired right: %.1f %%, %.0f ms",
					c.Name, pair[1], inv.RemovedPct, inv.ClippedMs, w.RemovedPct, w.ClippedMs)
			}
		}
	}
	t.Log("\n" + strings.Join(lines, "\n"))
}
