package transcode

import (
	"math"

	"github.com/autocut-dev/autocut/dsp"
)

// The normalization's measurement pass. chainMeter measures the chain's
// output (before gain) once: its K-weighted energy and the peak the limiter
// will meet, per 2 ms cell. From these, normalization predicts what the
// limiter will do at any gain (predictLoudness) instead of running it.

// Cells. The measurement keeps, for every 2 ms of the chain's output, its
// energy and peak as two 16-bit logarithmic codes (4 bytes: 7.2 MB per
// hour), fine enough for the limiter's model to see a click apart from the
// speech around it, small enough to keep for a 4-hour input; the 100 ms
// loudness blocks are kept exactly besides.
const (
	cellsPerSec   = 500
	cellsPerBlock = cellsPerSec / 10
	codeStepDb    = 0.006 // resolution of a code (the error is at most half of it)
	codeFloorDb   = -300  // code 1; code 0 is zero
)

// meterCell is one 2 ms cell: its energy (sum over its frames of the
// channel-weighted K-weighted squares) and the largest |sample|, or the
// interpolated peak where it could reach the ceiling, as codes (dbCode).
type meterCell struct{ e, peak uint16 }

// dbCode encodes a level in dB (10 log10 of an energy, 20 log10 of a peak).
func dbCode(db float64) uint16 {
	if math.IsInf(db, -1) || math.IsNaN(db) {
		return 0
	}
	return uint16(min(max(math.Round((db-codeFloorDb)/codeStepDb)+1, 1), math.MaxUint16))
}

// codeDb decodes a code to dB (-inf for 0).
func codeDb(c uint16) float64 {
	if c == 0 {
		return math.Inf(-1)
	}
	return codeFloorDb + float64(c-1)*codeStepDb
}

// energy and peakOf decode a cell's values (linear).
func (c meterCell) energy() float64 { return math.Pow(10, codeDb(c.e)/10) }
func (c meterCell) peakOf() float64 { return math.Pow(10, codeDb(c.peak)/20) }

// chainMeter is a sink measuring 10 ms cells. Time is cut at
// round(k*rate/100) frames, as dsp's analyzer cuts it, so ten cells are one
// of its 100 ms loudness blocks.
type chainMeter struct {
	ch          int
	rate        int64
	kw          *dsp.KMeter
	ph          interpPhases
	thresh      float32 // frames with a sample at or above get interpolated peaks
	cells       []meterCell
	cellPk      []float64 // linear peaks of the cells not yet final (interpolation may raise them)
	blockE      []float64 // energy of each complete 100 ms block
	pos         int64     // frames measured
	cellEnd     int64     // end of the current cell
	curE, curPk float64
	blockSum    float64 // energy of the current block's complete cells

	hx    []float32 // interpolator history: interleaved frames [hBase, pos)
	hBase int64

	// cell0 is the first cell measured, a whole number of blocks: a meter
	// of the output from boundary(cell0) on (cells[i] is cell cell0 + i).
	cell0 int64
}

// newChainMeter returns a meter for f. Interpolated peaks are computed only
// between two frames one of which has a |sample| * maxGain within 6 dB of
// ceiling (linear), as an inter-sample peak more than 6 dB over both its
// neighbours takes content at the Nyquist frequency; maxGain <= 0 means
// everywhere. (The limiter itself interpolates wherever its bound allows a
// peak over the ceiling: the meter only predicts.)
func newChainMeter(f dsp.Format, ceiling, maxGain float64, expectFrames int64) *chainMeter {
	return newChainMeterAt(f, ceiling, maxGain, expectFrames, 0)
}

