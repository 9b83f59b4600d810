package dsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrBadSamples reports samples the Analyzer cannot measure: a slice that
// is not whole frames, or NaN/Inf values.
var ErrBadSamples = errors.New("samples are not whole frames")

// Limits of the formats the Analyzer measures.
const (
	MinSampleRate = 1000
	MaxSampleRate = 768000
	MaxChannels   = 8
)

// fineWin is the number of 10 ms frames in a 3 s short-term window; the
// momentary and short-term maxima slide over the 10 ms frames (hop 10 ms),
// so a burst is never measured more than 5 ms off its best alignment.
const (
	fineMomentary = 40
	fineShortTerm = 300
)

// Analyzer is a sink that measures interleaved float32 frames in one
// streaming pass: K-weighted 100 ms block energies (loudness, LRA,
// LoudnessOf), momentary and short-term maxima, sample and true peak and the
// 10 ms envelope. Memory grows only with the kept blocks and envelope
// (about 3 MB per hour at any sample rate). Create it with NewAnalyzer,
// feed it with Write, and call Result at the end. Not safe for concurrent use.
//
// Time is cut at round(k*rate/100) samples, so 10 ms frames and 100 ms
// blocks stay aligned to time at any rate (a prime rate too). Integrated
// loudness and LRA are computed from the 100 ms blocks exactly as BS.1770-4
// and Tech 3342 describe (400 ms / 3 s windows every 100 ms); the momentary
// and short-term maxima slide over the 10 ms frames instead, so a short
// burst is measured at most 5 ms off its best alignment. A final partial
// 100 ms block is left out of the loudness (as libebur128 does) but its 10 ms
// frames are in the envelope.
type Analyzer struct {
	format  Format
	ch      int
	rate    int64
	shelf   biquad
	rlb     biquad
	ks      []kState
	weights []float64
	tp      *truePeakMeter

	pos        int64 // frames consumed
	frameIdx   int64 // index of the current 10 ms frame
	frameStart int64 // first frame of the current 10 ms frame
	frameEnd   int64 // one past its last frame

	// Current 10 ms frame accumulators.
	sq    float64   // sum of squares of all channels (unweighted)
	kc    []float64 // per channel sum of squares of K-weighted samples
	peakc []float64 // per channel largest |x| of the current segment
	fpk   float64   // largest |x| of the current 10 ms frame
	u     []float64 // scratch: prefiltered samples of one segment
	fma   bool      // use the fused multiply-add recursions

	// Current 100 ms block accumulators.
	subE   float64
	subN   int64
	subCnt int

	// Sliding 10 ms-hop windows for momentary and short-term maxima.
	ringE        [fineShortTerm]float64
	ringN        [fineShortTerm]int64
	frames       int64 // complete 10 ms frames so far
	mE, sE       float64
	mN, sN       int64
	mMaxZ, sMaxZ float64
	samplePeak   float64
	blocks       []float64
	rms, peakEnv []float32
	voice        *voiceDetector
}

// NewAnalyzer returns an Analyzer for frames in format f.
func NewAnalyzer(f Format) (*Analyzer, error) {
	if f.Channels < 1 || f.Channels > MaxChannels {
		return nil, fmt.Errorf("%w: %d channels (1 to %d)", ErrUnsupportedFormat, f.Channels, MaxChannels)
	}
	if f.SampleRate < MinSampleRate || f.SampleRate > MaxSampleRate {
		return nil, fmt.Errorf("%w: sample rate %d Hz (%d to %d)", ErrUnsupportedFormat, f.SampleRate, MinSampleRate, MaxSampleRate)
	}
	a := &Analyzer{
		format:  f,
		ch:      f.Channels,
		rate:    int64(f.SampleRate),
		ks:      make([]kState, f.Channels),
		weights: ChannelWeights(f.Channels),
		tp:      newTruePeakMeter(f.SampleRate, f.Channels),
		kc:      make([]float64, f.Channels),
		peakc:   make([]float64, f.Channels),
	}
	a.shelf, a.rlb = kWeighting(f.SampleRate)
	a.voice = newVoiceDetector(f.SampleRate, f.Channels)
	a.fma = hasFMA()
	a.frameEnd = a.boundary(1)
	return a, nil
}

// maxReserveFrames caps what reserve preallocates (4 hours of 10 ms
// frames), so a lying header cannot make it allocate much.
const maxReserveFrames = 4 * 3600 * 100

