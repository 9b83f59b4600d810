package jobs

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDownsample(t *testing.T) {
	src := []float32{-60, -10, -50, -40, -30, -70, -20}
	tests := []struct {
		points int
		fs     float64
		want   []float32
	}{
		{7, 0.01, src},
		{100, 0.01, src},
		{3, 0.03, []float32{-10, -30, -20}},
		{1, 0.07, []float32{-10}},
		{2, 0.04, []float32{-10, -20}},
	}
	for _, tc := range tests {
		fs, got := downsample(0.01, src, tc.points)
		if math.Abs(fs-tc.fs) > 1e-12 {
			t.Errorf("points %d: frameSec %v want %v", tc.points, fs, tc.fs)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("points %d (-want +got):\n%s", tc.points, diff)
		}
	}
	if _, got := downsample(0.01, nil, 10); len(got) != 0 {
		t.Errorf("empty: %v", got)
	}
}

func TestWindow(t *testing.T) {
	tests := []struct {
		from, to float64
		i, j     int
	}{
		{0, 0, 0, 200},        // the whole file
		{0.95, 1.05, 95, 105}, // on frame boundaries
		{0.955, 1.051, 95, 106},
		{0.5, 0, 50, 200},  // to the end
		{1.9, 5, 190, 200}, // past the end: cut there
		{2, 3, 200, 200},   // wholly past it: nothing
		{0.5, 0.2, 50, 50}, // to before from: nothing
		{-1, 0.1, 0, 10},
	}
	for _, tc := range tests {
		if i, j := window(0.01, 200, tc.from, tc.to); i != tc.i || j != tc.j {
			t.Errorf("window(%v, %v) = %d, %d; want %d, %d", tc.from, tc.to, i, j, tc.i, tc.j)
		}
	}
}

func TestCursor(t *testing.T) {
	r := &record{ID: "job_abc", CreatedAt: fromNanos(1700000000123456789)}
	n, id, err := decodeCursor(encodeCursor(r))
	if err != nil || n != 1700000000123456789 || id != "job_abc" {
		t.Fatalf("round trip: %d %q %v", n, id, err)
	}
	for _, bad := range []string{"x", "!!!", "MTIz", "bm90LmE"} {
		if _, _, err := decodeCursor(bad); err == nil {
			t.Errorf("cursor %q accepted", bad)
		}
	}
}
