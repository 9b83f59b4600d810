package plan

import (
	"math"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/google/go-cmp/cmp"
)

// TestSpreadBeds checks that the pauses a foreground island splits keep the
// bed measured for the pause before the split, on both sides.
func TestSpreadBeds(t *testing.T) {
	// Islands 0 and 2 are speech, 1 a foreground sound in the pause between
	// them: the pauses before the merge are [lead, between, tail].
	is := []island{{s: 10}, {s: 50, fg: true}, {s: 90}}
	bed := []float64{-60, -50, -40}
	wide := []float64{-61, -51, -41}
	ok := []bool{true, false, true}
	rate := []float64{0.1, 0.2, 0.3}
	b, w, o, r := spreadBeds(is, bed, wide, ok, rate)
	if d := cmp.Diff([]float64{-60, -50, -50, -40}, b); d != "" {
		t.Errorf("beds (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]float64{-61, -51, -51, -41}, w); d != "" {
		t.Errorf("wide beds (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]bool{true, false, false, true}, o); d != "" {
		t.Errorf("flags (-want +got)\n%s", d)
	}
	if d := cmp.Diff([]float64{0.1, 0.2, 0.2, 0.3}, r); d != "" {
		t.Errorf("rates (-want +got)\n%s", d)
	}
	// Two foreground sounds in the lead pause, one before the last island.
	is = []island{{s: 1, fg: true}, {s: 3, fg: true}, {s: 10}, {s: 40, fg: true}, {s: 50}}
	b, _, _, _ = spreadBeds(is, bed, wide, ok, rate)
	if d := cmp.Diff([]float64{-60, -60, -60, -50, -50, -40}, b); d != "" {
		t.Errorf("beds, three sounds (-want +got)\n%s", d)
	}
}

// TestApartAnchor checks that a start anchor moves in past a run of
// bursts that stands apart from the word (more than the onset bridge under
// the burst level after it) and peaks more than the faint-voice depth under
// the speech level, and only then.
func TestApartAnchor(t *testing.T) {
	const (
		bed    = -50.0
		speech = -20.0
	)
	r := edgeRule{burst: bed + 7}
	// lv builds frame levels from runs of (count, level).
	lv := func(runs ...float64) []float32 {
		var out []float32
		for i := 0; i < len(runs); i += 2 {
			for range int(runs[i]) {
				out = append(out, float32(runs[i+1]))
			}
		}
		return out
	}
	tests := []struct {
		name  string
		lv    []float32
		faint float64
		want  int
	}{
		{"a note 12 frames before the word", lv(5, -41, 12, -47, 10, -20), 15, 17},
		{"a loud sound before the word is speech", lv(5, -30, 12, -47, 10, -20), 15, 0},
		{"a gap the onset bridges", lv(5, -41, 2, -47, 10, -20), 15, 0},
		{"a gap one frame over the bridge", lv(5, -41, 3, -47, 10, -20), 15, 8},
		{"no faint-voice depth: off", lv(5, -41, 12, -47, 10, -20), 0, 0},
		{"two faint sounds", lv(3, -42, 5, -48, 2, -40, 6, -46, 10, -20), 15, 16},
		{"nothing after the run", lv(5, -41, 12, -47), 15, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := maker{env: &dsp.Envelope{FrameSec: 0.01, RMSDb: tc.lv}, n: len(tc.lv), speech: speech, faint: tc.faint, tu: defaultTuning, tb: newDBTable()}
			if got := m.apartAnchor(0, m.n-1, r); got != tc.want {
				t.Errorf("anchor %d, want %d", got, tc.want)
			}
		})
	}
}

// TestAroundLevel checks the level right around a short island (the frames
// within edgeQuietNear on each side, less edgeGuard, between its
// neighbours) and that a pause's bed is lowered to it, never raised.
func TestAroundLevel(t *testing.T) {
	lv := make([]float32, 100)
	for i := range lv {
		switch {
		case i < 45:
			lv[i] = -60
		case i < 50:
			lv[i] = -30 // the island [45, 50)
		default:
			lv[i] = -40
		}
	}
	m := maker{env: &dsp.Envelope{FrameSec: 0.01, RMSDb: lv}, n: len(lv), speech: -20, audible: -100, tu: defaultTuning, tb: newDBTable()}
	x := island{rs: 45, re: 50}
	// 20 frames at -60 before (22-41), 20 at -40 after (53-72).
	want := 10 * math.Log10((math.Pow(10, -6)+math.Pow(10, -4))/2)
	if l, ok := m.aroundLevel(x, 0, 100); !ok || math.Abs(l-want) > 0.01 {
		t.Errorf("around level %.2f (%v), want %.2f", l, ok, want)
	}
	// Neighbours close by: 5 frames before (37-41), 2 after (53-54).
	if l, ok := m.aroundLevel(x, 37, 55); ok {
		t.Errorf("around level %.2f from 7 frames, want none", l)
	}
	l, ok := m.aroundLevel(x, 0, 100)
	if got, wantB := m.aroundRule(l, ok, -35, -35).burst, m.edgeRule(want, want).burst; math.Abs(got-wantB) > 1e-9 {
		t.Errorf("burst %.2f over a bed above the level around, want %.2f", got, wantB)
	}
	if got, wantB := m.aroundRule(l, ok, -50, -49).burst, m.edgeRule(-50, -49).burst; math.Abs(got-wantB) > 1e-9 {
		t.Errorf("burst %.2f over a bed under the level around, want %.2f (unchanged)", got, wantB)
	}
	if got, wantB := m.aroundRule(-70, false, -50, -49).burst, m.edgeRule(-50, -49).burst; math.Abs(got-wantB) > 1e-9 {
		t.Errorf("burst %.2f with no level around, want %.2f (unchanged)", got, wantB)
	}
}

// TestClick checks which frames are a crackle's: a frame whose peak stands
// 13 dB over its level with, on each side, a frame under the burst level or
// a second such frame (a crackle across two frames) and then one under it.
func TestClick(t *testing.T) {
	const (
		bed  = -60.0
		loud = -40.0 // over the burst level (bed + 7)
	)
	r := edgeRule{burst: bed + 7}
	tests := []struct {
		name  string
		lv    []float32 // frame levels; peaks are level + crest
		crest []float32
		j     int
		want  bool
	}{
		{"a lone crackle", []float32{-60, loud, -60}, []float32{8, 16, 8}, 1, true},
		{"a crackle across two frames, first", []float32{-60, loud, loud, -60}, []float32{8, 16, 15, 8}, 1, true},
		{"a crackle across two frames, second", []float32{-60, loud, loud, -60}, []float32{8, 16, 15, 8}, 2, true},
		{"a sharp frame next to speech (a release)", []float32{-60, loud, loud, loud}, []float32{8, 16, 7, 7}, 1, false},
		{"two sharp frames before speech", []float32{-60, loud, loud, loud}, []float32{8, 16, 16, 7}, 1, false},
		{"a loud frame of no crest", []float32{-60, loud, -60}, []float32{8, 9, 8}, 1, false},
		{"a crackle of 13.5 dB (librispeech over static)", []float32{-60, loud, -60}, []float32{8, 13.5, 8}, 1, true},
		{"a frame of 12.5 dB", []float32{-60, loud, -60}, []float32{8, 12.5, 8}, 1, false},
		{"at the start", []float32{loud, -60}, []float32{16, 8}, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pk := make([]float32, len(tc.lv))
			for i := range pk {
				pk[i] = tc.lv[i] + tc.crest[i]
			}
			m := maker{env: &dsp.Envelope{FrameSec: 0.01, RMSDb: tc.lv, PeakDb: pk}, n: len(tc.lv), tu: defaultTuning, tb: newDBTable()}
			if got := m.click(tc.j, r); got != tc.want {
				t.Errorf("click(%d) = %v, want %v", tc.j, got, tc.want)
			}
		})
	}
}