// reserve preallocates the envelope and blocks for an input of the given
// number of sample frames, saving the copies of growing them.
func (a *Analyzer) reserve(frames int64) {
	if frames <= 0 || len(a.rms) > 0 {
		return
	}
	n := min(frames*100/a.rate+2, maxReserveFrames)
	a.rms = make([]float32, 0, n)
	a.peakEnv = make([]float32, 0, n)
	a.blocks = make([]float64, 0, n/10+1)
	a.voice.out = make([]uint8, 0, n)
}

// boundary returns the first sample frame of 10 ms frame k: round(k*rate/100),
// so frames stay aligned to time at any rate (every 10th boundary is a
// 100 ms block boundary).
func (a *Analyzer) boundary(k int64) int64 { return (k*a.rate + 50) / 100 }

// Format returns the format the Analyzer was made for.
func (a *Analyzer) Format() Format { return a.format }

// Frames returns the number of sample frames written so far.
func (a *Analyzer) Frames() int64 { return a.pos }

// Write measures interleaved samples; len(p) must be a multiple of the
// channel count and the samples finite. After an error the Analyzer's
// results are meaningless.
func (a *Analyzer) Write(p []float32) error {
	if len(p)%a.ch != 0 {
		return fmt.Errorf("dsp: analyzer write of %d samples for %d channels: %w", len(p), a.ch, ErrBadSamples)
	}
	nf := len(p) / a.ch
	for off := 0; off < nf; {
		n := int(min(int64(nf-off), a.frameEnd-a.pos))
		a.segment(p[off*a.ch:(off+n)*a.ch], n)
		if math.IsNaN(a.sq) || math.IsInf(a.sq, 0) {
			// A float input holding NaN or Inf is damaged content.
			return fmt.Errorf("dsp: non-finite sample (NaN or Inf) near %.3f s: %w: %w", float64(a.pos)/float64(a.rate), ErrBadSamples, ErrUnsupportedFormat)
		}
		off += n
		a.pos += int64(n)
		if a.pos == a.frameEnd {
			a.endFrame()
		}
	}
	return nil
}

// segment measures n frames that all lie in the current 10 ms frame.
//
// The K-weighting is split in two passes to keep the recursive loop within
// the CPU's registers: prefilter computes the non-recursive half of the
// shelf (b0 x + b1 x[n-1] + b2 x[n-2]) into a.u along with the squares and
// peaks, then kPair/kOne run the recursions on a.u.
func (a *Analyzer) segment(seg []float32, n int) {
	ch := a.ch
	if cap(a.u) < len(seg) {
		a.u = make([]float64, len(seg))
	}
	u := a.u[:len(seg)]
	if ch == 2 {
		a.prefilterStereo(seg, u)
		a.voice.n += int64(n) // prefilterStereo wrote the downmix
	} else {
		for c := 0; c < ch; c++ {
			a.prefilter(seg, u, c)
		}
	}
	c := 0
	for ; c+1 < ch; c += 2 {
		if a.fma {
			a.kPairFMA(u, c)
		} else {
			a.kPair(u, c)
		}
	}
	if c < ch {
		if a.fma {
			a.kOneFMA(u, c)
		} else {
			a.kOne(u, c)
		}
	}
	for c := 0; c < ch; c++ {
		a.tp.segment(seg, ch, c, n, a.peakc[c])
		a.fpk = max(a.fpk, a.peakc[c])
	}
	if ch != 2 {
		a.voice.write(seg)
	}
}

// prefilterStereo is prefilter for both channels of stereo input.
func (a *Analyzer) prefilterStereo(seg []float32, u []float64) {
	b0, b1, b2 := a.shelf.b0, a.shelf.b1, a.shelf.b2
	s0, s1 := &a.ks[0], &a.ks[1]
	px1, px2, qx1, qx2 := s0.x1, s0.x2, s1.x1, s1.x2
	var sq0, sq1, p0, p1 float64
	u = u[:len(seg)]
	// The voice detector's downmix ring is filled here too, saving a pass.
	ring, mask, pos := a.voice.ring, a.voice.mask, a.voice.n
	for i := 0; i+1 < len(seg) && i+1 < len(u); i += 2 {
		ring[pos&mask] = (seg[i] + seg[i+1]) * 0.5
		pos++
		x, w := float64(seg[i]), float64(seg[i+1])
		sq0 += x * x
		sq1 += w * w
		u[i] = b0*x + b1*px1 + b2*px2
		u[i+1] = b0*w + b1*qx1 + b2*qx2
		px2, px1, qx2, qx1 = px1, x, qx1, w
		if ax := math.Abs(x); ax > p0 {
			p0 = ax
		}
		if aw := math.Abs(w); aw > p1 {
			p1 = aw
		}
	}
	s0.x1, s0.x2, s1.x1, s1.x2 = px1, px2, qx1, qx2
	a.sq += sq0 + sq1
	a.peakc[0], a.peakc[1] = p0, p1
}

