package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/corpus"
	"github.com/autocut-dev/autocut/internal/realdata"
	"github.com/autocut-dev/autocut/internal/testtier"
	"github.com/google/go-cmp/cmp"
)

// TestMakeTracksOneTrack: one track gives exactly what Make gives, plan
// and error, on every golden input.
func TestMakeTracksOneTrack(t *testing.T) {
	files, err := filepath.Glob("testdata/*.in.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in goldenInput
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, werr := Make(in.analysis(), in.Params, in.Extra)
		got, gerr := MakeTracks([]*dsp.Analysis{in.analysis()}, in.Params, in.Extra)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Errorf("%s: error %v, Make's %v", f, gerr, werr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: MakeTracks of one track differs from Make (-Make +MakeTracks):\n%s", f, d)
		}
	}
}

// trackAnalysis builds a track's analysis from segments (goldenInput's).
func trackAnalysis(segs ...segment) *dsp.Analysis {
	return goldenInput{Segments: segs}.analysis()
}

// TestMakeTracksRefuses: no track, more than MaxTracks, a nil analysis,
// frames of different lengths, bad params and bad extra cuts are errors.
func TestMakeTracksRefuses(t *testing.T) {
	a := trackAnalysis(segment{Sec: 1, Db: -70}, segment{Sec: 2, Db: -20}, segment{Sec: 1, Db: -70})
	odd := *a
	odd.Envelope.FrameSec = 0.02
	odd.Input.Duration = 0
	many := make([]*dsp.Analysis, MaxTracks+1)
	for i := range many {
		many[i] = a
	}
	p := DefaultPreset().Params
	bad := p
	bad.MinSilenceSec = -1
	for _, c := range []struct {
		name  string
		as    []*dsp.Analysis
		p     Params
		extra []Cut
		want  error
	}{
		{"none", nil, p, nil, ErrInvalidParams},
		{"17 tracks", many, p, nil, ErrInvalidParams},
		{"nil track", []*dsp.Analysis{a, nil}, p, nil, ErrBadAnalysis},
		{"frame lengths", []*dsp.Analysis{a, &odd}, p, nil, ErrBadAnalysis},
		{"params", []*dsp.Analysis{a, a}, bad, nil, ErrInvalidParams},
		{"extra", []*dsp.Analysis{a, a}, p, []Cut{{Start: 2, End: 1}}, ErrInvalidParams},
	} {
		pl, err := MakeTracks(c.as, c.p, c.extra)
		if !errors.Is(err, c.want) || pl != nil {
			t.Errorf("%s: MakeTracks = %v, %v; want nil, %v", c.name, pl, err, c.want)
		}
		if c.p == p && c.extra == nil {
			if o, err := OwnedSpeech(c.as, c.p); !errors.Is(err, c.want) || o != nil {
				t.Errorf("%s: OwnedSpeech = %v, %v; want nil, %v", c.name, o, err, c.want)
			}
		}
	}
	if _, err := MakeTracks(many[:MaxTracks], p, nil); err != nil {
		t.Errorf("%d tracks: %v", MaxTracks, err)
	}
}

// turnTracks is a two-person recording: A speaks 1-3 s and 6-8 s, B 3.2-5.5
// s, A heard on B's track 15 dB down, B not on A's (under its -70 dBFS
// bed), 10 s.
func turnTracks() []*dsp.Analysis {
	a := trackAnalysis(segment{Sec: 1, Db: -70}, segment{Sec: 2, Db: -20}, segment{Sec: 0.2, Db: -70}, segment{Sec: 2.3, Db: -70},
		segment{Sec: 0.5, Db: -70}, segment{Sec: 2, Db: -20}, segment{Sec: 2, Db: -70})
	b := trackAnalysis(segment{Sec: 1, Db: -70}, segment{Sec: 2, Db: -35}, segment{Sec: 0.2, Db: -70}, segment{Sec: 2.3, Db: -20},
		segment{Sec: 0.5, Db: -70}, segment{Sec: 2, Db: -35}, segment{Sec: 2, Db: -70})
	return []*dsp.Analysis{a, b}
}

