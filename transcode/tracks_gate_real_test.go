package transcode

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/internal/testtier"
	"github.com/autocut-dev/autocut/plan"
)

// The bleed gate on real voices: the multi-track cases of plan's
// TestTracksBleed (corpus.TracksCases: real voices taking turns, each
// leaking into the other tracks IsolationDb down, a few ms late and
// coloured by a room, over real beds), each track analysed, its owned
// speech taken by plan.OwnedSpeech and the track gated by the render's
// gate. Measured against the truth (each voice's own audible speech), per
// track and summed over the tracks:
//   - bleed dB: how far the gate turns down the frames where only another
//     voice speaks (the bleed), as the ratio of their energies before and
//     after;
//   - own dB: the same over the frames where the track's own voice speaks
//     (0 is the goal: the voice is never turned down);
//   - own down ms: the own-speech time in 10 ms frames turned down by more
//     than 1 dB (the frames' energies compared one by one).

// gateRow is one case's figures (gateMeasure).
type gateRow struct {
	name        string
	tracks      int
	isolationDb float64
	bleedDb     float64 // energy turned down over the bleed-only frames
	ownDb       float64 // over the own-speech frames
	ownDownMs   float64 // own-speech frames turned down > 1 dB
	ownMs       float64 // own-speech time
}

// gateMeasure builds case c, gates each track as the render does and
// measures it against the truth.
func gateMeasure(t *testing.T, m *corpus.Mixer, c corpus.TracksCase) gateRow {
	t.Helper()
	ctx := context.Background()
	mx, err := m.Tracks(ctx, c)
	if errors.Is(err, corpus.ErrNoFFmpeg) {
		t.Skipf("%s: %v", c.Name, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	f := dsp.Format{SampleRate: mx.Rate, Channels: 1}
	as, err := mx.Analyze(ctx, c.Name)
	if err != nil {
		t.Fatal(err)
	}
	own, err := plan.OwnedSpeech(as, plan.DefaultPreset().Params)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	frame := mx.Rate / 100 // 10 ms
	n := len(mx.Tracks[0]) / frame
	mark := func(iv []corpus.Interval) []bool {
		out := make([]bool, n)
		for _, x := range iv {
			for i := max(int(math.Floor(x.Start*100)), 0); i < n && float64(i)/100 < x.End; i++ {
				out[i] = true
			}
		}
		return out
	}
	row := gateRow{name: c.Name, tracks: len(mx.Tracks), isolationDb: c.IsolationDb}
	var bleedIn, bleedOut, ownIn, ownOut float64
	for k, x := range mx.Tracks {
		rs := make([]dsp.Range, len(own[k]))
		for i, r := range own[k] {
			rs[i] = dsp.Range{Start: r.Start, End: r.End}
		}
		g, err := newGateSource(&sliceSource{f: f, x: x, max: 4096}, rs)
		if err != nil {
			t.Fatal(err)
		}
		y := readSource(t, g, 8192)
		if len(y) != len(x) {
			t.Fatalf("%s track %d: gated %d samples of %d", c.Name, k, len(y), len(x))
		}
		self := mark(mx.Truth.Voices[k])
		var others []corpus.Interval
		for j, v := range mx.Truth.Voices {
			if j != k {
				others = append(others, v...)
			}
		}
		other := mark(others)
		for i := range n {
			var ein, eout float64
			for _, v := range x[i*frame : (i+1)*frame] {
				ein += float64(v) * float64(v)
			}
			for _, v := range y[i*frame : (i+1)*frame] {
				eout += float64(v) * float64(v)
			}
			switch {
			case self[i]:
				ownIn += ein
				ownOut += eout
				row.ownMs += 10
				if eout < ein*math.Pow(10, -0.1) {
					row.ownDownMs += 10
				}
			case other[i]:
				bleedIn += ein
				bleedOut += eout
			}
		}
	}
	db := func(in, out float64) float64 { return 10 * math.Log10(max(in, 1e-30)/max(out, 1e-30)) }
	row.bleedDb = db(bleedIn, bleedOut)
	row.ownDb = db(ownIn, ownOut)
	return row
}

func gateTable(rows []gateRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %6s %8s %9s %7s %12s %8s\n", "case", "tracks", "bleed dB", "bleed dn", "own dn", "own down ms", "own %")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-22s %6d %8g %9.1f %7.2f %12.0f %8.2f\n", r.name, r.tracks, r.isolationDb, r.bleedDb, r.ownDb, r.ownDownMs, 100*r.ownDownMs/max(r.ownMs, 1))
	}
	return b.String()
}

