package transcode

import "math"

// Predicting the limiter. The limiter lowers the loudness of what it
// limits, so the normalization gain must be a little more than target minus
// measured loudness. Instead of running gain + limiter + a loudness meter
// over the whole input again (and again, to converge), the measurement pass
// kept each 2 ms cell's energy and the peak the limiter will meet in it;
// limitedLoss replays the limiter's gain law on a 0.5 ms grid from these
// peaks, which is cheap and lands within a few hundredths of an LU of the
// real limiter on speech (TestPredictedLoudnessMatchesLimiter).

// predictSteps is the number of steps the model divides a 2 ms cell into.
const predictSteps = 4

// limitedLoss returns, for every measured 100 ms block, the energy (before
// gain) the limiter will take from it when the chain's output is amplified
// by gain and limited at ceiling (both linear) with lookSec of look-ahead:
// the sum over its cells of energy * (1 - mean square gain); nil when no
// peak reaches the ceiling (the limiter leaves everything as is).
//
// The model runs the limiter's own gain law (gainLaw) and release on a
// 0.5 ms grid, each cell's peak on its middle two steps (the energy of a
// cell with a peak gathers around it: with the peak on one step, a click's
// cell kept too much of its energy; on all four, speech lost too much);
// energy is taken as spread evenly over the cell. Stretches far from any peak over the
// ceiling, after the release has come back to unity, cost one comparison
// per cell.
func (m *chainMeter) limitedLoss(gain, ceiling, lookSec float64) []float64 {
	cells := m.cells
	over := dbCode(20*math.Log10(ceiling/gain)) + 1 // a peak code at or above it exceeds the ceiling
	first := -1
	for i, c := range cells {
		if c.peak >= over {
			first = i
			break
		}
	}
	if first < 0 {
		return nil
	}
	const Q = predictSteps
	stepSec := 1.0 / (cellsPerSec * Q)
	L := max(1, int(math.Round(lookSec/stepSec)))
	rel := 1 - math.Exp(-stepSec/0.08)
	law := newGainLaw(L)
	reach := (2*L)/Q + 2 // cells ahead whose peak can lower a step's gain
	loss := make([]float64, len(m.blockE))
	g := 1.0
	lastLow := int64(-1 << 40) // last step with r < 1
	next := first              // next cell over the ceiling at or after i
	for i := range cells {
		if next < i {
			next = i
			for next < len(cells) && cells[next].peak < over {
				next++
			}
		}
		j0 := int64(i) * Q
		if g == 1 && next > i+reach && lastLow < j0-int64(2*L) {
			law.active = false
			continue
		}
		acc := 0.0
		for s := 0; s < Q; s++ {
			// Step j's sliding minimum reaches r of step j+L; a cell's
			// peak lies on its steps 1 and 2.
			jr := j0 + int64(s) + int64(L)
			r := 1.0
			if c := jr / Q; (jr%Q == 1 || jr%Q == 2) && int(c) < len(cells) && cells[c].peak >= over {
				r = min(1, ceiling/(cells[c].peakOf()*gain))
				lastLow = jr
			}
			avg := 1.0
			if lastLow >= jr-int64(2*L) {
				if !law.active {
					law.reset(jr)
				}
				avg = law.slide(r, jr)
			} else {
				law.active = false
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
		if b := i / cellsPerBlock; acc < Q && b < len(loss) {
			loss[b] += cells[i].energy() * (1 - acc/Q)
		}
	}
	return loss
}

// maxLimiterLoss caps the loudness the normalization asks the limiter to
// take away (LU): a target that needs more is out of reach of a limiter.
const maxLimiterLoss = 10

// solveGain returns the gain (dB) that brings the measured output to
// target LUFS through a limiter at ceilingDb with lookSec of look-ahead,
// predicted with limitedLoss; lufs is the output's measured loudness.
func (m *chainMeter) solveGain(target, lufs, ceilingDb, lookSec float64) float64 {
	ceiling := math.Pow(10, ceilingDb/20)
	gDb := target - lufs
	// Each step adds the predicted shortfall; the loudness rises by at most
	// as much as the gain does, so the steps never overshoot.
	for i := 0; i < 30; i++ {
		g := math.Pow(10, gDb/20)
		loss := m.limitedLoss(g, ceiling, lookSec)
		if loss == nil {
			return gDb
		}
		got := integrated(m.blocks(g, loss))
		if math.IsInf(got, -1) || math.IsNaN(got) {
			return gDb
		}
		d := target - got
		if gDb+d > target-lufs+maxLimiterLoss {
			// Out of reach: the limiter would flatten the programme.
			return target - lufs + maxLimiterLoss
		}
		gDb += d
		if math.Abs(d) < 0.005 {
			break
		}
	}
	return gDb
}
