package dsp

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKWeightingCoefficients48k(t *testing.T) {
	// ITU-R BS.1770-4, Tables 1 and 2 (48 kHz), through the exported
	// sections other stages use.
	shelf, rlb := kWeighting(48000)
	tests := []struct {
		name      string
		got, want float64
	}{
		{"shelf b0", shelf.B0, 1.53512485958697},
		{"shelf b1", shelf.B1, -2.69169618940638},
		{"shelf b2", shelf.B2, 1.19839281085285},
		{"shelf a1", shelf.A1, -1.69065929318241},
		{"shelf a2", shelf.A2, 0.73248077421585},
		{"rlb b0", rlb.B0, 1},
		{"rlb b1", rlb.B1, -2},
		{"rlb b2", rlb.B2, 1},
		{"rlb a1", rlb.A1, -1.99004745483398},
		{"rlb a2", rlb.A2, 0.99007225036621},
	}
	for _, tc := range tests {
		if d := math.Abs(tc.got - tc.want); d > 1e-8 {
			t.Errorf("%s = %.14f, want %.14f (diff %.2g)", tc.name, tc.got, tc.want, d)
		}
	}
}

// response returns the magnitude in dB of the cascade at f Hz.
func response(rate int, f float64) float64 {
	shelf, rlb := kWeighting(rate)
	z := cmplx.Exp(complex(0, -2*math.Pi*f/float64(rate)))
	h := func(q Biquad) complex128 {
		return (complex(q.B0, 0) + complex(q.B1, 0)*z + complex(q.B2, 0)*z*z) /
			(1 + complex(q.A1, 0)*z + complex(q.A2, 0)*z*z)
	}
	return 20 * math.Log10(cmplx.Abs(h(shelf)*h(rlb)))
}

func TestKWeightingAnyRate(t *testing.T) {
	// Well below Nyquist the bilinear transform barely warps the analog
	// prototype: rates from 44.1 kHz up agree with 48 kHz. (At 8-22 kHz the
	// shelf is warped by a few tenths of a dB, as in libebur128; the
	// real-recording test checks those rates against it.)
	for _, rate := range []int{44100, 69313, 88200, 96000, 192000} {
		for _, f := range []float64{20, 50, 100, 500, 1000, 2000, 3000} {
			got, want := response(rate, f), response(48000, f)
			if math.Abs(got-want) > 0.05 {
				t.Errorf("rate %d, %g Hz: %.4f dB, 48k gives %.4f dB", rate, f, got, want)
			}
		}
	}
	// At 1 kHz the K-weighting gain is +0.691 dB (what -0.691 cancels).
	if g := response(48000, 1000); math.Abs(g-0.691) > 0.01 {
		t.Errorf("gain at 1 kHz = %.4f dB, want 0.691", g)
	}
}

func TestChannelWeights(t *testing.T) {
	tests := []struct {
		ch   int
		want []float64
	}{
		{1, []float64{1}},
		{2, []float64{1, 1}},
		{5, []float64{1, 1, 1, 1.41, 1.41}},
		{6, []float64{1, 1, 1, 0, 1.41, 1.41}},
		{8, []float64{1, 1, 1, 0, 1.41, 1.41, 1.41, 1.41}},
		{0, nil},
		{-1, nil}, // panicked (makeslice)
	}
	for _, tc := range tests {
		got := channelWeights(tc.ch)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%d channels: weights (-want +got):\n%s", tc.ch, diff)
		}
	}
}

// TestKMeterMatchesAnalyzer: KMeter weighs audio as the analyzer does: its
// energies of the 100 ms blocks are the analyzer's blocks, and the stereo
// kernel gives the same bits as the per-channel recursions.
func TestKMeterMatchesAnalyzer(t *testing.T) {
	for _, ch := range []int{1, 2, 3} {
		f := Format{SampleRate: 44100, Channels: ch}
		src := newSpeechLike(f.SampleRate, ch, 5, -20, -60, 7)
		buf := make([]float32, 5*f.SampleRate*ch)
		n, _ := fill(src, buf, ch)
		buf = buf[:n]
		a, err := newAnalyzer(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Write(buf); err != nil {
			t.Fatal(err)
		}
		blocks := a.Result(Info{}).Blocks
		k, plain := NewKMeter(f), NewKMeter(f)
		plain.pair = false
		step := f.SampleRate / 10 * ch
		for i := range blocks {
			seg := buf[i*step : (i+1)*step]
			var e float64
			var pk float32
			for s := 0; s < len(seg); s += step / 10 { // in 10 ms pieces, as the analyzer
				pe, pp := k.Segment(seg[s : s+step/10])
				qe, qp := plain.Segment(seg[s : s+step/10])
				if pe != qe || pp != qp {
					t.Fatalf("%d ch, block %d: kernel %v/%v, recursions %v/%v", ch, i, pe, pp, qe, qp)
				}
				e += pe
				pk = max(pk, pp)
			}
			got := e / float64(f.SampleRate/10)
			if math.Abs(got-blocks[i]) > 1e-12*blocks[i] {
				t.Fatalf("%d ch, block %d: %g, analyzer %g", ch, i, got, blocks[i])
			}
		}
	}
}