// TestVoicedIsland checks which islands the voice network hears as speech:
// at least 3 classified frames, half or more of them scoring 0.5 or more;
// frames level decided count neither way.
func TestVoicedIsland(t *testing.T) {
	const (
		sp = uint8(229) // classified, 0.9
		no = uint8(26)  // classified, 0.1
		hi = uint8(128) // the lowest code at 0.5 or more (0.502)
		lo = uint8(127) // 0.498
		fl = dsp.VoiceFloor
		ld = dsp.VoiceLoud
	)
	tests := []struct {
		name  string
		voice []uint8
		want  bool
	}{
		{"a syllable the network hears", []uint8{sp, sp, sp}, true},
		{"two frames: under one chunk", []uint8{sp, sp, no}, false},
		{"half of them", []uint8{sp, no, sp, no, sp, no}, true},
		{"under half", []uint8{sp, no, sp, no, sp, no, no}, false},
		{"loud and floor frames do not count", []uint8{ld, ld, sp, sp, sp, fl, ld}, true},
		{"loud alone (a click level found)", []uint8{ld, ld, ld, ld}, false},
		{"at 0.5", []uint8{hi, hi, hi}, true},
		{"just under 0.5", []uint8{lo, lo, lo}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.voice)
			m := maker{env: &dsp.Envelope{FrameSec: 0.01, RMSDb: make([]float32, n), PeakDb: make([]float32, n), Voice: tc.voice}, n: n}
			if got := m.voicedIsland(0, n); got != tc.want {
				t.Errorf("voicedIsland = %v, want %v", got, tc.want)
			}
		})
	}
	m := maker{env: &dsp.Envelope{FrameSec: 0.01, RMSDb: make([]float32, 3), PeakDb: make([]float32, 3)}, n: 3}
	if m.voicedIsland(0, 3) {
		t.Error("an analysis without a voice classification: voiced island")
	}
}