// TestMakeTracksTurns: the cuts fall where nobody speaks; A's pause while
// B speaks is not cut, nor the gaps of 0.2 and 0.5 s between the voices
// (under minSilence), though each track alone cuts them; the lead and tail
// are cut less keepSilence; each track owns its own voice, not the other's
// bleed.
func TestMakeTracksTurns(t *testing.T) {
	p := DefaultPreset().Params
	as := turnTracks()
	pl, err := MakeTracks(as, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, "turns", pl)
	var got []Cut
	for _, c := range pl.Cuts {
		got = append(got, Cut{Start: math.Round(c.Start*100) / 100, End: math.Round(c.End*100) / 100, Reason: c.Reason})
	}
	want := []Cut{{0, 0.75, ReasonSilence}, {8.25, 10, ReasonSilence}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cuts (-want +got):\n%s", d)
	}
	alone, err := Make(as[0], p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(alone.Cuts) <= len(pl.Cuts) {
		t.Errorf("track A alone cuts %v: the test needs it to cut the other's turn", alone.Cuts)
	}
	own, err := OwnedSpeech(as, p)
	if err != nil {
		t.Fatal(err)
	}
	wantOwn := [][]Range{{{Start: 1, End: 3}, {Start: 6, End: 8}}, {{Start: 3.2, End: 5.5}}}
	if d := cmp.Diff(wantOwn, own, cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) <= 0.031 })); d != "" {
		t.Errorf("owned speech (-want +got, 30 ms tolerance):\n%s", d)
	}
}

// TestMakeTracksSameTracks: a track given twice is planned as Make plans
// it once, cut for cut within the snap's 10 ms, on every golden input
// with two tracks' worth of speech.
func TestMakeTracksSameTracks(t *testing.T) {
	files, err := filepath.Glob("testdata/*.in.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	near := cmp.Comparer(func(x, y float64) bool { return math.Abs(x-y) <= 0.0101 })
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var in goldenInput
		if err := json.Unmarshal(b, &in); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, werr := Make(in.analysis(), in.Params, in.Extra)
		got, gerr := MakeTracks([]*dsp.Analysis{in.analysis(), in.analysis()}, in.Params, in.Extra)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%s: error %v, Make's %v", f, gerr, werr)
		}
		if want == nil || got == nil {
			continue
		}
		if d := cmp.Diff(want.Cuts, got.Cuts, near); d != "" {
			t.Errorf("%s: cuts of the track twice differ from Make's (-Make +MakeTracks):\n%s", f, d)
		}
	}
}

// TestMakeTracksPadding: a shorter track is padded with silence: the plan
// lasts as long as the longest, and the shorter's end is no speech.
func TestMakeTracksPadding(t *testing.T) {
	long := trackAnalysis(segment{Sec: 1, Db: -70}, segment{Sec: 2, Db: -20}, segment{Sec: 5, Db: -70}, segment{Sec: 1, Db: -20}, segment{Sec: 1, Db: -70})
	short := trackAnalysis(segment{Sec: 3, Db: -70}, segment{Sec: 2, Db: -20}, segment{Sec: 1, Db: -70})
	p := DefaultPreset().Params
	pl, err := MakeTracks([]*dsp.Analysis{short, long}, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, "padding", pl)
	if pl.Stats.OriginalSec != 10 {
		t.Errorf("plan of %v s, want 10", pl.Stats.OriginalSec)
	}
	// Speech: 1-5 s (both), 8-9 s; the pause 5-8 s is cut.
	var mid bool
	for _, c := range pl.Cuts {
		if c.Start < 9 && c.End > 8 || c.Start < 5 && c.End > 1 {
			t.Errorf("cut %+v inside speech", c)
		}
		mid = mid || c.Start <= 5.2 && c.End >= 7.8
	}
	if !mid {
		t.Errorf("cuts %v miss the pause 5-8 s", pl.Cuts)
	}
	own, err := OwnedSpeech([]*dsp.Analysis{short, long}, p)
	if err != nil || len(own) != 2 || len(own[0]) != 1 || len(own[1]) != 2 {
		t.Errorf("owned %v, %v", own, err)
	}
}

// tracksRow is one multi-track case's result.
type tracksRow struct {
	c corpus.TracksCase
	s corpus.MixScore
	// bleedMs: time a track owns while its voice is silent and another
	// speaks, summed over the tracks; bleedOnlyMs: all such time;
	// stretches: the owned runs of 30 ms or more in it.
	bleedMs, bleedOnlyMs float64
	stretches            int
	// ownMs: the tracks' own audible speech they own; speechMs: all of it.
	ownMs, speechMs float64
	// ownedCutMs: owned speech the plan cuts, summed over the tracks.
	ownedCutMs float64
}