// Bars of the gate on real voices, per case: the bleed-only frames are
// turned down by gateMinBleedDownDb or more in all (the gate's depth is
// gateBleedDb, less its holds and ramps and the bleed it takes for owned
// speech); the own voice loses at most gateMaxOwnDownDb of its energy and
// at most gateMaxOwnDownPct of its time is turned down by over 1 dB
// (onsets and tails under the owned ranges, inside the gate's hold).
const (
	gateMinBleedDownDb = 6.0
	gateMaxOwnDownDb   = 0.5
	gateMaxOwnDownPct  = 3.0
)

func checkGateRows(t *testing.T, rows []gateRow) {
	t.Helper()
	for _, r := range rows {
		if r.bleedDb < gateMinBleedDownDb {
			t.Errorf("%s: the bleed turned down %.1f dB, want %g or more", r.name, r.bleedDb, gateMinBleedDownDb)
		}
		if r.ownDb > gateMaxOwnDownDb {
			t.Errorf("%s: the own voice turned down %.2f dB, want %g at most", r.name, r.ownDb, gateMaxOwnDownDb)
		}
		if pct := 100 * r.ownDownMs / max(r.ownMs, 1); pct > gateMaxOwnDownPct {
			t.Errorf("%s: %.0f ms (%.2f %%) of the own voice turned down by over 1 dB, want %g %% at most", r.name, r.ownDownMs, pct, gateMaxOwnDownPct)
		}
	}
}

// TestGateBleedRealVoicesFast: one two-track case of real voices at 15 dB
// of isolation (the fast tier's look at the slow test's table).
func TestGateBleedRealVoicesFast(t *testing.T) {
	m := corpus.NewMixer(realdata.Recordings(t)...)
	c := corpus.TracksCase{Name: "tracks2-15-fast", Voices: corpus.TracksVoices()[:2],
		Beds: []string{"noise_vinyl_hiss_cc0.flac", "noise_alsa_pink_1s.wav"}, IsolationDb: 15, BedDb: 35, VoiceSec: 25, Seed: 44}
	if !m.HasTracks(c) {
		t.Skipf("%s: a recording is missing (%s)", c.Name, realdata.Var)
	}
	rows := []gateRow{gateMeasure(t, m, c)}
	t.Log("\n" + gateTable(rows))
	checkGateRows(t, rows)
}

// TestGateBleedRealVoices: the gate over plan's multi-track set, the tune
// part's voices at 10-25 dB and the report part's at 10 and 15 dB
// (2-4 tracks each).
func TestGateBleedRealVoices(t *testing.T) {
	testtier.Slow(t, "multi-track cases of real voices, gated: about a minute")
	m := corpus.NewMixer(realdata.AllRecordings(t)...)
	var rows []gateRow
	for _, c := range corpus.TracksCases(corpus.TracksVoices(), []float64{10, 15, 20, 25}, 35, 40, 9000) {
		if !m.HasTracks(c) {
			t.Skipf("%s: a recording is missing (%s)", c.Name, realdata.Var)
		}
		rows = append(rows, gateMeasure(t, m, c))
	}
	for _, c := range corpus.TracksCases(corpus.TracksReportVoices(), []float64{10, 15}, 35, 40, 9100) {
		c.Name = "report-" + c.Name
		if !m.HasTracks(c) {
			t.Skipf("%s: a recording is missing (%s)", c.Name, realdata.Var)
		}
		rows = append(rows, gateMeasure(t, m, c))
	}
	t.Log("\n" + gateTable(rows))
	checkGateRows(t, rows)
}
