package dsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
)

// ErrBadSamples reports samples the analyzer cannot measure: a slice that
// is not whole frames, or NaN/Inf values.
var ErrBadSamples = errors.New("samples the analyzer cannot measure")

// Limits of the formats the analyzer measures.
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

// analyzer is a sink that measures interleaved float32 frames in one
// streaming pass: K-weighted 100 ms block energies (loudness, LRA,
// LoudnessOf), momentary and short-term maxima, sample and true peak and the
// 10 ms envelope. Memory grows only with the kept blocks and envelope
// (about 4.5 MB per hour at any sample rate). Create it with newAnalyzer,
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
type analyzer struct {
	format  Format
	ch      int
	rate    int64
	weights []float64
	lanes   []*lane // one per channel
	pair    bool    // stereo, both lanes in one pass (runPair)

	pos        int64 // frames consumed
	frameIdx   int64 // index of the current 10 ms frame
	frameStart int64 // first frame of the current 10 ms frame
	frameEnd   int64 // one past its last frame

	// Current 10 ms frame accumulators.
	sq  float64        // sum of squares of all channels (unweighted)
	kc  []float64      // per channel sum of squares of K-weighted samples
	fpk float64        // largest |x| of the current 10 ms frame
	off *offsetTracker // the channels' DC offsets, out of the envelope

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

	// Write's scratch: the segments of the batch and the voice
	// detector's steps.
	segs []int32
	vops []voiceOp
}

// newAnalyzer returns an analyzer for frames in format f.
func newAnalyzer(f Format) (*analyzer, error) {
	if f.Channels < 1 || f.Channels > MaxChannels {
		return nil, fmt.Errorf("%w: %d channels (1 to %d)", ErrUnsupportedFormat, f.Channels, MaxChannels)
	}
	if f.SampleRate < MinSampleRate || f.SampleRate > MaxSampleRate {
		return nil, fmt.Errorf("%w: sample rate %d Hz (%d to %d)", ErrUnsupportedFormat, f.SampleRate, MinSampleRate, MaxSampleRate)
	}
	a := &analyzer{
		format:  f,
		ch:      f.Channels,
		rate:    int64(f.SampleRate),
		weights: channelWeights(f.Channels),
		kc:      make([]float64, f.Channels),
	}
	fma := hasFMA()
	for c := range f.Channels {
		a.lanes = append(a.lanes, newLane(c, f, fma))
	}
	a.pair = fma && f.Channels == 2 && pairKernel()
	a.voice = newVoiceDetector(f.SampleRate, f.Channels)
	a.off = newOffsetTracker(f.Channels)
	a.frameEnd = a.boundary(1)
	return a, nil
}

// maxReserveFrames caps what reserve preallocates (4 hours of 10 ms
// frames), so a lying header cannot make it allocate much.
const maxReserveFrames = 4 * 3600 * 100

// reserve preallocates the envelope and blocks for an input of the given
// number of sample frames, saving the copies of growing them.
func (a *analyzer) reserve(frames int64) {
	if frames <= 0 || len(a.rms) > 0 {
		return
	}
	n := min(frames*100/a.rate+2, maxReserveFrames)
	a.rms = make([]float32, 0, n)
	a.peakEnv = make([]float32, 0, n)
	a.blocks = make([]float64, 0, n/10+1)
	a.voice.out = make([]uint8, 0, n)
	a.voice.rumble.out = make([]float32, 0, n)
}

// boundary returns the first sample frame of 10 ms frame k: round(k*rate/100),
// so frames stay aligned to time at any rate (every 10th boundary is a
// 100 ms block boundary).
func (a *analyzer) boundary(k int64) int64 { return (k*a.rate + 50) / 100 }

// Format returns the format the analyzer was made for.
func (a *analyzer) Format() Format { return a.format }

// Frames returns the number of sample frames written so far.
func (a *analyzer) Frames() int64 { return a.pos }

// Write measures interleaved samples; len(p) must be a multiple of the
// channel count and the samples finite. After an error the analyzer's
// results are meaningless.
func (a *analyzer) Write(p []float32) error {
	if len(p)%a.ch != 0 {
		return fmt.Errorf("dsp: analyzer write of %d samples for %d channels: %w", len(p), a.ch, ErrBadSamples)
	}
	a.segs = a.cut(len(p)/a.ch, a.segs[:0])
	a.runLanes(p, a.segs, nil)
	var err error
	a.vops, err = a.merge(a.segs, a.vops[:0])
	a.voice.replay(p, a.vops)
	return err
}

