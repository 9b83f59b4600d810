package dsp

import (
	"encoding/json"
	"math"
	"slices"
)

// BS.1770-4 / EBU R128 gating constants.
const (
	absGateLUFS   = -70.0 // absolute gate
	relGateLU     = -10.0 // relative gate for integrated loudness
	lraRelGateLU  = -20.0 // relative gate for loudness range (Tech 3342)
	momentaryBlks = 4     // 400 ms in 100 ms blocks
	shortTermBlks = 30    // 3 s in 100 ms blocks
	blockSec      = 0.1   // length of a kept block
)

// lufs converts a channel-weighted mean square to LUFS (-inf for 0).
func lufs(z float64) float64 {
	if z <= 0 {
		return math.Inf(-1)
	}
	return -0.691 + 10*math.Log10(z)
}

// meanSquareOf converts LUFS to a channel-weighted mean square.
func meanSquareOf(l float64) float64 { return math.Pow(10, (l+0.691)/10) }

// windows returns the mean of each run of w consecutive blocks, one per
// block (hop 100 ms): the 400 ms gating blocks (w = 4, 75 % overlap) or
// the 3 s short-term windows (w = 30).
func windows(blocks []float64, w int) []float64 {
	if len(blocks) < w {
		return nil
	}
	out := make([]float64, 0, len(blocks)-w+1)
	sum := 0.0
	for i := 0; i < w; i++ {
		sum += blocks[i]
	}
	out = append(out, sum/float64(w))
	for i := w; i < len(blocks); i++ {
		if i%256 == 0 { // recompute now and then: no drift from running sums
			sum = 0
			for _, v := range blocks[i-w+1 : i+1] {
				sum += v
			}
		} else {
			sum += blocks[i] - blocks[i-w]
		}
		out = append(out, math.Max(sum, 0)/float64(w))
	}
	return out
}

// gatedMean returns the mean of the values above the absolute gate and
// then above (mean of those) + rel LU, and the values kept, or
// (0, nil) when nothing passes the absolute gate.
func gatedMean(z []float64, rel float64) (float64, []float64) {
	absZ := meanSquareOf(absGateLUFS)
	sum, n := 0.0, 0
	for _, v := range z {
		if v > absZ {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0, nil
	}
	relZ := math.Max(absZ, sum/float64(n)*math.Pow(10, rel/10))
	kept := make([]float64, 0, n)
	sum = 0
	for _, v := range z {
		if v > relZ {
			sum += v
			kept = append(kept, v)
		}
	}
	if len(kept) == 0 {
		return 0, nil
	}
	return sum / float64(len(kept)), kept
}

// integratedOf returns the gated integrated loudness (BS.1770-4) of a run of
// consecutive 100 ms blocks, using 400 ms gating blocks with 75 % overlap.
func integratedOf(blocks []float64) float64 {
	m, kept := gatedMean(windows(blocks, momentaryBlks), relGateLU)
	if kept == nil {
		return math.Inf(-1)
	}
	return lufs(m)
}

// loudnessRange returns the EBU Tech 3342 loudness range of consecutive
// 100 ms blocks: 3 s short-term windows every 100 ms, absolute gate
// -70 LUFS, relative gate -20 LU, the spread between the 10th and the 95th
// percentile of the remaining short-term loudness values.
func loudnessRange(blocks []float64) float64 {
	_, kept := gatedMean(windows(blocks, shortTermBlks), lraRelGateLU)
	if len(kept) == 0 {
		return 0
	}
	slices.Sort(kept)
	lo := kept[percentileIndex(len(kept), 0.10)]
	hi := kept[percentileIndex(len(kept), 0.95)]
	return lufs(hi) - lufs(lo)
}

// percentileIndex is the nearest-rank index of percentile p in n sorted values.
func percentileIndex(n int, p float64) int {
	i := int(math.Round(p * float64(n-1)))
	return min(max(i, 0), n-1)
}

// momentarySeries returns the momentary loudness (400 ms) every 100 ms.
func momentarySeries(blocks []float64) []float64 { return toLUFS(windows(blocks, momentaryBlks)) }

// shortTermSeries returns the short-term loudness (3 s) every 100 ms.
func shortTermSeries(blocks []float64) []float64 { return toLUFS(windows(blocks, shortTermBlks)) }

func toLUFS(z []float64) []float64 {
	for i, v := range z {
		z[i] = lufs(v)
	}
	return z
}

// LoudnessOf returns the gated integrated loudness (LUFS) of the given time
// ranges played one after another, as a render that keeps just those
// ranges would measure; -inf when they hold less than 400 ms or only
// silence. It works on the kept 100 ms blocks, so its resolution is 100 ms:
// each range is rounded to the nearest block boundaries, and the 400 ms
// gating blocks are rebuilt from the blocks of the concatenated ranges
// (ranges out of the input's bounds are clipped). The error against
// measuring the rendered file is a few hundredths of an LU for speech.
func (a *Analysis) LoudnessOf(ranges []Range) float64 {
	bs := a.BlockSec
	if bs <= 0 {
		bs = blockSec
	}
	var sel []float64
	for _, r := range ranges {
		i0 := max(int(math.Round(r.Start/bs)), 0)
		i1 := min(int(math.Round(r.End/bs)), len(a.Blocks))
		if i1 > i0 {
			sel = append(sel, a.Blocks[i0:i1]...)
		}
	}
	return integratedOf(sel)
}

// jsonLoudness mirrors Loudness with nullable numbers: JSON has no -inf,
// so a silent programme's values are written as null.
type jsonLoudness struct {
	Integrated   *float64 `json:"integrated"`
	Range        *float64 `json:"range"`
	TruePeak     *float64 `json:"truePeak"`
	SamplePeak   *float64 `json:"samplePeak"`
	MomentaryMax *float64 `json:"momentaryMax"`
	ShortTermMax *float64 `json:"shortTermMax"`
}

func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

func orNegInf(p *float64) float64 {
	if p == nil {
		return math.Inf(-1)
	}
	return *p
}

// MarshalJSON writes the measurements, with null for -inf (silence).
func (l Loudness) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonLoudness{
		Integrated: finite(l.Integrated), Range: finite(l.Range),
		TruePeak: finite(l.TruePeak), SamplePeak: finite(l.SamplePeak),
		MomentaryMax: finite(l.MomentaryMax), ShortTermMax: finite(l.ShortTermMax),
	})
}

// UnmarshalJSON reads what MarshalJSON writes (null becomes -inf).
func (l *Loudness) UnmarshalJSON(b []byte) error {
	var j jsonLoudness
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*l = Loudness{
		Integrated: orNegInf(j.Integrated), Range: orNegInf(j.Range),
		TruePeak: orNegInf(j.TruePeak), SamplePeak: orNegInf(j.SamplePeak),
		MomentaryMax: orNegInf(j.MomentaryMax), ShortTermMax: orNegInf(j.ShortTermMax),
	}
	if j.Range == nil {
		l.Range = 0
	}
	return nil
}
