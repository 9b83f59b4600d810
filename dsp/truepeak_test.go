package dsp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestEBU3341TruePeak(t *testing.T) {
	// Frequencies are fractions of the rate (fs/4 = 12 kHz at 48 kHz), so
	// the same expectations hold at 44.1 kHz.
	tests := []struct {
		name             string
		div, phaseDeg    float64
		amp              float64
		want, samplePeak float64
	}{
		{"3341-15", 4, 0, 0.5, -6.0, -6.02},
		{"3341-16", 4, 45, 0.5, -6.0, -9.03},
		{"3341-17", 6, 60, 0.5, -6.0, -7.27},
		{"3341-18", 8, 67.5, 0.5, -6.0, -6.71},
		{"3341-19", 4, 45, 1.41, 3.0, -0.03},
	}
	for _, rate := range []int{48000, 44100} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/%d", tc.name, rate), func(t *testing.T) {
				s := newSynth(rate, 2, tone{2, float64(rate) / tc.div, lv(20 * math.Log10(tc.amp))})
				s.phase = tc.phaseDeg * math.Pi / 180
				s.fade = int64(rate / 100)
				a := analyzeSynth(t, s)
				l := a.Loudness
				if d := l.TruePeak - tc.want; d > 0.2 || d < -0.4 {
					t.Errorf("true peak %.3f dBTP, want %.1f +0.2/-0.4", l.TruePeak, tc.want)
				}
				if !near(l.SamplePeak, tc.samplePeak, 0.02) {
					t.Errorf("sample peak %.3f dBFS, want %.2f", l.SamplePeak, tc.samplePeak)
				}
				t.Logf("true peak %.3f dBTP, sample peak %.3f dBFS", l.TruePeak, l.SamplePeak)
			})
		}
	}
}

func TestTruePeakFactor(t *testing.T) {
	tests := []struct{ rate, want int }{{8000, 4}, {44100, 4}, {48000, 4}, {88200, 4}, {96000, 2}, {176400, 2}, {192000, 1}}
	for _, tc := range tests {
		if got := truePeakFactor(tc.rate); got != tc.want {
			t.Errorf("factor at %d Hz = %d, want %d", tc.rate, got, tc.want)
		}
	}
}

// fullTruePeak oversamples every sample of every channel with m's phases
// (no pruning), the samples padded with zeros at both ends.
func fullTruePeak(m *truePeakMeter, x []float32, ch int) float64 {
	peak := float32(0)
	for c := 0; c < ch; c++ {
		buf := make([]float32, tpTaps-1, tpTaps-1+len(x)/ch+tpDelay)
		for i := c; i < len(x); i += ch {
			buf = append(buf, x[i])
			peak = max(peak, x[i], -x[i])
		}
		buf = append(buf, make([]float32, tpDelay)...)
		for _, ph := range m.phases {
			for n := 0; n+tpTaps <= len(buf); n++ {
				var y float32
				for j := 0; j < tpTaps; j++ {
					y += ph[j] * buf[n+j]
				}
				peak = max(peak, y, -y)
			}
		}
	}
	return float64(peak)
}

// TestTruePeakPruningExact checks that the pruned meter gives exactly the
// result of oversampling everything, on programme with a changing level,
// at 4x and 2x, for any chunking of the writes.
func TestTruePeakPruningExact(t *testing.T) {
	for _, rate := range []int{44100, 96000} {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("%d/%d", rate, seed), func(t *testing.T) {
				src := newSpeechLike(rate, 2, 20, -20, -60, seed)
				var all []float32
				buf := make([]float32, 8192)
				for {
					n, err := src.Read(buf)
					all = append(all, buf[:n]...)
					if err != nil {
						break
					}
				}
				// A few isolated inter-sample overs late in the signal.
				rng := rand.New(rand.NewPCG(seed, 7))
				for i := 0; i < 3; i++ {
					at := (len(all)/2 + rng.IntN(len(all)/2-8)) &^ 1
					all[at], all[at+2], all[at+4] = 0.7, -0.7, 0.7
				}
				an, _ := newAnalyzer(Format{SampleRate: rate, Channels: 2})
				for off := 0; off < len(all); {
					n := min(2*(1+rng.IntN(3000)), len(all)-off)
					if err := an.Write(all[off : off+n]); err != nil {
						t.Fatal(err)
					}
					off += n
				}
				got := an.Result(Info{}).Loudness.TruePeak
				if segments, skipped := an.pruning(); skipped == 0 || skipped == segments {
					t.Errorf("pruning skipped %d of %d segments: the test must exercise both paths", skipped, segments)
				} else {
					t.Logf("pruning skipped %d of %d segments", skipped, segments)
				}
				want := 20 * math.Log10(fullTruePeak(newTruePeakMeter(rate, 2), all, 2))
				if math.Abs(got-want) > 1e-5 { // float32 sums in another order
					t.Errorf("pruned true peak %.6f dBTP, full oversampling %.6f", got, want)
				}
			})
		}
	}
}