// cut appends to segs the lengths of the segments nf frames from the
// current position fall into: runs of frames inside one 10 ms frame.
func (a *analyzer) cut(nf int, segs []int32) []int32 {
	pos, idx, end := a.pos, a.frameIdx, a.frameEnd
	for off := 0; off < nf; {
		n := int(min(int64(nf-off), end-pos))
		segs = append(segs, int32(n))
		off += n
		pos += int64(n)
		if pos == end {
			idx++
			end = a.boundary(idx + 1)
		}
	}
	return segs
}

// merge adds up the lanes' measures of the segments segs (in channel
// order, as one pass over the channels would), closing the 10 ms frames
// they complete, and appends to ops the voice detector's steps.
func (a *analyzer) merge(segs []int32, ops []voiceOp) ([]voiceOp, error) {
	for k, n := range segs {
		if a.ch == 2 {
			a.sq += a.lanes[0].sq[k] + a.lanes[1].sq[k]
		} else {
			for _, l := range a.lanes {
				a.sq += l.sq[k]
			}
		}
		for c, l := range a.lanes {
			a.kc[c] += l.ke[k]
			a.fpk = max(a.fpk, l.pk[k])
			a.off.add(c, l, k)
		}
		if math.IsNaN(a.sq) || math.IsInf(a.sq, 0) {
			// A float input holding NaN or Inf is damaged content.
			return ops, fmt.Errorf("dsp: non-finite sample (NaN or Inf) near %.3f s: %w: %w", float64(a.pos)/float64(a.rate), ErrBadSamples, ErrUnsupportedFormat)
		}
		a.pos += int64(n)
		ops = append(ops, voiceOp{n: n, ms: -1, dc: a.off.downmix()})
		if a.pos == a.frameEnd {
			ops = a.endFrame(ops)
		}
	}
	return ops, nil
}

// endFrame closes the current 10 ms frame (complete or, at the end,
// partial) and appends to ops the voice detector's steps for the frames
// the envelope receives (see offsetTracker.closeFrame).
func (a *analyzer) endFrame(ops []voiceOp) []voiceOp {
	n := a.pos - a.frameStart
	pk := a.fpk
	a.fpk = 0
	a.samplePeak = max(a.samplePeak, pk)
	lv, released := a.off.closeFrame(a.sq, n, a.pos == a.frameEnd)
	ops = a.envelope(ops, lv, released)
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
	return ops
}

// envelope appends the frames lv to the envelope and their mean squares
// to ops for the voice detector; released, they were held for the first
// offset estimate, which the detector's input so far then loses too.
func (a *analyzer) envelope(ops []voiceOp, lv []frameLevel, released bool) []voiceOp {
	if dc := a.off.downmix(); released && dc != (offsets{}) {
		ops = append(ops, voiceOp{ms: -1, dc: dc, rebase: true})
	}
	for _, f := range lv {
		a.rms = append(a.rms, dbOfPower(f.ms))
		a.peakEnv = append(a.peakEnv, dbOfAmplitude(f.peak))
		ops = append(ops, voiceOp{ms: f.ms})
	}
	return ops
}

