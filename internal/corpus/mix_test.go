package corpus

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/internal/realdata"
)

func recordings(tb testing.TB) *Mixer {
	tb.Helper()
	return NewMixer(realdata.Repo(tb, "testdata/recordings"))
}

// TestMixTruth checks the set's construction: the bed sits at the ratio
// asked (within 0.5 dB, measured on the bed alone), the truth's speech is
// sorted and inside the case, and the pauses were stretched.
func TestMixTruth(t *testing.T) {
	m := recordings(t)
	for _, c := range []MixCase{
		{Name: "a", Speech: MixSpeech()[0], Bed: BedPink, SNRDb: 15, Seed: 1},
		{Name: "b", Speech: MixSpeech()[0], Bed: BedHum, SNRDb: 25, Seed: 2},
		{Name: "c", Speech: MixSpeech()[1], Bed: BedCrosstalk, SNRDb: 20, Seed: 3},
	} {
		x, err := m.Mix(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		tr := x.Truth
		if d := tr.SpeechDb - tr.BedDb; d < c.SNRDb-0.01 || d > c.SNRDb+0.01 {
			t.Errorf("%s: speech %.1f, bed %.1f: ratio %.2f, want %g", c.Name, tr.SpeechDb, tr.BedDb, d, c.SNRDb)
		}
		pos, long := 0.0, 0
		for _, s := range tr.Speech {
			if s.Start < pos || s.End <= s.Start || s.End > tr.Duration+1e-9 {
				t.Fatalf("%s: speech %v out of order or range", c.Name, s)
			}
			if s.Start-pos >= 0.6 {
				long++
			}
			pos = s.End
		}
		if long < 3 {
			t.Errorf("%s: only %d pauses of 0.6 s or more", c.Name, long)
		}
		t.Logf("%s: %.1f s, speech %.1f dBFS, bed %.1f dBFS, audible from %.1f dBFS, %d runs, %d pauses >= 0.6 s", c.Name, tr.Duration, tr.SpeechDb, tr.BedDb, tr.AudibleDb, len(tr.Speech), long)
	}
}

// TestScoreMix checks the score on a hand-made truth.
func TestScoreMix(t *testing.T) {
	tr := MixTruth{Duration: 10, Speech: []Interval{{Start: 1, End: 3}, {Start: 5, End: 9}}}
	// Pauses: [0,1) lead, [3,5), [9,10) tail; keep 250 ms.
	cuts := []Interval{{Start: 0, End: 0.75}, {Start: 3.125, End: 4.875}, {Start: 9.3, End: 10}}
	s := ScoreMix(tr, cuts, 0.6, 250)
	if s.Pauses != 3 || s.PausesCut != 3 || s.ClippedMs != 0 {
		t.Errorf("score %+v", s)
	}
	if want := 0.75 + 1.75 + 0.7; s.CutSec < want-1e-9 || s.CutSec > want+1e-9 || s.RemovableSec != 0.75+1.75+0.75 {
		t.Errorf("cut %v of %v, want %v of 3.25", s.CutSec, s.RemovableSec, want)
	}
	// Four edges (0, 0, 0 and the tail cut's start, 50 ms late: more
	// kept); P95 is the edge at index int(0.95 x 3) = 2 of the sorted ones.
	if len(s.Edges) != 4 || s.Edges[3] < 49.999 || s.Edges[3] > 50.001 || s.BoundaryP95 > 1e-9 {
		t.Errorf("edges %v, P95 %v ms: want the last +50 ms and P95 0", s.Edges, s.BoundaryP95)
	}
	s = ScoreMix(tr, []Interval{{Start: 2.9, End: 5.1}}, 0.6, 250)
	if s.ClippedMs < 199.999 || s.ClippedMs > 200.001 {
		t.Errorf("clipped %v ms, want 200", s.ClippedMs)
	}
}

// TestDropClicks checks the click rule on runs as runsOver makes them (frame
// times computed as index x 10 ms), including gaps of exactly 100 ms that
// floating point puts a hair under it.
func TestDropClicks(t *testing.T) {
	fr := func(a, b int) Interval {
		return Interval{Start: float64(a) * truthFrameSec, End: float64(b) * truthFrameSec}
	}
	for _, c := range []struct {
		name string
		in   []Interval
		want []Interval
	}{
		{"lone 20 ms run 100 ms after speech", []Interval{fr(136, 199), fr(209, 211), fr(329, 365)}, []Interval{fr(136, 199), fr(329, 365)}},
		{"20 ms run 90 ms after speech", []Interval{fr(136, 199), fr(208, 210), fr(329, 365)}, []Interval{fr(136, 199), fr(208, 210), fr(329, 365)}},
		{"40 ms run stays", []Interval{fr(136, 199), fr(209, 213)}, []Interval{fr(136, 199), fr(209, 213)}},
		{"30 ms run alone", []Interval{fr(10, 13)}, nil},
		{"30 ms run 90 ms before speech", []Interval{fr(10, 13), fr(22, 40)}, []Interval{fr(10, 13), fr(22, 40)}},
	} {
		if d := cmp.Diff(c.want, dropClicks(c.in)); d != "" {
			t.Errorf("%s: (-want +got)\n%s", c.name, d)
		}
	}
}

// TestAGCGains checks the radio bed's gain control on a tone at the target
// level, 4 s of silence and the tone again: no gain on the tone, the gain
// rising over the release time in the silence up to agcMaxDb, and falling
// back within 100 ms when the tone returns.
func TestAGCGains(t *testing.T) {
	const target = -20.0
	x := make([]float32, 6*MixRate)
	amp := math.Sqrt2 * math.Pow(10, target/20)
	for i := range x {
		if i < MixRate || i >= 5*MixRate {
			x[i] = float32(amp * math.Sin(2*math.Pi*440*float64(i)/MixRate))
		}
	}
	g := agcGains(x, target)
	at := func(sec float64) float64 { return g[int(math.Round(sec*100))] }
	for _, c := range []struct {
		sec, lo, hi float64
	}{
		{0.5, -0.1, 0.1},               // the tone at the target: no gain
		{1 + agcReleaseSec, 5.5, 7},    // one release time into the silence: 1 - 1/e of the way
		{4.95, agcMaxDb - 1, agcMaxDb}, // nearly all the way, never more
		{5.1, -0.1, 1},                 // the tone back: down within 100 ms
		{5.9, -0.1, 0.1},
	} {
		if v := at(c.sec); v < c.lo || v > c.hi {
			t.Errorf("gain at %.2f s %.2f dB, want %.1f to %.1f", c.sec, v, c.lo, c.hi)
		}
	}
}

// TestRadioTruth checks a radio case: the gain control brings the static
// up (the bed's RMS after it lies 0-10 dB over the ratio's), and the
// truth's speech is sorted and inside the case.
func TestRadioTruth(t *testing.T) {
	m := recordings(t)
	for _, c := range RadioCases()[:5] {
		x, err := m.Mix(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		tr := x.Truth
		if up := tr.BedDb - (tr.SpeechDb - c.SNRDb); up <= 0 || up > agcMaxDb {
			t.Errorf("%s: bed %.1f dBFS, %.1f dB over the ratio's, want 0-%g", c.Name, tr.BedDb, up, agcMaxDb)
		}
		pos := 0.0
		for _, s := range tr.Speech {
			if s.Start < pos || s.End <= s.Start || s.End > tr.Duration+1e-9 {
				t.Fatalf("%s: speech %v out of order or range", c.Name, s)
			}
			pos = s.End
		}
		t.Logf("%s: bed %.1f dBFS (%.1f dB up), %d runs", c.Name, tr.BedDb, tr.BedDb-(tr.SpeechDb-c.SNRDb), len(tr.Speech))
	}
}

// TestRadioChannel checks the link's band on tones: 300-3400 Hz passes,
// a low hum and the upper voice band are cut.
func TestRadioChannel(t *testing.T) {
	for _, tc := range []struct {
		hz       float64
		min, max float64 // gain, dB
	}{
		{60, -100, -40},
		{150, -100, -20},
		{1000, -0.5, 0.5},
		{2500, -3, 0}, // two sections at 3400 Hz: -2.2 dB here
		{6000, -100, -20},
	} {
		x := make([]float32, MixRate)
		for i := range x {
			x[i] = float32(0.5 * math.Sin(2*math.Pi*tc.hz*float64(i)/MixRate))
		}
		y := radioChannel(x)
		var px, py float64
		for i := MixRate / 2; i < MixRate; i++ { // past the filters' start
			px += float64(x[i]) * float64(x[i])
			py += float64(y[i]) * float64(y[i])
		}
		if g := 10 * math.Log10(py/px); g < tc.min || g > tc.max {
			t.Errorf("%g Hz: gain %.2f dB, want %g to %g", tc.hz, g, tc.min, tc.max)
		}
	}
}

// TestRoom checks the room cases' reverberator: an impulse's energy decays
// at the reverberation time asked for (the Schroeder integral's fall from
// -5 to -25 dB, times 3, within 15 %), and the reverberation stands
// roomWetDb under the direct sound.
func TestRoom(t *testing.T) {
	for _, rt60 := range []float64{0.3, 0.5, 0.8} {
		x := make([]float32, 2*MixRate)
		x[0] = 1
		y := room(x, rt60)
		// Schroeder backward integral of the reverberation (the impulse
		// itself left out).
		e := make([]float64, len(y))
		acc := 0.0
		for i := len(y) - 1; i >= 1; i-- {
			acc += float64(y[i]) * float64(y[i])
			e[i] = acc
		}
		at := func(db float64) float64 {
			for i := 1; i < len(e); i++ {
				if 10*math.Log10(e[i]/e[1]) <= db {
					return float64(i) / MixRate
				}
			}
			return math.Inf(1)
		}
		if got := 3 * (at(-25) - at(-5)); math.Abs(got-rt60)/rt60 > 0.15 {
			t.Errorf("RT60 %g s: measured %.3f s", rt60, got)
		}
		if wet := 10 * math.Log10(e[1]/(float64(y[0])*float64(y[0]))); math.Abs(wet-roomWetDb) > 0.5 {
			t.Errorf("RT60 %g s: reverberation %.2f dB against the direct sound, want %g", rt60, wet, roomWetDb)
		}
	}
}

// TestMixRate checks a case at another rate: a sixth of the samples at 8
// kHz, the level within 0.3 dB of the 48 kHz mix's and the truth's speech
// within 2 % of its length (the phone band passes the low-pass nearly
// whole), the ratio kept, the truth the same as the band case's (the same
// low-pass at 48 kHz); a rate that does not divide MixRate, or without a
// low-pass under half of it, is refused.
func TestMixRate(t *testing.T) {
	m := recordings(t)
	c := PhoneCases()[0]
	full, err := m.Mix(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	rc := RateCases([]MixCase{c}, 8000)[0]
	if rc.Name != c.Name+"-8k" || rc.Rate != 8000 {
		t.Fatalf("RateCases: %+v", rc)
	}
	low, err := m.Mix(context.Background(), rc)
	if err != nil {
		t.Fatal(err)
	}
	if low.Rate != 8000 || full.Rate != MixRate {
		t.Errorf("rates %d, %d", low.Rate, full.Rate)
	}
	if len(low.Samples) != (len(full.Samples)+5)/6 {
		t.Errorf("%d samples at 8 kHz for %d at 48 kHz", len(low.Samples), len(full.Samples))
	}
	ms := func(x []float32) float64 {
		var s float64
		for _, v := range x {
			s += float64(v) * float64(v)
		}
		return 10 * math.Log10(s/float64(len(x)))
	}
	if a, b := ms(full.Samples), ms(low.Samples); math.Abs(a-b) > 0.3 {
		t.Errorf("level %.2f dB at 8 kHz, %.2f dB at 48 kHz", b, a)
	}
	speech := func(tr MixTruth) float64 {
		var s float64
		for _, x := range tr.Speech {
			s += x.End - x.Start
		}
		return s
	}
	if a, b := speech(full.Truth), speech(low.Truth); math.Abs(a-b) > 0.02*a {
		t.Errorf("truth's speech %.2f s at 8 kHz, %.2f s at 48 kHz", b, a)
	}
	if d := low.Truth.SpeechDb - low.Truth.BedDb; math.Abs(d-c.SNRDb) > 0.01 {
		t.Errorf("ratio %.2f dB at 8 kHz, want %g", d, c.SNRDb)
	}
	bc := BandCases([]MixCase{c}, 8000)[0]
	band, err := m.Mix(context.Background(), bc)
	if err != nil {
		t.Fatal(err)
	}
	if bc.Name != c.Name+"-8k-band" || band.Rate != MixRate || len(band.Samples) != len(full.Samples) {
		t.Errorf("band case %s: %d samples at %d Hz", bc.Name, len(band.Samples), band.Rate)
	}
	tr := low.Truth
	tr.Name = bc.Name
	if diff := cmp.Diff(band.Truth, tr); diff != "" {
		t.Errorf("truth at 8 kHz differs from the band case's (-band +8k):\n%s", diff)
	}
	for _, bad := range []MixCase{
		{Name: "x", Speech: c.Speech, Bed: c.Bed, SNRDb: 20, Rate: 7000, LowPassHz: 3000},
		{Name: "y", Speech: c.Speech, Bed: c.Bed, SNRDb: 20, Rate: 8000},
		{Name: "z", Speech: c.Speech, Bed: c.Bed, SNRDb: 20, Rate: 8000, LowPassHz: 4000},
	} {
		if _, err := m.Mix(context.Background(), bad); err == nil {
			t.Errorf("rate %d, low-pass %g Hz: no error", bad.Rate, bad.LowPassHz)
		}
	}
}

// TestMixOffset checks the offset variant: the same mix, every sample
// moved by the offset (within the dither), the same truth, alternating signs.
func TestMixOffset(t *testing.T) {
	m := recordings(t)
	cs := MixCases()[:2]
	oc := OffsetCases(cs, 0.01)
	if oc[0].Name != cs[0].Name+"-dc0.01" || oc[1].Name != cs[1].Name+"-dc-0.01" || oc[0].Offset != 0.01 || oc[1].Offset != -0.01 {
		t.Fatalf("OffsetCases: %+v", oc)
	}
	for i, c := range cs {
		plain, err := m.Mix(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		moved, err := m.Mix(context.Background(), oc[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(plain.Samples) != len(moved.Samples) {
			t.Fatalf("%s: %d samples, %d with the offset", c.Name, len(plain.Samples), len(moved.Samples))
		}
		var sum float64
		for k, v := range moved.Samples {
			sum += float64(v - plain.Samples[k])
		}
		if mean := sum / float64(len(plain.Samples)); math.Abs(mean-oc[i].Offset) > 1e-4 {
			t.Errorf("%s: the samples move by %.5f on average, want %g", oc[i].Name, mean, oc[i].Offset)
		}
		if d := cmp.Diff(plain.Truth.Speech, moved.Truth.Speech); d != "" || plain.Truth.SpeechDb != moved.Truth.SpeechDb {
			t.Errorf("%s: the truth moves with the offset:\n%s", oc[i].Name, d)
		}
	}
}

// TestTypingBed checks the typing bed: keystrokes stand out of a faint
// floor (their 10 ms levels peak 10-20 dB over the bed's RMS, the floor
// lies 20 dB or more under it), come in bursts with pauses of a second or
// more between some, and the same seed gives the same bed.
func TestTypingBed(t *testing.T) {
	const n = 60 * MixRate
	x := typing(n, rand.New(rand.NewPCG(7, 8)))
	if d := cmp.Diff(x, typing(n, rand.New(rand.NewPCG(7, 8)))); d != "" {
		t.Fatalf("the same seed gives another bed")
	}
	const fl = MixRate / 100
	var all float64
	lv := make([]float64, n/fl)
	for f := range lv {
		s := 0.0
		for _, v := range x[f*fl : (f+1)*fl] {
			s += float64(v) * float64(v)
		}
		all += s
		lv[f] = 10 * math.Log10(s/fl+1e-20)
	}
	rms := 10 * math.Log10(all/float64(len(lv)*fl))
	sorted := slices.Clone(lv)
	slices.Sort(sorted)
	p10, peak := sorted[len(sorted)/10], sorted[len(sorted)-1]
	if peak-rms < 10 || peak-rms > 20 {
		t.Errorf("keystrokes peak %.1f dB over the bed's RMS, want 10-20", peak-rms)
	}
	if rms-p10 < 20 {
		t.Errorf("the floor lies %.1f dB under the bed's RMS, want 20 or more", rms-p10)
	}
	// Pauses: runs of 1 s or more with no frame 10 dB over the floor.
	pauses, run := 0, 0
	for _, v := range lv {
		if v < p10+10 {
			run++
			continue
		}
		if run >= 100 {
			pauses++
		}
		run = 0
	}
	if pauses < 3 {
		t.Errorf("%d pauses of 1 s in 60 s of typing, want 3 or more", pauses)
	}
	t.Logf("typing: keystrokes peak %.1f dB over the RMS, floor %.1f dB under it, %d pauses of 1 s or more in 60 s", peak-rms, rms-p10, pauses)
}