// TestForegroundRun checks the foreground rule's test of a run's own
// frames: fgRawMin levels fgRawDb over the steady bed, or one fewer where
// the network scores a frame of it fgHeardMin or more; never a click or an
// all-unvoiced run.
func TestForegroundRun(t *testing.T) {
	const (
		bed   = -50.0
		up    = float32(bed + 8) // 8 dB over the bed (fgRawDb: 7)
		low   = float32(bed + 5)
		heard = uint8(33) // classified, 0.126: over fgHeardMin (0.12)
		faint = uint8(29) // 0.11: under it
		gone  = uint8(3)  // 0.008: clearly not speech (edgeVoiceStop)
		ld    = dsp.VoiceLoud
	)
	tests := []struct {
		name  string
		rms   []float32
		voice []uint8
		crest int // a frame whose peak stands 13 dB over its RMS (-1: none)
		want  bool
	}{
		{"three levels over the bed", []float32{low, up, up, up, low}, []uint8{faint, faint, faint, faint, faint}, -1, true},
		{"two levels, scored under the bound", []float32{low, up, up, low, low}, []uint8{faint, faint, faint, faint, faint}, -1, false},
		{"two levels, a frame heard a little like voice", []float32{low, up, up, low, low}, []uint8{faint, faint, heard, faint, faint}, -1, true},
		{"one level, heard", []float32{low, up, low, low, low}, []uint8{heard, heard, heard, heard, heard}, -1, false},
		{"two levels, loud by level (not heard)", []float32{low, up, up, low, low}, []uint8{ld, ld, ld, ld, ld}, -1, false},
		{"a click in it", []float32{low, up, up, up, low}, []uint8{heard, heard, heard, heard, heard}, 2, false},
		{"all unvoiced", []float32{up, up, up, up, up}, []uint8{gone, gone, gone, gone, gone}, -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := len(tc.rms)
			peak := make([]float32, n)
			for i, l := range tc.rms {
				peak[i] = l + 3
			}
			if tc.crest >= 0 {
				peak[tc.crest] = tc.rms[tc.crest] + 13
			}
			m := maker{env: &dsp.Envelope{FrameSec: 0.01, RMSDb: tc.rms, PeakDb: peak, Voice: tc.voice}, n: n, tu: defaultTuning}
			if got := m.foregroundRun(0, n, bed); got != tc.want {
				t.Errorf("foregroundRun = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestQuietBed checks the bed a pause's edges are placed by: a quiet bed
// (edgeQuietBedDb or more under the speech level, edgeTailRiseDb or more
// under the bed measured whole) is measured without the frames right after
// each word, where its decay or a room's tail lies; otherwise they count.
func TestQuietBed(t *testing.T) {
	const speech = -20.0
	// pause builds two words around a pause: 20 frames of speech, 200 ms
	// of tail at tailDb, 1.75 s at bedDb.
	pause := func(tailDb, bedDb float32) []float32 {
		var lv []float32
		for range 20 {
			lv = append(lv, float32(speech))
		}
		for range 20 {
			lv = append(lv, tailDb)
		}
		for range 175 {
			lv = append(lv, bedDb)
		}
		for range 20 {
			lv = append(lv, float32(speech))
		}
		return lv
	}
	tests := []struct {
		name      string
		tail, bed float32
		quiet     bool
	}{
		{"50 dB under the speech, a loud tail: left out", -40, -70, true},
		{"26 dB under, the tail raising it 3.6 dB: left out", -34, -46, true},
		{"24 dB under: the tail counts", -32, -44, false},
		{"the tail raising it 2.5 dB: it counts", -36, -46, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lv := pause(tc.tail, tc.bed)
			m := maker{env: &dsp.Envelope{FrameSec: 0.01, RMSDb: lv}, n: len(lv), speech: speech, tu: defaultTuning, tb: newDBTable()}
			is := []island{{rs: 0, re: 20, s: 0, e: 20}, {rs: 215, re: 235, s: 215, e: 235}}
			bed, _, ok, _ := m.bedsClicks(is)
			m.tu.edgeTailSkip = 0
			whole, _, _, _ := m.bedsClicks(is)
			if !ok[1] || whole[1] < float64(tc.bed)+1 {
				t.Fatalf("measured whole: %.2f dB (known %v); the tail should raise it over %.0f dB", whole[1], ok[1], tc.bed)
			}
			want := whole[1]
			if tc.quiet {
				want = float64(tc.bed)
			}
			if math.Abs(bed[1]-want) > 0.05 {
				t.Errorf("bed %.2f dB, want %.2f (measured whole %.2f)", bed[1], want, whole[1])
			}
		})
	}
}

// TestLevelled: a turned-down end is brought up by its drop, RMS and peak
// levels alike, digital silence (dsp.FloorDb) stays, the analysis's
// envelope is untouched, and a cut over the raised frames is judged silent
// on the original levels.
func TestLevelled(t *testing.T) {
	env := &dsp.Envelope{FrameSec: 0.01, RMSDb: []float32{-80, dsp.FloorDb, -75, -30}, PeakDb: []float32{-77, dsp.FloorDb, -72, -27}}
	drop := []float32{12, 12, 6, 0}
	got := levelled(env, drop)
	if d := cmp.Diff([]float32{-68, dsp.FloorDb, -69, -30}, got.RMSDb); d != "" {
		t.Errorf("RMS (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]float32{-65, dsp.FloorDb, -66, -27}, got.PeakDb); d != "" {
		t.Errorf("peak (-want +got):\n%s", d)
	}
	if env.RMSDb[0] != -80 || env.PeakDb[2] != -72 {
		t.Errorf("the analysis's envelope changed: %v %v", env.RMSDb, env.PeakDb)
	}
	m := maker{env: got, orig: env, n: 4, fs: 0.01}
	if !m.silent(Cut{Start: 0, End: 0.03}) {
		t.Error("a cut under -70 dBFS as analysed is not silent once raised")
	}
}

// TestBandBeds checks the bed's spectrum (bandBeds, bedLike): each band's
// 95th percentile over the measured frames of the pauses (not of the
// islands), only for a bed whose bands spread (music), in which the
// network hears little speech, with enough frames measured; a frame whose
// bands exceed it by under bandExcessDb in all is bed; and the rule holds
// at an edge only within bandSNRDb of the speech level.
func TestBandBeds(t *testing.T) {
	const n = 1000
	is := []island{{rs: 400, re: 600, s: 400, e: 600}}
	scored := func(p float64) uint8 { return uint8(1 + math.Round(253*p)) }
	build := func(step float64, voicedEvery, measureEvery int) *dsp.Envelope {
		env := &dsp.Envelope{FrameSec: 0.01, RMSDb: make([]float32, n), PeakDb: make([]float32, n), Voice: make([]uint8, n)}
		for f := 0; f < n; f += measureEvery {
			env.BandFrames = append(env.BandFrames, int32(f))
			lv := -60 + step*float64((f/measureEvery)%20)
			if f >= 400 && f < 600 {
				lv = -10 // the island's frames: not the bed's
			}
			for range dsp.BandCount {
				env.Bands = append(env.Bands, dsp.BandCode(lv))
			}
			env.Voice[f] = scored(0.1)
			if voicedEvery > 0 && f%voicedEvery == 0 {
				env.Voice[f] = scored(0.9)
			}
		}
		return env
	}
	for _, tc := range []struct {
		name string
		env  *dsp.Envelope
		want float64 // each band's bed level; NaN: no rule
	}{
		{"music-like spread", build(1.2, 0, 1), -38.5},
		{"steady bed", build(0.2, 0, 1), math.NaN()},
		{"another voice", build(1.2, 3, 1), math.NaN()},
		{"too few frames measured", build(1.2, 0, 10), math.NaN()},
		{"no spectrum", func() *dsp.Envelope { e := build(1.2, 0, 1); e.BandFrames, e.Bands = nil, nil; return e }(), math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := maker{env: tc.env, n: n, speech: -20, tu: defaultTuning, tb: newDBTable()}
			m.bandBed = m.bandBeds(is)
			if math.IsNaN(tc.want) {
				if m.bandBed != nil {
					t.Fatalf("bed levels %v, want none", m.bandBed)
				}
				if m.bedLike(10) || m.edgeRule(-40, -40).bandy {
					t.Error("the rule holds without bed levels")
				}
				return
			}
			if len(m.bandBed) != dsp.BandCount {
				t.Fatalf("bed levels %v, want %d of %.1f dB", m.bandBed, dsp.BandCount, tc.want)
			}
			for k, b := range m.bandBed {
				if math.Abs(b-tc.want) > 0.01 {
					t.Errorf("band %d: bed %.2f dB, want %.2f", k, b, tc.want)
				}
			}
			// Frame 10 measured at bed + 1 dB in every band (16 dB in
			// all: bed), at bed + 2 dB (32 dB: no bed); frame 1001 is not
			// measured.
			for _, c := range []struct {
				over float64
				want bool
			}{{1, true}, {2, false}} {
				k := 10
				for j := range dsp.BandCount {
					m.env.Bands[k*dsp.BandCount+j] = dsp.BandCode(tc.want + c.over)
				}
				if got := m.bedLike(k); got != c.want {
					t.Errorf("a frame %g dB over the bed in every band: bedLike %v, want %v", c.over, got, c.want)
				}
			}
			if m.bedLike(n + 1) {
				t.Error("a frame past the end is bed")
			}
			// Speech at -20 dB: a pause's bed at -40 dB is within 25 dB,
			// one at -50 dB is not.
			if !m.edgeRule(-40, -40).bandy || m.edgeRule(-50, -50).bandy {
				t.Errorf("rule at a bed of -40 / -50 dB: %v / %v, want true / false", m.edgeRule(-40, -40).bandy, m.edgeRule(-50, -50).bandy)
			}
		})
	}
}