// fine updates the momentary and short-term windows sliding by 10 ms.
func (a *analyzer) fine(e float64, n int64) {
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
// duration. The analyzer must not be written to afterwards.
func (a *analyzer) Result(info Info) *Analysis {
	a.finish()
	return a.analysis(info)
}

// finish closes the partial last 10 ms frame and flushes the true-peak
// meters and the voice detector: the measures are complete.
func (a *analyzer) finish() {
	var ops []voiceOp
	if a.pos > a.frameStart {
		ops = a.endFrame(ops) // partial last 10 ms frame: envelope only
	}
	lv, released := a.off.flush()
	ops = a.envelope(ops, lv, released)
	a.voice.replay(nil, ops)
	for _, l := range a.lanes {
		l.tp.flush()
	}
	a.voice.flush()
}

// analysis builds the Analysis from the finished measures.
func (a *analyzer) analysis(info Info) *Analysis {
	tp := 0.0
	for _, l := range a.lanes {
		tp = max(tp, l.tp.max)
	}
	info.SampleRate = a.format.SampleRate
	info.Channels = a.format.Channels
	info.Frames = a.pos
	info.Duration = float64(a.pos) / float64(a.rate)
	blocks := a.blocks
	l := Loudness{
		Integrated:   integratedOf(blocks),
		Range:        loudnessRange(blocks),
		TruePeak:     20 * math.Log10(max(tp, a.samplePeak)),
		SamplePeak:   20 * math.Log10(a.samplePeak),
		MomentaryMax: lufs(a.mMaxZ),
		ShortTermMax: lufs(a.sMaxZ),
	}
	lvl := EstimateLevels(a.rms)
	env := Envelope{FrameSec: EnvelopeFrameSec, RMSDb: a.rms, PeakDb: a.peakEnv, Voice: a.voice.out, VoiceHeard: a.voice.heard}
	if len(a.voice.out) == len(a.rms) {
		env.BandFrames, env.Bands = a.voice.bandFrames, a.voice.bands
	}
	if r := a.voice.rumble; len(r.out) == len(a.rms) {
		env.HighPassDb, env.HighPassPeakDb = r.out, 20*math.Log10(r.peak)
	}
	thr, warn := pauseCheck(&env, lvl)
	an := &Analysis{
		Input:         info,
		Loudness:      l,
		NoiseFloorDb:  BackgroundDb(a.rms, lvl),
		SpeechLevelDb: lvl.SpeechLevelDb,
		ThresholdDb:   thr,
		Envelope:      env,
		Blocks:        blocks,
		BlockSec:      blockSec,
	}
	if warn != "" {
		an.Warnings = []string{warn}
	}
	if a.voice.invertedInput() {
		an.Warnings = append(an.Warnings, WarnOppositePolarity+": the two channels carry one sound, one of them upside down (a microphone cable wired the other way round?); played in mono it cancels, so the analysis listened to the difference of the channels")
	}
	return an
}

// WarnOppositePolarity begins the analysis's warning that a stereo
// input's two channels are one signal in opposite polarity (see
// stereoPolarity in voice.go).
const WarnOppositePolarity = "channels in opposite polarity"

// WarnNoPauses begins the analysis's warning that neither level nor the
// voice classification finds a pause (pauseCheck). It is judged without
// a preset: a plan may still cut where the analysis warned (a preset that
// counts a fainter voice as pause, a shorter minimum silence), and a
// caller that shows both should leave the warning out then, as autocut
// analyze does.
const WarnNoPauses = "no pauses found"

// pauseCheck returns the pause threshold and, when neither level nor the
// voice classification finds a pause of 0.5 s (the presets cut pauses of
// 0.6 s and more, but for youtube's 0.35 s and radical's 0.2 s), a warning
// saying why.
func pauseCheck(env *Envelope, lvl Levels) (float64, string) {
	lv := SmoothedLevels(env.RMSDb)
	thr, ok := PauseThreshold(lv, lvl, VoicedFrames(env) >= minVoicedFrames)
	if ok || len(lv) == 0 {
		return thr, noSpeechWarning(env, lvl)
	}
	if NonSpeech(env, lv, lvl.SpeechLevelDb, 0, 0) != nil {
		return thr, noSpeechWarning(env, lvl)
	}
	return thr, fmt.Sprintf(WarnNoPauses+": the level never stays under %.1f dBFS (%.0f dB under the programme level, %.1f dBFS) for 0.5 s, and no voice stands out of a background for that long; nothing is cut",
		thr, lvl.SpeechLevelDb-thr, lvl.SpeechLevelDb)
}

// WarnNoSpeech begins the analysis's warning that the voice network heard
// next to no speech in the loud part of an input that has pauses by level
// (HeardNoSpeech): music or noise, in which a plan with the automatic
// threshold cuts silence only.
const WarnNoSpeech = "no speech found"

// noSpeechWarning returns the warning that env holds no speech
// (HeardNoSpeech), or "".
func noSpeechWarning(env *Envelope, lvl Levels) string {
	if !HeardNoSpeech(env, lvl.SpeechLevelDb) {
		return ""
	}
	judged, speech, _ := heardLoud(env, lvl.SpeechLevelDb)
	return fmt.Sprintf(WarnNoSpeech+": the voice network heard speech in %d of the %d frames as loud as the programme (%.1f dBFS): music or noise, whose quiet stretches are no pauses: only silence (under -70 dBFS) is cut, unless a threshold is given",
		speech, judged, lvl.SpeechLevelDb)
}

// Analyze's batches: it reads batchFrames frames at a time into one of
// batchCount buffers that go round the stages (see Analyze), so the stages
// hold at most batchCount x batchFrames frames between them (2 MB for
// stereo) and meet once a batch, every 1.5 s of 44.1 kHz audio.
const (
	batchFrames    = 1 << 16
	minBatchFrames = 4096
	batchCount     = 4
)

// batch is a buffer of frames on its way round Analyze's stages.
type batch struct {
	buf  []float32
	n    int   // samples read into buf
	err  error // the read error after them (io.EOF at the end)
	segs []int32
	ops  []voiceOp
	// panicked is what the source panicked with while filling buf.
	panicked any
}

// errSourcePanicked marks the batch whose source panicked.
var errSourcePanicked = errors.New("dsp: the source panicked")

// Analyze measures src in one streaming pass, reporting progress as a
// fraction of info.Frames (or info.Duration) when known, and stops with
// ctx's error when ctx is cancelled. The returned Analysis.Input is info
// with the real decoded duration, rate and channels.
//
// The work is spread over the cores in stages that pass a few batches of
// frames round: one goroutine reads (decodes) src, the lanes of the even
// and odd channels run side by side, then their sums are merged into the
// frames, blocks and envelope, and the voice detector, which needs every
// frame in order, runs on its own goroutine a batch behind. Each stage
// sees the same data in the same order as analyzer.Write does, so the
// result is the same, to the bit, as writing src to an analyzer in the
// same batches (batchFrames, fewer for an input known to be short), and
// within rounding (1e-15) in any others.
//
// An MP3 file of a minute or more, or a WAV file of five minutes or more
// (a decoder's Stream opened on the file, not yet read), is analysed in
// two halves side by side, each with its own decoder or reader, as one
// would otherwise bound the whole analysis: the same envelope, blocks and
// loudness within rounding, and voice scores that may differ in a few
// frames after the middle (see mp3split.go and wavsplit.go).
func Analyze(ctx context.Context, src Source, info Info, progress Progress) (*Analysis, error) {
	if src == nil {
		return nil, fmt.Errorf("dsp: analyze %s: nil source", info.Name)
	}
	if an, ok, err := analyzeSplit(ctx, src, info, progress); ok {
		return an, err
	}
	return analyzeWhole(ctx, src, info, lengthOf(info, src.Format()), progress)
}

// analyzeWhole measures src in one piece; total is its length in frames
// when known (else 0), for progress and the envelope's preallocation.
func analyzeWhole(ctx context.Context, src Source, info Info, total float64, progress Progress) (*Analysis, error) {
	a, err := newAnalyzer(src.Format())
	if err != nil {
		return nil, err
	}
	a.reserve(int64(total))
	if err := a.run(ctx, src, total, progress); err != nil {
		return nil, err
	}
	if progress != nil {
		progress(1)
	}
	return a.Result(info), nil
}

// lengthOf is the input's length in sample frames as info tells it (0:
// unknown).
func lengthOf(info Info, f Format) float64 {
	if info.Frames <= 0 && info.Duration > 0 {
		return info.Duration * float64(f.SampleRate)
	}
	return float64(max(info.Frames, 0))
}

// run measures src to its end in Analyze's stages, reporting progress as a
// fraction of total frames (when known).
func (a *analyzer) run(ctx context.Context, src Source, total float64, progress Progress) error {
	f := a.format
	bufFrames := batchFrames
	if total > 0 {
		// A short input: smaller batches, for progress reports every 1 %
		// or less (a wrong length costs only more or fewer batches).
		bufFrames = int(min(max(total/128, minBatchFrames), batchFrames))
	}

	free := make(chan *batch, batchCount)
	for range batchCount {
		free <- &batch{}
	}
	full := make(chan *batch, batchCount)
	voiceQ := make(chan *batch, batchCount)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // the reader
		defer wg.Done()
		var b *batch
		defer func() {
			// A panic of the source (a decoder) is the caller's: Analyze
			// raises it again on its goroutine, where a recover can see it.
			if p := recover(); p != nil {
				b.n, b.err, b.panicked = 0, errSourcePanicked, p
				full <- b
			}
		}()
		for {
			select {
			case <-quit: // first: after an error, read no more
				return
			default:
			}
			select {
			case b = <-free:
			case <-quit:
				return
			}
			if b.buf == nil {
				b.buf = make([]float32, bufFrames*f.Channels)
			}
			b.n, b.err = fill(src, b.buf, f.Channels)
			full <- b // never blocks: there are batchCount batches
			if b.err != nil {
				return
			}
		}
	}()
	go func() { // the voice detector
		defer wg.Done()
		for b := range voiceQ {
			a.voice.replay(b.buf[:b.n], b.ops)
			free <- b // never blocks
		}
	}()
	var odd *laneWorker
	if len(a.lanes) > 1 && !a.pair {
		odd = startLaneWorker(a.lanes)
	}
	defer func() {
		close(quit)
		close(voiceQ)
		odd.stop()
		wg.Wait()
	}()

	last := -1.0
	for {
		var b *batch
		select {
		case b = <-full:
		case <-ctx.Done():
			return fmt.Errorf("dsp: analysis cancelled: %w", ctx.Err())
		}
		b.ops = b.ops[:0] // the voice detector replays them: none from the batch's last round
		if b.n > 0 {
			p := b.buf[:b.n]
			b.segs = a.cut(b.n/f.Channels, b.segs[:0])
			a.runLanes(p, b.segs, odd)
			var merr error
			b.ops, merr = a.merge(b.segs, b.ops[:0])
			if merr != nil {
				return merr
			}
			if progress != nil && total > 0 {
				fr := min(float64(a.pos)/total, 1)
				if fr-last >= 0.001 {
					progress(fr)
					last = fr
				}
			}
		}
		if b.panicked != nil {
			panic(b.panicked)
		}
		rerr := b.err
		voiceQ <- b // never blocks
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			if errors.Is(rerr, ErrBadSamples) {
				return rerr
			}
			return fmt.Errorf("dsp: analysis read at %.3f s: %w", float64(a.pos)/float64(f.SampleRate), rerr)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("dsp: analysis cancelled: %w", err)
		}
	}
	close(voiceQ)
	wg.Wait()                  // the voice detector has seen every batch
	voiceQ = make(chan *batch) // for the deferred close
	return nil
}

