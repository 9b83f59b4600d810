package transcode

import "math"

// Predicting the limiter. The limiter lowers the loudness of what it
// limits, so the normalization gain must be a little more than target minus
// measured loudness. Instead of running gain + limiter + a loudness meter
// over the whole input again (and again, to converge), the measurement pass
// kept each 10 ms cell's energy and the peak the limiter will meet in it;
// limitedGains replays the limiter's gain law on a 1 ms grid from these
// peaks, which is cheap and lands within a few hundredths of an LU of the
// real limiter on speech (TestPredictedLoudnessMatchesLimiter).

// predictSteps is the number of 1 ms steps the model divides a cell into.
const predictSteps = 10

// limitedGains returns, for every measured cell, the mean square of the
// gain the limiter will apply to it when the chain's output is amplified by
// gain and limited at ceiling (both linear) with lookSec of look-ahead; nil
// when no peak reaches the ceiling (the limiter leaves everything as is).
//
// The model follows limiterSource at 1 ms resolution, with each cell's peak
// at its centre: r = ceiling/peak at the peak, a sliding minimum of r over
// the look-ahead and a moving average over the same window (the attack),
// and the one-pole release of 80 ms. Energy is taken as spread evenly over
// the cell.
func (m *chainMeter) limitedGains(gain, ceiling, lookSec float64) []float64 {
	cells := m.cells
	reaches := false
	for _, c := range cells {
		if float64(c.peak)*gain > ceiling {
			reaches = true
			break
		}
	}
	if !reaches {
		return nil
	}
	const Q = predictSteps
	L := max(1, int(math.Round(lookSec*1000)))
	rel := 1 - math.Exp(-1.0/80) // per 1 ms step
	// r of step j: the ratio at a cell's centre step, 1 elsewhere.
	r := func(j int) float64 {
		if j < 0 || j%Q != Q/2 || j/Q >= len(cells) {
			return 1
		}
		if p := float64(cells[j/Q].peak) * gain; p > ceiling {
			return ceiling / p
		}
		return 1
	}
	low := func(i int) bool { // cell i has r < 1
		return i >= 0 && i < len(cells) && float64(cells[i].peak)*gain > ceiling
	}
	reach := (2*L+Q)/Q + 1 // cells whose centre can be in a step's window
	g2 := make([]float64, len(cells))
	g := 1.0
	for i := range cells {
		near := false
		for k := i - reach; k <= i+reach && !near; k++ {
			near = low(k)
		}
		if !near && g == 1 {
			g2[i] = 1
			continue
		}
		acc := 0.0
		for j := i * Q; j < i*Q+Q; j++ {
			avg := 1.0
			if near {
				s := 0.0
				for k := j - L; k <= j; k++ {
					mv := 1.0
					for q := k; q <= k+L; q++ {
						mv = min(mv, r(q))
					}
					s += mv
				}
				avg = min(s/float64(L+1), 1)
			}
			if avg > g {
				g += (avg - g) * rel
				if avg == 1 && g > 1-1e-5 {
					g = 1
				}
			} else {
				g = avg
			}
			acc += g * g
		}
		g2[i] = acc / Q
	}
	return g2
}

// solveGain returns the gain (dB) that brings the measured output to
// target LUFS through a limiter at ceilingDb with lookSec of look-ahead,
// predicted with limitedGains; lufs is the output's measured loudness.
func (m *chainMeter) solveGain(target, lufs, ceilingDb, lookSec float64) float64 {
	ceiling := math.Pow(10, ceilingDb/20)
	gDb := target - lufs
	// Each step adds the predicted shortfall; the loudness rises by at most
	// as much as the gain does, so the steps never overshoot.
	for i := 0; i < 30; i++ {
		g := math.Pow(10, gDb/20)
		g2 := m.limitedGains(g, ceiling, lookSec)
		if g2 == nil {
			return gDb
		}
		got := integrated(m.blocks(g, g2))
		if math.IsInf(got, -1) || math.IsNaN(got) {
			return gDb
		}
		d := target - got
		gDb += d
		if math.Abs(d) < 0.005 {
			break
		}
	}
	return gDb
}
