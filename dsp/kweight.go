package dsp

import "math"

// Analog prototype parameters of the ITU-R BS.1770-4 K-weighting filter.
// The published 48 kHz coefficients are the bilinear transform of these
// (a high shelf of about +4 dB at 1.68 kHz and the RLB high-pass at 38 Hz),
// so transforming them at the actual rate gives the filter for any rate.
const (
	kShelfF0   = 1681.974450955533
	kShelfGain = 3.999843853973347 // dB
	kShelfQ    = 0.7071752369554196
	kShelfVbE  = 0.4996667741545416 // Vb = Vh^kShelfVbE
	kRLBF0     = 38.13547087602444
	kRLBQ      = 0.5003270373238773
)

// kWeighting returns the BS.1770-4 pre-filter (stage 1, high shelf) and the
// RLB high-pass (stage 2) for the sample rate, derived by the bilinear
// transform with frequency pre-warping (K = tan(pi f0 / fs)).
func kWeighting(rate int) (shelf, rlb Biquad) {
	fs := float64(rate)
	k := math.Tan(math.Pi * kShelfF0 / fs)
	vh := math.Pow(10, kShelfGain/20)
	vb := math.Pow(vh, kShelfVbE)
	a0 := 1 + k/kShelfQ + k*k
	shelf = Biquad{
		B0: (vh + vb*k/kShelfQ + k*k) / a0,
		B1: 2 * (k*k - vh) / a0,
		B2: (vh - vb*k/kShelfQ + k*k) / a0,
		A1: 2 * (k*k - 1) / a0,
		A2: (1 - k/kShelfQ + k*k) / a0,
	}
	k = math.Tan(math.Pi * kRLBF0 / fs)
	a0 = 1 + k/kRLBQ + k*k
	rlb = Biquad{
		B0: 1, B1: -2, B2: 1,
		A1: 2 * (k*k - 1) / a0,
		A2: (1 - k/kRLBQ + k*k) / a0,
	}
	return shelf, rlb
}

// kState is the Direct Form I history of the two cascaded K-weighting
// biquads for one channel. Direct Form I keeps the loop-carried dependency
// to one multiply and one add per stage, which matters on the hot path.
type kState struct {
	x1, x2 float64 // stage 1 input history
	y1, y2 float64 // stage 1 output history (= stage 2 input)
	z1, z2 float64 // stage 2 output history
}

// surroundWeight is the BS.1770-4 weight of the surround channels (+1.5 dB).
const surroundWeight = 1.41

// channelWeights returns the BS.1770-4 weight of each channel for the
// usual WAV/ffmpeg channel orders: 1.0 for left, right and centre, 1.41
// (+1.5 dB) for surrounds and 0 for the LFE. Orders assumed:
// 1-4 channels all 1.0 (mono, stereo, L R C, quad counts every channel
// as front); 5 = L R C Ls Rs; 6 = L R C LFE Ls Rs (5.1);
// 7 = L R C LFE Cs Ls Rs (6.1); 8 = L R C LFE Ls Rs Lb Rb (7.1).
// Fewer than one channel has no weights (nil).
func channelWeights(channels int) []float64 {
	if channels < 1 {
		return nil
	}
	w := make([]float64, channels)
	for i := range w {
		w[i] = 1
	}
	switch channels {
	case 5:
		w[3], w[4] = surroundWeight, surroundWeight
	case 6:
		w[3] = 0
		w[4], w[5] = surroundWeight, surroundWeight
	case 7:
		w[3] = 0
		w[4], w[5], w[6] = surroundWeight, surroundWeight, surroundWeight
	case 8:
		w[3] = 0
		for i := 4; i < 8; i++ {
			w[i] = surroundWeight
		}
	}
	return w
}

// KMeter K-weights interleaved frames as the analyzer does (the same
// recursions, the stereo kernel where the CPU has one), for stages that
// must measure loudness the same way (the renderer's measurement pass).
// Create it with NewKMeter; not safe for concurrent use.
type KMeter struct {
	lanes []*lane
	w     []float64
	pair  bool
}

// NewKMeter returns a KMeter for frames in format f.
func NewKMeter(f Format) *KMeter {
	fma := hasFMA()
	k := &KMeter{w: channelWeights(f.Channels)}
	for c := range f.Channels {
		k.lanes = append(k.lanes, newLane(c, f, fma))
	}
	k.pair = fma && f.Channels == 2 && pairKernel()
	return k
}

// Segment K-weights seg (whole frames, continuing the previous segment)
// and returns its channel-weighted sum of squared K-weighted samples and
// its largest |sample|.
func (k *KMeter) Segment(seg []float32) (energy float64, peak float32) {
	if k.pair {
		s := measurePair(k.lanes[0], k.lanes[1], seg)
		return k.w[0]*s[0].e + k.w[1]*s[1].e, float32(max(s[0].peak(), s[1].peak()))
	}
	pk := 0.0
	for c, l := range k.lanes {
		var s segSums
		if l.fma {
			s = l.measureFMA(seg)
		} else {
			s = l.measure(seg)
		}
		energy += k.w[c] * s.e
		pk = max(pk, s.peak())
	}
	return energy, float32(pk)
}