// fill reads src into buf until buf is full or src reports an error (io.EOF
// at its end), and returns the samples read, whole frames of ch channels.
func fill(src Source, buf []float32, ch int) (int, error) {
	got := 0
	for got < len(buf) {
		n, err := src.Read(buf[got:])
		if n%ch != 0 {
			return got, fmt.Errorf("dsp: source returned %d samples for %d channels: %w", n, ch, ErrBadSamples)
		}
		got += n
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// laneWorker runs the odd channels' lanes on a goroutine of its own while
// the caller runs the even ones. A nil *laneWorker runs them in wait.
type laneWorker struct {
	lanes []*lane
	job   chan laneJob
	done  chan struct{}
}

type laneJob struct {
	p    []float32
	segs []int32
}

func startLaneWorker(lanes []*lane) *laneWorker {
	w := &laneWorker{lanes: lanes, job: make(chan laneJob), done: make(chan struct{})}
	go func() {
		for j := range w.job {
			for c := 1; c < len(w.lanes); c += 2 {
				w.lanes[c].run(j.p, j.segs)
			}
			w.done <- struct{}{}
		}
	}()
	return w
}

// start hands the worker the batch p cut into segs.
func (w *laneWorker) start(p []float32, segs []int32) {
	if w != nil {
		w.job <- laneJob{p, segs}
	}
}

// wait returns when the worker is done with the batch.
func (w *laneWorker) wait() {
	if w != nil {
		<-w.done
	}
}

// stop ends the worker's goroutine.
func (w *laneWorker) stop() {
	if w != nil {
		close(w.job)
	}
}
