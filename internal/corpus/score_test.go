package corpus

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// scoreTruth: a 10 s file with a 1 s lead-in, speech 1-3, 3.3-5, 6-8, and
// pauses 3-3.3 (short), 5-6 and a tail 8-10.
var scoreTruth = Truth{
	Name: "t", Duration: 10,
	Speech: []Interval{{1, 3}, {3.3, 5}, {6, 8}},
	Gaps:   []Interval{{3, 3.3}, {5, 6}, {8, 10}},
}

func TestScore(t *testing.T) {
	nan := math.NaN()
	o := ScoreOptions{MinSilence: 0.5, Tol: 0.1}
	for _, c := range []struct {
		name string
		cuts []Interval
		o    ScoreOptions
		want Result
	}{
		{"exact", []Interval{{0, 1}, {5, 6}, {8, 10}}, o, Result{
			GapsExpected: 3, GapsFound: 3, Cuts: 3, PauseMs: 4000, RemovableMs: 4000, RemovedMs: 4000, RemovedFraction: 1,
		}},
		{"no cuts", nil, o, Result{
			GapsExpected: 3, BoundaryMedMs: nan, BoundaryP95Ms: nan, PauseMs: 4000, RemovableMs: 4000,
		}},
		{"edges off by 20 and 50 ms, one clipping speech", []Interval{{0, 0.98}, {4.95, 6.02}, {8.05, 10}}, o, Result{
			// edges |0|, 20 | 50, 20 | 50, 0 ms -> sorted 0 0 20 20 50 50
			GapsExpected: 3, GapsFound: 3, Cuts: 3, ClippedMs: 70, BoundaryMedMs: 20, BoundaryP95Ms: 50,
			PauseMs: 4000, RemovableMs: 4000, RemovedMs: 4000 - 20 - 50, RemovedFraction: (4000 - 70) / 4000.0,
		}},
		{"a cut too short to find its pause", []Interval{{0, 1}, {5.3, 5.7}, {8, 10}}, o, Result{
			GapsExpected: 3, GapsFound: 2, Cuts: 3, PauseMs: 4000, RemovableMs: 4000, RemovedMs: 3400, RemovedFraction: 0.85,
		}},
		{"short pauses ignored, unless MinSilence says", []Interval{{3, 3.3}}, ScoreOptions{MinSilence: 0.25, Tol: 0.1}, Result{
			GapsExpected: 4, GapsFound: 1, Cuts: 1, PauseMs: 4300, RemovableMs: 4300, RemovedMs: 300, RemovedFraction: 300 / 4300.0,
		}},
		{"keep 0.4 s: half each side inside, all of it beside the speech at the file edges",
			[]Interval{{0, 0.6}, {5.2, 5.8}, {8.4, 10}}, ScoreOptions{MinSilence: 0.5, Tol: 0.1, KeepSilence: 0.4}, Result{
				// The cuts stop short of the pauses' edges by design: not "found".
				GapsExpected: 3, GapsFound: 0, Cuts: 3, BoundaryMedMs: nan, BoundaryP95Ms: nan,
				PauseMs: 4000, RemovableMs: 600 + 600 + 1600, RemovedMs: 2800, RemovedFraction: 1,
			}},
		{"cutting the kept margins counts as margin", []Interval{{0, 1}, {5, 6}, {8, 10}}, ScoreOptions{MinSilence: 0.5, Tol: 0.1, KeepSilence: 0.4}, Result{
			GapsExpected: 3, GapsFound: 3, Cuts: 3, PauseMs: 4000, RemovableMs: 2800, RemovedMs: 2800, RemovedFraction: 1, MarginCutMs: 1200,
		}},
		{"overlapping cuts counted once", []Interval{{5, 5.5}, {5.3, 6}}, o, Result{
			GapsExpected: 3, GapsFound: 0, Cuts: 2, BoundaryMedMs: nan, BoundaryP95Ms: nan,
			PauseMs: 4000, RemovableMs: 4000, RemovedMs: 1000, RemovedFraction: 0.25,
		}},
		{"one cut over everything", []Interval{{0, 10}}, o, Result{
			GapsExpected: 3, GapsFound: 3, Cuts: 1, ClippedMs: 5700, BoundaryMedMs: 4500, BoundaryP95Ms: 8000,
			PauseMs: 4000, RemovableMs: 4000, RemovedMs: 4000, RemovedFraction: 1,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Score(scoreTruth, c.cuts, c.o)
			if diff := cmp.Diff(c.want, got, cmpopts.EquateNaNs(), cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestCached: the first caller builds, later ones (and concurrent ones)
// get the same directory and truths without building again; a failed
// build leaves nothing behind.
func TestCached(t *testing.T) {
	root := t.TempDir()
	var builds atomic.Int32
	build := func(ctx context.Context, dir string) error {
		builds.Add(1)
		tr := scoreTruth
		tr.Files = map[string]string{"wav": "t.wav"}
		return WriteTruth(dir, tr)
	}
	var wg sync.WaitGroup
	dirs := make([]string, 4)
	for i := range dirs {
		wg.Go(func() {
			d, ts, err := Cached(context.Background(), root, "key", build)
			if err != nil || len(ts) != 1 || ts[0].File("wav") != filepath.Join(d, "t.wav") {
				t.Errorf("Cached: %v, %d truths", err, len(ts))
			}
			dirs[i] = d
		})
	}
	wg.Wait()
	for _, d := range dirs[1:] {
		if d != dirs[0] {
			t.Errorf("directories %s and %s", dirs[0], d)
		}
	}
	n := builds.Load()
	if _, _, err := Cached(context.Background(), root, "key", build); err != nil || builds.Load() != n {
		t.Errorf("second call: %v, built %d times before, %d after", err, n, builds.Load())
	}
	if _, _, err := Cached(context.Background(), root, "other", func(context.Context, string) error { return os.ErrInvalid }); err == nil {
		t.Error("failed build: no error")
	}
	left, _ := filepath.Glob(filepath.Join(root, "autocut-corpus-*"))
	if len(left) != 1 {
		t.Errorf("cache root holds %v, want only the one complete directory", left)
	}
}

// TestTruthRefusesBadIntervals: overlapping or out-of-file intervals are
// refused when written.
func TestTruthRefusesBadIntervals(t *testing.T) {
	for _, tr := range []Truth{
		{Name: "overlap", Duration: 5, Speech: []Interval{{0, 2}}, Gaps: []Interval{{1.5, 3}}},
		{Name: "past the end", Duration: 5, Speech: []Interval{{0, 6}}},
		{Name: "empty", Duration: 5, Speech: []Interval{{2, 2}}},
	} {
		if err := WriteTruth(t.TempDir(), tr); err == nil {
			t.Errorf("%s: written", tr.Name)
		}
	}
}