// analyseTracks builds and analyses case c.
func analyseTracks(t *testing.T, m *corpus.Mixer, c corpus.TracksCase) ([]*dsp.Analysis, corpus.TracksTruth) {
	t.Helper()
	ctx := context.Background()
	mx, err := m.Tracks(ctx, c)
	if errors.Is(err, corpus.ErrNoFFmpeg) {
		t.Skipf("%s: %v", c.Name, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	as, err := mx.Analyze(ctx, c.Name)
	if err != nil {
		t.Fatal(err)
	}
	return as, mx.Truth
}

// scoreTracks plans analyses as of case c and scores the plan and the
// owned speech (with the bleed margin marginDb) against the truth tr.
func scoreTracks(t *testing.T, c corpus.TracksCase, tr corpus.TracksTruth, as []*dsp.Analysis, p Params, marginDb float64) tracksRow {
	t.Helper()
	pl, err := MakeTracks(as, p, nil)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	checkInvariants(t, c.Name, pl)
	var cuts []corpus.Interval
	for _, k := range pl.Cuts {
		cuts = append(cuts, corpus.Interval{Start: k.Start, End: k.End})
	}
	row := tracksRow{c: c, s: corpus.ScoreMix(tr.Mix(), cuts, p.MinSilenceSec, p.KeepSilenceMs)}
	own, err := ownedSpeech(as, p, marginDb)
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	const fs = dsp.EnvelopeFrameSec
	n := int(math.Ceil(tr.Duration / fs))
	in := func(iv []corpus.Interval) []bool {
		out := make([]bool, n)
		for _, x := range iv {
			for f := int(math.Round(x.Start / fs)); f < n && float64(f)*fs < x.End-1e-9; f++ {
				out[f] = true
			}
		}
		return out
	}
	for k := range as {
		var o []corpus.Interval
		for _, r := range own[k] {
			o = append(o, corpus.Interval{Start: r.Start, End: r.End})
		}
		owned := in(o)
		for _, c := range pl.Cuts {
			for _, r := range own[k] {
				row.ownedCutMs += 1000 * max(0, min(c.End, r.End)-max(c.Start, r.Start))
			}
		}
		self := in(tr.Voices[k])
		var others []corpus.Interval
		for j, v := range tr.Voices {
			if j != k {
				others = append(others, v...)
			}
		}
		other := in(others)
		run := 0
		for f := 0; f <= n; f++ {
			bleedOnly := f < n && other[f] && !self[f]
			if bleedOnly {
				row.bleedOnlyMs += 10
			}
			if bleedOnly && owned[f] {
				row.bleedMs += 10
				run++
				continue
			}
			if run >= 3 {
				row.stretches++
			}
			run = 0
			if f < n && self[f] {
				row.speechMs += 10
				if owned[f] {
					row.ownMs += 10
				}
			}
		}
	}
	return row
}

// tracksTable formats rows: per case, the pause removed where nobody
// speaks, the words clipped, the bleed-only time owned (and its runs of 30
// ms or more) and the own speech owned.
func tracksTable(rows []tracksRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-18s %6s %8s %9s %8s %10s %9s %9s %8s %11s\n", "case", "tracks", "bleed dB", "removed%", "clip ms", "bleed ms", "bleed %", "stretches", "owned %", "owned cut")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-18s %6d %8g %9.1f %8.0f %10.0f %9.1f %9d %8.1f %11.0f\n", r.c.Name, len(r.c.Voices), r.c.IsolationDb, r.s.RemovedPct, r.s.ClippedMs,
			r.bleedMs, 100*r.bleedMs/max(r.bleedOnlyMs, 1), r.stretches, 100*r.ownMs/max(r.speechMs, 1), r.ownedCutMs)
	}
	return b.String()
}

// Multi-track bars (issue 44): no word clipped; 90 % of the pause time
// where nobody speaks removed at 15 dB of isolation or more.
const (
	tracksMinRemovedPct = 90
	tracksMinIsolation  = 15
	tracksBedDb         = 35
)

// tracksReportMaxClipMs is the report part's regression ceiling: 4
// tracks at 10 dB clip 60 ms, two clicks of the Portuguese reader's
// recording (30 ms each, 50 ms apart, at -41 and -47 dBFS over a -60 dBFS bed, in a
// 3 s pause) that the truth counts as speech, as they protect each other
// from its click rule, and that every track's plan drops as shorter than
// minSpeechMs, as Make does on her track alone.
const tracksReportMaxClipMs = 60

// tracksMargins are the bleed margins TestTracksBleed sweeps (logged).
var tracksMargins = []float64{0, 2, 3, 4, 6, 8}

// checkTracksBars fails t where a row misses the bars.
func checkTracksBars(t *testing.T, rows []tracksRow) {
	t.Helper()
	for _, r := range rows {
		if r.s.ClippedMs > 0 {
			t.Errorf("%s: %.0f ms of speech clipped", r.c.Name, r.s.ClippedMs)
		}
		if r.c.IsolationDb >= tracksMinIsolation && r.s.RemovedPct < tracksMinRemovedPct {
			t.Errorf("%s: %.1f %% of the pause time removed, want %d %% or more", r.c.Name, r.s.RemovedPct, tracksMinRemovedPct)
		}
	}
}