// newChainMeterAt is newChainMeter for the output from the start of cell
// cell0 on (a multiple of cellsPerBlock).
func newChainMeterAt(f dsp.Format, ceiling, maxGain float64, expectFrames, cell0 int64) *chainMeter {
	m := &chainMeter{ch: f.Channels, rate: int64(f.SampleRate), kw: dsp.NewKMeter(f), cell0: cell0}
	var bound float64
	m.ph, bound = newInterpPhases()
	if maxGain > 0 {
		m.thresh = float32(ceiling / max(bound, 2) / maxGain * (1 - 1e-6))
	}
	m.pos = m.boundary(cell0)
	m.cellEnd = m.boundary(cell0 + 1)
	if expectFrames > 0 {
		n := min(expectFrames*cellsPerSec/m.rate+2, 4*3600*cellsPerSec)
		m.cells = make([]meterCell, 0, n)
		m.blockE = make([]float64, 0, n/cellsPerBlock+1)
	}
	m.hBase = m.pos - 2*limiterHalfTaps
	m.hx = make([]float32, 2*limiterHalfTaps*m.ch)
	return m
}

// boundary is the first frame of cell k: round(k*rate/500), so every 50th
// is the boundary of a 100 ms block as dsp's analyzer cuts them.
func (m *chainMeter) boundary(k int64) int64 { return (k*m.rate + cellsPerSec/2) / cellsPerSec }

// write measures interleaved frames.
func (m *chainMeter) write(p []float32) error {
	ch := m.ch
	nf := len(p) / ch
	start := m.pos
	bufMax := float32(0)
	for off := 0; off < nf; {
		n := int(min(int64(nf-off), m.cellEnd-m.pos))
		seg := p[off*ch : (off+n)*ch]
		pk := m.kSegment(seg)
		bufMax = max(bufMax, pk)
		m.curPk = max(m.curPk, float64(pk))
		off += n
		m.pos += int64(n)
		if m.pos == m.cellEnd {
			m.endCell()
		}
	}
	m.peaks(p, start, bufMax)
	return nil
}

// kSegment K-weights a segment lying in one cell, adds its weighted squares
// to the cell and returns its largest |sample|.
func (m *chainMeter) kSegment(seg []float32) float32 {
	e, pk := m.kw.Segment(seg)
	m.curE += e
	return pk
}

// peaks adds the interpolated peaks of the frames near a big sample to
// their cells. p holds frames [start, m.pos); bufMax is its largest |sample|.
func (m *chainMeter) peaks(p []float32, start int64, bufMax float32) {
	const H = limiterHalfTaps
	ch := m.ch
	// history: the last 2H frames before start, then p
	keepFrom := max(start-2*H, m.hBase)
	hx := m.hx[int(keepFrom-m.hBase)*ch : int(start-m.hBase)*ch]
	need := len(hx) + len(p)
	if cap(m.hx) < need {
		nx := make([]float32, need, need+need/2)
		copy(nx, hx)
		m.hx = nx
	} else {
		copy(m.hx, hx)
		m.hx = m.hx[:need]
	}
	copy(m.hx[len(hx):], p)
	m.hBase = keepFrom
	end := m.pos
	if bufMax < m.thresh {
		// no big sample in p: only the frames next to an earlier one
		end = min(end, start+H)
	}
	// big(k): a sample of frame k is at or above thresh
	big := func(k int64) bool {
		i := int(k - m.hBase)
		for _, v := range m.hx[i*ch : (i+1)*ch] {
			if v >= m.thresh || -v >= m.thresh {
				return true
			}
		}
		return false
	}
	bk := start-H >= 0 && start-H >= m.hBase && big(start-H)
	for g := start; g < end; g++ {
		k := g - H
		if k+1 < 0 {
			continue
		}
		bk1 := big(k + 1)
		if k >= 0 && (bk || bk1) {
			m.addPeak(k, m.ph.peakAt(m.hx, ch, int(k-m.hBase)))
		}
		bk = bk1
	}
	m.seal()
}

// endCell closes the current cell. Its peak stays open (in cellPk) for the
// interpolated peaks of its last frames, known H frames later.
func (m *chainMeter) endCell() {
	m.cellPk = append(m.cellPk, m.curPk)
	m.cells = append(m.cells, meterCell{e: dbCode(10 * math.Log10(m.curE))})
	m.blockSum += m.curE
	m.curE, m.curPk = 0, 0
	k := m.cell0 + int64(len(m.cells))
	if k%cellsPerBlock == 0 {
		m.blockE = append(m.blockE, m.blockSum)
		m.blockSum = 0
	}
	m.cellEnd = m.boundary(k + 1)
}