// prefilter computes channel c's non-recursive shelf half into u, adds its
// squares to the frame's sum and sets its segment peak.
func (a *Analyzer) prefilter(seg []float32, u []float64, c int) {
	b0, b1, b2 := a.shelf.b0, a.shelf.b1, a.shelf.b2
	s := &a.ks[c]
	x1, x2 := s.x1, s.x2
	var sq, p float64
	ch := a.ch
	u = u[:len(seg)]
	for i := c; i < len(seg); i += ch {
		x := float64(seg[i])
		sq += x * x
		u[i] = b0*x + b1*x1 + b2*x2
		x2, x1 = x1, x
		if ax := math.Abs(x); ax > p {
			p = ax
		}
	}
	s.x1, s.x2 = x1, x2
	a.sq += sq
	a.peakc[c] = p
}

// flushTiny zeroes filter state too small to matter, so silence never
// drives the recursions into slow denormal arithmetic.
func flushTiny(v float64) float64 {
	if v > -1e-30 && v < 1e-30 {
		return 0
	}
	return v
}

// kPair runs the K-weighting recursions of channels c and c+1 together on
// the prefiltered u: two independent recursions in one loop keep the FPU
// busy while each waits on its feedback.
func (a *Analyzer) kPair(u []float64, c int) {
	s0, s1 := &a.ks[c], &a.ks[c+1]
	a1, a2 := a.shelf.a1, a.shelf.a2
	r1, r2 := a.rlb.a1, a.rlb.a2
	py1, py2, pz1, pz2 := s0.y1, s0.y2, s0.z1, s0.z2
	qy1, qy2, qz1, qz2 := s1.y1, s1.y2, s1.z1, s1.z2
	var ep, eq float64
	ch := a.ch
	for i := c; i+1 < len(u); i += ch {
		py := u[i] - a2*py2 - a1*py1
		qy := u[i+1] - a2*qy2 - a1*qy1
		pz := py - 2*py1 + py2 - r2*pz2 - r1*pz1
		qz := qy - 2*qy1 + qy2 - r2*qz2 - r1*qz1
		ep += pz * pz
		eq += qz * qz
		py2, py1, pz2, pz1 = py1, py, pz1, pz
		qy2, qy1, qz2, qz1 = qy1, qy, qz1, qz
	}
	s0.y1, s0.y2, s0.z1, s0.z2 = flushTiny(py1), flushTiny(py2), flushTiny(pz1), flushTiny(pz2)
	s1.y1, s1.y2, s1.z1, s1.z2 = flushTiny(qy1), flushTiny(qy2), flushTiny(qz1), flushTiny(qz2)
	a.kc[c] += ep
	a.kc[c+1] += eq
}

// kOne runs the K-weighting recursions of a single channel c on u.
func (a *Analyzer) kOne(u []float64, c int) {
	s := &a.ks[c]
	a1, a2 := a.shelf.a1, a.shelf.a2
	r1, r2 := a.rlb.a1, a.rlb.a2
	y1, y2, z1, z2 := s.y1, s.y2, s.z1, s.z2
	var e float64
	ch := a.ch
	for i := c; i < len(u); i += ch {
		y := u[i] - a2*y2 - a1*y1
		z := y - 2*y1 + y2 - r2*z2 - r1*z1
		e += z * z
		y2, y1, z2, z1 = y1, y, z1, z
	}
	s.y1, s.y2, s.z1, s.z2 = flushTiny(y1), flushTiny(y2), flushTiny(z1), flushTiny(z2)
	a.kc[c] += e
}

