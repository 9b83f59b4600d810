package corpus

import (
	"context"
	"fmt"
	"math"
)

// The conversation cases: two real voices taking turns (never at once),
// the second OtherDb quieter than the first (the far side of a call, a
// radio link, a guest off-mic), over a bed. Every audible word of either
// voice is speech: nothing in the truth says which voice matters.

// turnMinSec is the shortest turn: a voice's recording is cut into turns
// at the middles of its pauses, each turn at least this long.
const turnMinSec = 3.0

// turnGapSec is the shortest pause a turn may end in.
const turnGapSec = 0.3

// activeLevel returns x's active speech level (dBFS): the RMS of the 10 ms
// frames the truth rule finds audible in x alone, and that rule's
// threshold (dB, in x's scale).
func activeLevel(x []float32) (activeDb, thrDb float64, err error) {
	fl := MixRate / 100
	nf := (len(x) + fl - 1) / fl
	ms := frameMS(x, fl, nf)
	peak := 0.0
	for _, v := range x {
		peak = max(peak, math.Abs(float64(v)))
	}
	thrDb = max(db20(peak)-truthPeakDepthDb, floorOf(ms)+truthFloorMarginDb)
	var sum float64
	cnt := 0
	for i, v := range window20(ms) {
		if db10(v) >= thrDb {
			sum += ms[i]
			cnt++
		}
	}
	if cnt == 0 {
		return 0, 0, fmt.Errorf("corpus: no audible speech")
	}
	return db10(sum / float64(cnt)), thrDb, nil
}

// turnsOf cuts x into turns: at the middle of each pause of turnGapSec or
// more between audible runs, once the turn so far lasts turnMinSec.
// Returned as sample offsets [start, end).
func turnsOf(x []float32) [][2]int {
	fl := MixRate / 100
	nf := (len(x) + fl - 1) / fl
	ms := frameMS(x, fl, nf)
	_, thr, err := activeLevel(x)
	if err != nil {
		return [][2]int{{0, len(x)}}
	}
	runs := runsOver(window20(ms), thr, len(x))
	var out [][2]int
	start := 0
	for k := 1; k < len(runs); k++ {
		g0, g1 := int(runs[k-1].End*MixRate), int(runs[k].Start*MixRate)
		mid := (g0 + g1) / 2
		if float64(g1-g0)/MixRate >= turnGapSec && float64(mid-start)/MixRate >= turnMinSec {
			out = append(out, [2]int{start, mid})
			start = mid
		}
	}
	return append(out, [2]int{start, len(x)})
}

// converse interleaves the turns of a and b (a's first), crossfading 10
// ms at each seam, and returns the conversation and the spans (s) of b's
// turns in it.
func converse(a, b []float32) ([]float32, []Interval) {
	ta, tb := turnsOf(a), turnsOf(b)
	const xf = MixRate / 100
	out := make([]float32, 0, len(a)+len(b))
	var spans []Interval
	put := func(x []float32) {
		if len(out) < xf || len(x) < xf {
			out = append(out, x...)
			return
		}
		t := len(out) - xf
		for i := 0; i < xf; i++ {
			w := float32(i) / xf
			out[t+i] = out[t+i]*(1-w) + x[i]*w
		}
		out = append(out, x[xf:]...)
	}
	for i := 0; i < max(len(ta), len(tb)); i++ {
		if i < len(ta) {
			put(a[ta[i][0]:ta[i][1]])
		}
		if i < len(tb) {
			s := len(out)
			put(b[tb[i][0]:tb[i][1]])
			spans = append(spans, Interval{Start: float64(max(s-xf, 0)) / MixRate, End: float64(len(out)) / MixRate})
		}
	}
	return out, spans
}

// talk is a conversation: the two voices in turns, the spans of the other
// voice's turns, and each voice's own audible threshold (the truth rule on
// that voice alone, dB in the conversation's scale): each voice's words are
// judged against its own peak and its own room's floor, not the other's.
type talk struct {
	x              []float32
	spans          []Interval
	thrMain, thrOt float64
}

// thrAt returns the audible threshold of 10 ms frame f.
func (t *talk) thrAt(f int) float64 {
	s := float64(f) * truthFrameSec
	for _, o := range t.spans {
		if s >= o.Start && s < o.End {
			return t.thrOt
		}
	}
	return t.thrMain
}

// conversation returns case c's two voices in turns (Other OtherDb under
// Speech in active level, through a room of OtherRoomRT60 if set).
func (m *Mixer) conversation(ctx context.Context, c MixCase, main []float32) (*talk, error) {
	other, err := m.speech(ctx, c.Other)
	if err != nil {
		return nil, err
	}
	la, ta, err := activeLevel(main)
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", c.Speech, err)
	}
	lb, _, err := activeLevel(other)
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", c.Other, err)
	}
	g := float32(math.Pow(10, (la-c.OtherDb-lb)/20))
	b := make([]float32, len(other))
	for i, v := range other {
		b[i] = g * v
	}
	if c.OtherRoomRT60 > 0 {
		b = room(b, c.OtherRoomRT60)
	}
	_, tb, err := activeLevel(b)
	if err != nil {
		return nil, fmt.Errorf("corpus: %s: %w", c.Other, err)
	}
	x, spans := converse(main, b)
	return &talk{x: x, spans: spans, thrMain: ta, thrOt: tb}, nil
}

// ConversationBedDb is how far under the quieter voice the bed of a
// conversation case lies: the quieter voice stands 15 dB over it, the
// ratio at which every pause must be found (TestRealMix's bar).
const ConversationBedDb = 15

// ConversationCases returns conversation cases: each pair of voices
// (main, other) with the other 6, 12 and 20 dB quieter, over each bed of
// beds ConversationBedDb under the quieter voice, and once more with the
// other voice in a room (RT60 0.5 s) over the first bed at 12 dB. Seeds
// start at seed.
func ConversationCases(pairs [][2]string, beds []Bed, seed uint64) []MixCase {
	var out []MixCase
	add := func(p [2]string, b Bed, d, rt60 float64, room string) {
		out = append(out, MixCase{
			Name:   fmt.Sprintf("conv-%s-%s-%g%s-%s", MixSpeaker(p[0]), MixSpeaker(p[1]), d, room, b),
			Speech: p[0], Other: p[1], OtherDb: d, OtherRoomRT60: rt60, Bed: b, SNRDb: d + ConversationBedDb, Seed: seed,
		})
		seed++
	}
	for _, p := range pairs {
		for _, b := range beds {
			for _, d := range []float64{6, 12, 20} {
				add(p, b, d, 0, "")
			}
		}
		add(p, beds[0], 12, 0.5, "-room")
	}
	return out
}