// seal makes final the peaks of the cells whose frames' interpolated
// peaks have all been measured (those ending H frames or more before pos).
func (m *chainMeter) seal() {
	for len(m.cellPk) > 0 && m.boundary(m.cell0+int64(len(m.cells)-len(m.cellPk)+1))+limiterHalfTaps <= m.pos {
		m.sealPeak()
	}
}

// sealPeak writes the oldest open peak into its cell.
func (m *chainMeter) sealPeak() {
	i := len(m.cells) - len(m.cellPk)
	m.cells[i].peak = dbCode(20 * math.Log10(m.cellPk[0]))
	m.cellPk = m.cellPk[:copy(m.cellPk, m.cellPk[1:])]
}

// addPeak raises the peak of the cell holding frame f (which is open).
func (m *chainMeter) addPeak(f int64, pk float64) {
	k := len(m.cells)
	for k > 0 && f < m.boundary(m.cell0+int64(k)) {
		k--
	}
	if k == len(m.cells) {
		m.curPk = max(m.curPk, pk)
	} else if j := k - (len(m.cells) - len(m.cellPk)); j >= 0 {
		m.cellPk[j] = max(m.cellPk[j], pk)
	}
}

// finish measures the interpolated peaks of the last frames (against
// silence after them) and the final partial cell.
func (m *chainMeter) finish() {
	const H = limiterHalfTaps
	pos := m.pos
	m.pos += H // silence after the end, for the last frames' interpolation
	m.peaks(make([]float32, H*m.ch), pos, 0)
	m.pos = pos
	if m.pos > m.boundary(m.cell0+int64(len(m.cells))) {
		m.endCell()
	}
	for len(m.cellPk) > 0 {
		m.sealPeak()
	}
}

// blocks returns the 100 ms block energies (channel-weighted mean squares)
// of the measured output at gain (linear), less loss[block] (energy the
// limiter takes, see limitedLoss) when loss is not nil; a final partial
// block is left out.
func (m *chainMeter) blocks(gain float64, loss []float64) []float64 {
	out := make([]float64, len(m.blockE))
	for b, e := range m.blockE {
		if loss != nil {
			e -= loss[b]
		}
		k := m.cell0 + int64(b)*cellsPerBlock
		n := m.boundary(k+cellsPerBlock) - m.boundary(k)
		out[b] = max(e, 0) * gain * gain / float64(n)
	}
	return out
}

// integrated returns the gated integrated loudness (LUFS) of 100 ms blocks.
func integrated(blocks []float64) float64 {
	a := dsp.Analysis{Blocks: blocks, BlockSec: 0.1}
	return a.LoudnessOf([]dsp.Range{{Start: 0, End: float64(len(blocks)) * 0.1}})
}

// joinMeters returns a's measure up to cell k and b's from there: the
// output measured in two parts side by side, b from cell b.cell0 <= k
// (its cells before k only settled its filters), a from the start to past
// k. ok is false when the two disagree over the cells both measured past
// k by more than rounding (more than two codes of energy or peak).
func joinMeters(a, b *chainMeter, k int64) (*chainMeter, bool) {
	if a.cell0 != 0 || b.cell0 > k || k%cellsPerBlock != 0 || int64(len(a.cells)) < k || b.cell0+int64(len(b.cells)) < k {
		return nil, false
	}
	near := func(x, y uint16) bool { return x == y || (x > 0 && y > 0 && max(x, y)-min(x, y) <= 2) }
	// (a's last two cells end against the silence its finish assumes.)
	for i := k; i < int64(len(a.cells))-2 && i-b.cell0 < int64(len(b.cells)); i++ {
		ca, cb := a.cells[i], b.cells[i-b.cell0]
		if !near(ca.e, cb.e) || !near(ca.peak, cb.peak) {
			return nil, false
		}
	}
	// (into a's arrays, which have room for the whole output: no third copy)
	j := &chainMeter{ch: a.ch, rate: a.rate, pos: b.pos}
	j.cells = append(a.cells[:k], b.cells[k-b.cell0:]...)
	j.blockE = append(a.blockE[:k/cellsPerBlock], b.blockE[(k-b.cell0)/cellsPerBlock:]...)
	return j, true
}