// BenchmarkTruePeakFull oversamples 1 s of 44.1 kHz noise (little can be
// pruned: noise peaks often come near the running maximum).
func BenchmarkTruePeakFull(b *testing.B) {
	x := make([]float32, 44100+tpTaps-1)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 0.1)
	}
	m := newTruePeakMeter(44100, 1)
	for i := 0; i < b.N; i++ {
		hi, _ := interpolate(x, 0, 0, true, m.phases, m.bounds)
		m.max = float64(hi)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "x_realtime_mono")
}

// TestHighRates checks loudness and true peak at 96 kHz (2x oversampling)
// and 192 kHz (none: the true peak is the sample peak).
func TestHighRates(t *testing.T) {
	for _, rate := range []int{96000, 192000} {
		a := analyzeSynth(t, newSynth(rate, 2, tone{10, 1000, lv(-23)}))
		if !near(a.Loudness.Integrated, -23, 0.1) {
			t.Errorf("%d Hz: I = %.3f, want -23", rate, a.Loudness.Integrated)
		}
		// fs/16 at 11.25 degrees: samples miss the crest by 1/32 of a cycle,
		// 0.17 dB, which 2x oversampling mostly recovers.
		s := newSynth(rate, 1, tone{1, float64(rate) / 16, lv(-6.0206)})
		s.phase = math.Pi / 16
		s.fade = int64(rate / 100)
		l := analyzeSynth(t, s).Loudness
		t.Logf("%d Hz: I %.3f, true peak %.3f dBTP, sample peak %.3f dBFS", rate, a.Loudness.Integrated, l.TruePeak, l.SamplePeak)
		if rate == 192000 && l.TruePeak != l.SamplePeak {
			t.Errorf("192 kHz: true peak %.3f != sample peak %.3f", l.TruePeak, l.SamplePeak)
		}
		if rate == 96000 && (l.TruePeak <= l.SamplePeak+0.05 || l.TruePeak > -5.8) {
			t.Errorf("96 kHz: true peak %.3f, sample peak %.3f: want true peak near -6.02, above the sample peak", l.TruePeak, l.SamplePeak)
		}
	}
}

// TestFramePeaks checks the envelope's frame peaks: a tone at a quarter of
// the rate, sampled 45 degrees off its crests, reads 3 dB low in every
// sample. Under framePeakRate (8 and 16 kHz) each frame's peak is the
// interpolated one, within 0.2 dB of the tone's amplitude, mono and stereo
// (the pair kernel's lanes too); at 48 kHz it is the sample peak. The
// input's sample peak stays the sample peak at every rate.
func TestFramePeaks(t *testing.T) {
	const amp = -6.0
	low := amp + 20*math.Log10(math.Sqrt2/2)
	for _, rate := range []int{8000, 16000, 48000} {
		for _, ch := range []int{1, 2} {
			s := newSynth(rate, ch, tone{2, float64(rate) / 4, []float64{amp}})
			s.phase = math.Pi / 4
			a := analyzeSynth(t, s)
			want := amp
			if rate >= framePeakRate {
				want = low
			}
			env := a.Envelope.PeakDb
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range env[1 : len(env)-1] {
				lo, hi = min(lo, float64(v)), max(hi, float64(v))
			}
			t.Logf("%d Hz, %d channels: frame peaks %.3f to %.3f dBFS, sample peak %.3f dBFS", rate, ch, lo, hi, a.Loudness.SamplePeak)
			if lo < want-0.2 || hi > want+0.2 {
				t.Errorf("%d Hz, %d channels: frame peaks %.3f to %.3f dBFS, want %.2f", rate, ch, lo, hi, want)
			}
			if !near(a.Loudness.SamplePeak, low, 0.01) {
				t.Errorf("%d Hz, %d channels: sample peak %.3f dBFS, want %.2f", rate, ch, a.Loudness.SamplePeak, low)
			}
		}
	}
}