// kPairFMA is kPair with fused multiply-adds on the feedback paths, which
// halves their latency (used where the CPU has FMA). kPair runs the K-weighting recursions of channels c and c+1 together on
// the prefiltered u: two independent recursions in one loop keep the FPU
// busy while each waits on its feedback.
func (a *Analyzer) kPairFMA(u []float64, c int) {
	s0, s1 := &a.ks[c], &a.ks[c+1]
	a1, a2 := a.shelf.a1, a.shelf.a2
	r1, r2 := a.rlb.a1, a.rlb.a2
	py1, py2, pz1, pz2 := s0.y1, s0.y2, s0.z1, s0.z2
	qy1, qy2, qz1, qz2 := s1.y1, s1.y2, s1.z1, s1.z2
	var ep, eq float64
	ch := a.ch
	for i := c; i+1 < len(u); i += ch {
		py := math.FMA(-a1, py1, u[i]-a2*py2)
		qy := math.FMA(-a1, qy1, u[i+1]-a2*qy2)
		pz := math.FMA(-r1, pz1, py-2*py1+py2-r2*pz2)
		qz := math.FMA(-r1, qz1, qy-2*qy1+qy2-r2*qz2)
		ep += pz * pz
		eq += qz * qz
		py2, py1, pz2, pz1 = py1, py, pz1, pz
		qy2, qy1, qz2, qz1 = qy1, qy, qz1, qz
	}
	s0.y1, s0.y2, s0.z1, s0.z2 = flushTiny(py1), flushTiny(py2), flushTiny(pz1), flushTiny(pz2)
	s1.y1, s1.y2, s1.z1, s1.z2 = flushTiny(qy1), flushTiny(qy2), flushTiny(qz1), flushTiny(qz2)
	a.kc[c] += ep
	a.kc[c+1] += eq
}

// kOneFMA is kOne with fused multiply-adds on the feedback paths.
func (a *Analyzer) kOneFMA(u []float64, c int) {
	s := &a.ks[c]
	a1, a2 := a.shelf.a1, a.shelf.a2
	r1, r2 := a.rlb.a1, a.rlb.a2
	y1, y2, z1, z2 := s.y1, s.y2, s.z1, s.z2
	var e float64
	ch := a.ch
	for i := c; i < len(u); i += ch {
		y := math.FMA(-a1, y1, u[i]-a2*y2)
		z := math.FMA(-r1, z1, y-2*y1+y2-r2*z2)
		e += z * z
		y2, y1, z2, z1 = y1, y, z1, z
	}
	s.y1, s.y2, s.z1, s.z2 = flushTiny(y1), flushTiny(y2), flushTiny(z1), flushTiny(z2)
	a.kc[c] += e
}

// endFrame closes the current 10 ms frame (complete or, at the end, partial).
func (a *Analyzer) endFrame() {
	n := a.pos - a.frameStart
	pk := a.fpk
	a.fpk = 0
	a.samplePeak = max(a.samplePeak, pk)
	a.rms = append(a.rms, dbOfPower(a.sq/float64(n*int64(a.ch))))
	a.voice.frame(a.sq / float64(n*int64(a.ch)))
	a.peakEnv = append(a.peakEnv, dbOfAmplitude(pk))
	a.sq = 0
	e := 0.0
	for c, v := range a.kc {
		e += a.weights[c] * v
		a.kc[c] = 0
	}
	if a.pos == a.frameEnd { // complete frame: feeds blocks and maxima
		a.fine(e, n)
		a.subE += e
		a.subN += n
		a.subCnt++
		if a.subCnt == 10 {
			a.blocks = append(a.blocks, a.subE/float64(a.subN))
			a.subE, a.subN, a.subCnt = 0, 0, 0
		}
	}
	a.frameIdx++
	a.frameStart = a.pos
	a.frameEnd = a.boundary(a.frameIdx + 1)
}

// fine updates the momentary and short-term windows sliding by 10 ms.
func (a *Analyzer) fine(e float64, n int64) {
	i := a.frames % fineShortTerm
	if a.frames >= fineShortTerm {
		a.sE -= a.ringE[i]
		a.sN -= a.ringN[i]
	}
	if a.frames >= fineMomentary {
		j := (a.frames - fineMomentary) % fineShortTerm
		a.mE -= a.ringE[j]
		a.mN -= a.ringN[j]
	}
	a.ringE[i], a.ringN[i] = e, n
	a.sE += e
	a.sN += n
	a.mE += e
	a.mN += n
	a.frames++
	if a.frames%4096 == 0 { // recompute: running sums never drift
		a.sE, a.mE = 0, 0
		for k := int64(0); k < min(a.frames, fineShortTerm); k++ {
			idx := (a.frames - 1 - k) % fineShortTerm
			a.sE += a.ringE[idx]
			if k < fineMomentary {
				a.mE += a.ringE[idx]
			}
		}
	}
	if a.frames >= fineMomentary {
		a.mMaxZ = max(a.mMaxZ, max(a.mE, 0)/float64(a.mN))
	}
	if a.frames >= fineShortTerm {
		a.sMaxZ = max(a.sMaxZ, max(a.sE, 0)/float64(a.sN))
	}
}