// TestTracksBleedFast: two real voices on two tracks at 15 dB isolation,
// 25 s of each, over the repository's beds.
func TestTracksBleedFast(t *testing.T) {
	m := corpus.NewMixer(realdata.Recordings(t)...)
	c := corpus.TracksCase{Name: "tracks2-15-fast", Voices: corpus.TracksVoices()[:2],
		Beds: []string{"noise_vinyl_hiss_cc0.flac", "noise_alsa_pink_1s.wav"}, IsolationDb: 15, BedDb: tracksBedDb, VoiceSec: 25, Seed: 44}
	as, tr := analyseTracks(t, m, c)
	rows := []tracksRow{scoreTracks(t, c, tr, as, DefaultPreset().Params, bleedMarginDb)}
	t.Log("\n" + tracksTable(rows))
	checkTracksBars(t, rows)
}

// TestTracksBleed: 2, 3 and 4 real voices, one track each, at 10, 15, 20
// and 25 dB of bleed isolation over real beds (corpus.TracksCases; tune
// part, and once with a track 6 dB hotter), and the report part's voices
// at 10 and 15 dB, planned with the podcast preset: no word clipped, 90 %
// of the pause time where nobody speaks removed at 15 dB or more; the
// bleed counted as a track's own speech is logged, with the sweep of the
// bleed margin on the tune part (docs/accuracy.md).
func TestTracksBleed(t *testing.T) {
	testtier.Slow(t, "multi-track cases: about three minutes")
	m := corpus.NewMixer(realdata.AllRecordings(t)...)
	p := DefaultPreset().Params
	var rows []tracksRow
	sweep := map[float64][]tracksRow{}
	cases := corpus.TracksCases(corpus.TracksVoices(), []float64{10, 15, 20, 25}, tracksBedDb, 40, 9000)
	// A hotter preamp: track 1 turned up 6 dB at 15 and 20 dB of
	// isolation, 12 dB at 15 dB (left out of the margin sweep).
	for _, h := range [][2]float64{{15, 6}, {20, 6}, {15, 12}} {
		c := corpus.TracksCases(corpus.TracksVoices(), []float64{h[0]}, tracksBedDb, 40, 9000)[1]
		c.Name += fmt.Sprintf("-hot%g", h[1])
		c.GainDb = []float64{h[1]}
		cases = append(cases, c)
	}
	for _, c := range cases {
		as, tr := analyseTracks(t, m, c)
		rows = append(rows, scoreTracks(t, c, tr, as, p, bleedMarginDb))
		for _, mg := range tracksMargins {
			if len(c.GainDb) > 0 {
				break
			}
			sweep[mg] = append(sweep[mg], scoreTracks(t, c, tr, as, p, mg))
		}
	}
	t.Logf("tune part, bleed margin %g dB:\n%s", float64(bleedMarginDb), tracksTable(rows))
	// The report part (nothing tuned on it), at 10 and 15 dB.
	var report []tracksRow
	for _, c := range corpus.TracksCases(corpus.TracksReportVoices(), []float64{10, 15}, tracksBedDb, 40, 9100) {
		c.Name = "report-" + c.Name
		as, tr := analyseTracks(t, m, c)
		report = append(report, scoreTracks(t, c, tr, as, p, bleedMarginDb))
	}
	t.Logf("report part, bleed margin %g dB:\n%s", float64(bleedMarginDb), tracksTable(report))
	for _, r := range report {
		if r.s.ClippedMs > tracksReportMaxClipMs+1e-6 {
			t.Errorf("%s: %.0f ms of speech clipped (report part's ceiling %d ms)", r.c.Name, r.s.ClippedMs, tracksReportMaxClipMs)
		}
		if r.c.IsolationDb >= tracksMinIsolation && r.s.RemovedPct < tracksMinRemovedPct {
			t.Errorf("%s: %.1f %% of the pause time removed, want %d %% or more", r.c.Name, r.s.RemovedPct, tracksMinRemovedPct)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%9s %8s %9s %9s %8s\n", "margin dB", "bleed dB", "bleed %", "stretches", "owned %")
	for _, mg := range tracksMargins {
		for _, iso := range []float64{10, 15, 20, 25} {
			var bl, blo, own, sp float64
			st := 0
			for _, r := range sweep[mg] {
				if r.c.IsolationDb == iso {
					bl, blo, own, sp, st = bl+r.bleedMs, blo+r.bleedOnlyMs, own+r.ownMs, sp+r.speechMs, st+r.stretches
				}
			}
			fmt.Fprintf(&b, "%9g %8g %9.1f %9d %8.1f\n", mg, iso, 100*bl/max(blo, 1), st, 100*own/max(sp, 1))
		}
	}
	t.Log("bleed margin sweep (all track counts):\n" + b.String())
	checkTracksBars(t, rows)
}