// Result finishes the measurement and returns the analysis; info is
// copied into Analysis.Input with the decoded format, frame count and
// duration. The Analyzer must not be written to afterwards.
func (a *Analyzer) Result(info Info) *Analysis {
	if a.pos > a.frameStart {
		a.endFrame() // partial last 10 ms frame: envelope only
	}
	a.tp.flush()
	a.voice.flush()
	info.SampleRate = a.format.SampleRate
	info.Channels = a.format.Channels
	info.Frames = a.pos
	info.Duration = float64(a.pos) / float64(a.rate)
	blocks := a.blocks
	l := Loudness{
		Integrated:   integratedOf(blocks),
		Range:        loudnessRange(blocks),
		TruePeak:     20 * math.Log10(max(a.tp.max, a.samplePeak)),
		SamplePeak:   20 * math.Log10(a.samplePeak),
		MomentaryMax: lufs(a.mMaxZ),
		ShortTermMax: lufs(a.sMaxZ),
	}
	lvl := EstimateLevels(a.rms)
	env := Envelope{FrameSec: EnvelopeFrameSec, RMSDb: a.rms, PeakDb: a.peakEnv, Voice: a.voice.out}
	thr, warn := pauseCheck(&env, lvl)
	an := &Analysis{
		Input:         info,
		Loudness:      l,
		NoiseFloorDb:  lvl.NoiseFloorDb,
		SpeechLevelDb: lvl.SpeechLevelDb,
		ThresholdDb:   thr,
		Envelope:      env,
		Blocks:        blocks,
		BlockSec:      blockSec,
	}
	if warn != "" {
		an.Warnings = []string{warn}
	}
	return an
}

// pauseCheck returns the pause threshold and, when neither level nor the
// voice classification finds a pause of 0.5 s (the presets cut pauses of
// 0.6 s and more, but for youtube's 0.35 s and radical's 0.2 s), a warning
// saying why.
func pauseCheck(env *Envelope, lvl Levels) (float64, string) {
	lv := SmoothedLevels(env.RMSDb)
	thr, ok := PauseThreshold(lv, lvl, VoicedFrames(env) >= minVoicedFrames)
	if ok || len(lv) == 0 {
		return thr, ""
	}
	if NonSpeech(env, lv, lvl.SpeechLevelDb, 0) != nil {
		return thr, ""
	}
	return thr, fmt.Sprintf("no pauses found: the level never stays under %.1f dBFS (%.0f dB under the programme level, %.1f dBFS) for 0.5 s, and no voice stands out of a background for that long; nothing is cut",
		thr, lvl.SpeechLevelDb-thr, lvl.SpeechLevelDb)
}

// analyzeBufFrames is the number of frames Analyze reads at a time.
const analyzeBufFrames = 4096

// Analyze measures src in one streaming pass with a reused buffer,
// reporting progress as a fraction of info.Frames (or info.Duration) when
// known, and stops with ctx's error when ctx is cancelled. The returned
// Analysis.Input is info with the real decoded duration, rate and channels.
func Analyze(ctx context.Context, src Source, info Info, progress Progress) (*Analysis, error) {
	f := src.Format()
	a, err := NewAnalyzer(f)
	if err != nil {
		return nil, err
	}
	total := float64(info.Frames)
	if info.Frames <= 0 && info.Duration > 0 {
		total = info.Duration * float64(f.SampleRate)
	}
	a.reserve(int64(total))
	buf := make([]float32, analyzeBufFrames*f.Channels)
	last := -1.0
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dsp: analysis cancelled: %w", err)
		}
		n, rerr := src.Read(buf)
		if n%f.Channels != 0 {
			return nil, fmt.Errorf("dsp: source returned %d samples for %d channels: %w", n, f.Channels, ErrBadSamples)
		}
		if n > 0 {
			if err := a.Write(buf[:n]); err != nil {
				return nil, err
			}
			if progress != nil && total > 0 {
				fr := min(float64(a.pos)/total, 1)
				if fr-last >= 0.001 {
					progress(fr)
					last = fr
				}
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("dsp: analysis read at %.3f s: %w", float64(a.pos)/float64(f.SampleRate), rerr)
		}
	}
	if progress != nil {
		progress(1)
	}
	return a.Result(info), nil
}
