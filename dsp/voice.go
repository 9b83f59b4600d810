package dsp

import "math"

// Voice classification of the 10 ms frames (Envelope.Voice).
//
// Level is the first signal: a frame is classified only where its level
// cannot decide. Each frame's level (the 10 ms powers averaged over 50 ms)
// is compared with the local floor, the lowest such level within 1 s on
// either side:
//
//   - under floor + voiceFloorBandDb (4 dB) the frame is the background
//     itself (VoiceFloor), or under -90 dBFS (digital silence);
//   - over floor + voiceLoudBandDb (18 dB) it stands well clear of the
//     background: speech by level (VoiceLoud);
//   - in between, where a noisy or fluctuating bed and quiet speech
//     overlap, the classifier runs: the periodicity of the frame, the
//     largest normalised cross-correlation (NCCF) of 32 ms of the
//     downmix, decimated to about 8 kHz and pre-emphasised, at the lags of
//     a voice's pitch (70-400 Hz). Voiced speech is periodic at its pitch
//     (NCCF 0.6-0.95); hiss, pink noise, static and crackles are not
//     (under 0.3); pre-emphasis and the lag range keep mains hum (50/60 Hz
//     and harmonics) low. The value stored is 1 + round(253 x NCCF).
//
// On a file whose pauses are quiet, only the onsets and decays of speech
// fall in the band, so the classifier costs little; on a noisy bed it
// runs on most frames. The frames are decided 1.03 s late (the floor looks
// 1 s ahead), from a ring of the last 1.2 s of the downmix.
const (
	// VoiceFloor marks a frame at the background's level (not classified).
	VoiceFloor uint8 = 0
	// VoiceLoud marks a frame well over the background (not classified).
	VoiceLoud uint8 = 255

	voiceFloorBandDb = 4.0
	voiceLoudBandDb  = 18.0
	voiceSilenceDb   = -90.0
	voiceFloorWin    = 100 // frames each side for the local floor
	voiceSmooth      = 2   // frames each side of the 50 ms level
	voiceDelay       = voiceFloorWin + voiceSmooth + 1
	voiceWinSec      = 0.032
	voiceDecRate     = 8000
	voiceMinHz       = 70.0
	voiceMaxHz       = 400.0
	voicePreEmph     = 1.0
)

// VoiceScore returns a classified frame's periodicity in [0, 1], or -1
// for VoiceFloor and 2 for VoiceLoud.
func VoiceScore(v uint8) float64 {
	switch v {
	case VoiceFloor:
		return -1
	case VoiceLoud:
		return 2
	}
	return float64(v-1) / 253
}

// voiceDetector classifies frames as the Analyzer closes them. Nothing in
// its per-frame path allocates.
type voiceDetector struct {
	rate int64
	ch   int

	ring []float32 // mono downmix, last len(ring) samples (power of two)
	mask int64
	n    int64 // samples written

	pw   [512]float64 // frame mean squares, by frame index mod 512
	sm   [512]float64 // 50 ms levels (dB), by frame index mod 512
	dq   [512]int64   // sliding-minimum deque of frame indexes over sm
	dqH  int          // deque head (index into dq, mod 512)
	dqN  int          // deque length
	nf   int64        // frames pushed
	nsm  int64        // smoothed levels computed
	done int64        // frames decided

	dec  int       // decimation factor
	win  []float64 // decimated, pre-emphasised window
	lagA int       // lag range at the decimated rate
	lagB int
	out  []uint8

	last    int64 // last frame whose periodicity was measured
	lastOut uint8
}

func newVoiceDetector(rate, ch int) *voiceDetector {
	need := int64(float64(rate)*(float64(voiceDelay+4)*EnvelopeFrameSec+voiceWinSec)) + 1
	size := int64(1)
	for size < need {
		size <<= 1
	}
	dec := max(int(math.Round(float64(rate)/voiceDecRate)), 1)
	dr := float64(rate) / float64(dec)
	v := &voiceDetector{
		rate: int64(rate), ch: ch,
		ring: make([]float32, size), mask: size - 1,
		dec:  dec,
		win:  make([]float64, int(voiceWinSec*dr)+1),
		lagA: max(int(dr/voiceMaxHz), 1),
		lagB: int(math.Ceil(dr / voiceMinHz)),
		last: -2,
	}
	return v
}

// write adds interleaved samples to the ring (downmixed).
func (v *voiceDetector) write(seg []float32) {
	ch := v.ch
	pos := v.n
	switch ch {
	case 1:
		for len(seg) > 0 {
			i := pos & v.mask
			k := copy(v.ring[i:], seg)
			seg = seg[k:]
			pos += int64(k)
		}
	case 2:
		for i := 0; i+1 < len(seg); i += 2 {
			v.ring[pos&v.mask] = (seg[i] + seg[i+1]) * 0.5
			pos++
		}
	default:
		inv := 1 / float32(ch)
		for i := 0; i+ch <= len(seg); i += ch {
			s := float32(0)
			for _, x := range seg[i : i+ch] {
				s += x
			}
			v.ring[pos&v.mask] = s * inv
			pos++
		}
	}
	v.n = pos
}

// frame records the mean square of the frame just closed and decides the
// frames that are now far enough behind.
func (v *voiceDetector) frame(ms float64) {
	v.pw[v.nf%512] = ms
	v.nf++
	// The 50 ms level of frame nf-1-voiceSmooth is now complete.
	for v.nsm+voiceSmooth < v.nf {
		v.smooth(v.nsm, v.nf)
	}
	for v.done+voiceFloorWin < v.nsm {
		v.decide(v.done)
	}
}

// flush decides the remaining frames at the end of the input.
func (v *voiceDetector) flush() {
	for v.nsm < v.nf {
		v.smooth(v.nsm, v.nf)
	}
	for v.done < v.nf {
		v.decide(v.done)
	}
}

// smooth computes the 50 ms level of frame i (frames [i-2, i+2] within
// [0, nf)) and pushes it on the sliding-minimum deque.
func (v *voiceDetector) smooth(i, nf int64) {
	s, c := 0.0, 0
	for j := max(i-voiceSmooth, 0); j <= min(i+voiceSmooth, nf-1); j++ {
		s += v.pw[j%512]
		c++
	}
	l := FloorDb
	if m := s / float64(c); m > 1e-12 {
		l = max(10*math.Log10(m), FloorDb)
	}
	v.sm[i%512] = l
	for v.dqN > 0 && v.sm[v.dq[(v.dqH+v.dqN-1)%512]%512] >= l {
		v.dqN--
	}
	v.dq[(v.dqH+v.dqN)%512] = i
	v.dqN++
	v.nsm = i + 1
}

// decide classifies frame i: its local floor is the minimum 50 ms level
// over [i-voiceFloorWin, i+voiceFloorWin] (as far as known).
func (v *voiceDetector) decide(i int64) {
	for v.dqN > 0 && v.dq[v.dqH] < i-voiceFloorWin {
		v.dqH = (v.dqH + 1) % 512
		v.dqN--
	}
	floor := v.sm[v.dq[v.dqH]%512]
	l := v.sm[i%512]
	var out uint8
	switch {
	case l < voiceSilenceDb || l < floor+voiceFloorBandDb:
		out = VoiceFloor
	case l > floor+voiceLoudBandDb:
		out = VoiceLoud
	case v.last == i-1 && i%2 == 1:
		// Periodicity is measured every other frame: 32 ms windows 10 ms
		// apart overlap by two thirds.
		out = v.lastOut
	default:
		out = 1 + uint8(math.Round(253*v.periodicity(i)))
		v.last, v.lastOut = i, out
	}
	v.out = append(v.out, out)
	v.done = i + 1
}

// periodicity returns the largest NCCF of frame i's 32 ms window at the
// lags of a voice's pitch, in [0, 1].
func (v *voiceDetector) periodicity(i int64) float64 {
	c := ((i*v.rate+50)/100 + ((i+1)*v.rate+50)/100) / 2
	n := len(v.win)
	span := int64(n * v.dec)
	start := max(c-span/2, v.n-int64(len(v.ring)), 0)
	end := min(start+span, v.n)
	// Decimate by boxcar averaging, then pre-emphasise.
	m := 0
	prev := 0.0
	inv := 1 / float64(v.dec)
	for p := start; p+int64(v.dec) <= end && m < n; p += int64(v.dec) {
		s := 0.0
		for q := p; q < p+int64(v.dec); q++ {
			s += float64(v.ring[q&v.mask])
		}
		s *= inv
		v.win[m] = s - voicePreEmph*prev
		prev = s
		m++
	}
	w := v.win[:m]
	// xx and yy come from the running energies of the window's head and
	// tail; only the cross term needs the loop (four accumulators).
	total := 0.0
	for _, x := range w {
		total += x * x
	}
	head, tail := 0.0, 0.0 // energy of w[m-lag:] and of w[:lag]
	for k := 0; k < v.lagA && k < m; k++ {
		head += w[m-1-k] * w[m-1-k]
		tail += w[k] * w[k]
	}
	best := 0.0
	for lag := v.lagA; lag <= v.lagB && 2*lag < m; lag++ {
		a, b := w[:m-lag], w[lag:m]
		b = b[:len(a)]
		var s0, s1, s2, s3 float64
		k := 0
		for ; k+3 < len(a); k += 4 {
			s0 += a[k] * b[k]
			s1 += a[k+1] * b[k+1]
			s2 += a[k+2] * b[k+2]
			s3 += a[k+3] * b[k+3]
		}
		for ; k < len(a); k++ {
			s0 += a[k] * b[k]
		}
		xy := s0 + s1 + s2 + s3
		xx, yy := total-head, total-tail
		if d := xx * yy; d > 0 && xy > 0 {
			if r := xy * xy / d; r > best {
				best = r
			}
		}
		head += w[m-1-lag] * w[m-1-lag]
		tail += w[lag] * w[lag]
	}
	return math.Sqrt(best)
}

// Speech seeds and the background mask (NonSpeech).
//
// A frame seeds speech when it is VoiceLoud or periodic (VoiceScore
// averaged over the classified frames within 20 ms at least voicedMin,
// 0.38) and, with a faint-voice depth given, its 50 ms level is
// within that depth of the speech level (a fainter voice is another
// speaker's crosstalk). Seeds in runs shorter than seedMinFrames (50 ms)
// with fewer than loudMinFrames (2) VoiceLoud frames are dropped: crackles
// and clicks. Speech is every seed run widened while the level stays
// growMarginDb (8 dB) over the local floor (the lowest 50 ms level within
// 1 s: for a steady bed about its level less 3 dB, so the bed + 5 dB,
// what stands out of it): up to growAfter frames (200 ms) after it, for
// word endings, and growBefore (150 ms) before it, for unvoiced onsets. Every other frame whose level is
// more than bgMaxDb (10 dB) under the speech level is background: level
// decides the louder ones (a steady tone or loud music is sound, not a
// bed, however unvoiced).
const (
	voicedMin     = 0.38
	voicedAvg     = 2
	seedMinFrames = 5
	loudMinFrames = 2
	growAfter     = 20
	growBefore    = 15
	growMarginDb  = 8
	growDipFrames = 2
	faintPeakDb   = 0
	decayRiseDb   = 1.5
	bgMaxDb       = 10
	loudRunFrames = 8
	// minVoicedFrames: the classification applies only to input with at
	// least this many periodic frames (0.2 s of voice) where level could
	// not decide. Measured: the speech recordings 38-210, the real-speech
	// mixes 31 and more; vinyl hiss 2, pink noise 0.
	minVoicedFrames = 20
	// Syllabic rhythm (SyllabicDepth): under minSyllabicDb the input has
	// no speech rhythm and level alone decides (NonSpeech returns nil).
	syllableFast  = 5
	syllableSlow  = 25
	minSyllabicDb = 2.0
)

// SyllabicDepth returns how much the 50 ms levels lv move at a syllable's
// rate: the RMS, in dB, of lv band-passed to about 2-8 Hz (a 50 ms less a
// 250 ms moving average), over the whole input. Speech moves by syllables
// (about 4 a second); a steady bed or legato music much less. Measured:
// the six speech recordings of testdata 4.4-9.7 dB, the real-speech mixes
// (internal/corpus) 2.3 dB and more (the lowest: 10 dB over hum or pink
// noise); Brahms' dance (orchestra) 1.7, vinyl hiss 2.2, the Vibe Ace
// track 2.4, pink noise 0.7.
func SyllabicDepth(lv []float32) float64 {
	n := len(lv)
	if n < 3*syllableSlow {
		return 0
	}
	var fast, slow float64
	const nf, ns = syllableFast, syllableSlow
	for i := 0; i < ns; i++ {
		slow += float64(lv[i])
		if i >= ns-nf {
			fast += float64(lv[i])
		}
	}
	sum, cnt := 0.0, 0
	for e := ns; e <= n; e++ { // window [e-ns, e); fast window ends there too
		// centre both on the same frame: the fast window is the middle
		// nf frames of the slow one.
		d := fastMid(lv, e, nf, ns)/nf - slow/ns
		sum += d * d
		cnt++
		if e < n {
			slow += float64(lv[e]) - float64(lv[e-ns])
		}
	}
	_ = fast
	return math.Sqrt(sum / float64(cnt))
}

// fastMid returns the sum of the middle nf frames of lv[e-ns:e].
func fastMid(lv []float32, e, nf, ns int) float64 {
	s := 0.0
	for _, v := range lv[e-ns+(ns-nf)/2 : e-ns+(ns-nf)/2+nf] {
		s += float64(v)
	}
	return s
}

// NonSpeech returns, for each frame of env, whether the voice
// classification puts it in the background (see above): lv are the 50 ms
// levels (SmoothedLevels), faintDb the faint-voice depth (0: none). It
// returns nil when env has no voice classification, when the input has
// no syllabic rhythm (SyllabicDepth under 2 dB: orchestral music, steady
// noise, tones), when it holds under 0.2 s of periodic frames (no voice
// where level could not decide: a noise bed alone), or when it holds no
// background stretch of 0.5 s, where
// level alone decides.
func NonSpeech(env *Envelope, lv []float32, speechDb, faintDb float64) []bool {
	n := len(env.Voice)
	if n == 0 || n != len(lv) || SyllabicDepth(lv) < minSyllabicDb {
		return nil
	}
	bg, voiced := nonSpeech(env, lv, speechDb, faintDb)
	if voiced < minVoicedFrames || !hasRun(bg, minPauseFrames) {
		return nil
	}
	return bg
}

// VoicedFrames returns how many of env's frames the classification found
// periodic (VoiceScore averaged over the classified frames within 20 ms
// at least voicedMin).
func VoicedFrames(env *Envelope) int {
	n, c := len(env.Voice), 0
	for i, v := range env.Voice {
		if v == VoiceFloor || v == VoiceLoud {
			continue
		}
		s, k := 0.0, 0
		for j := max(i-voicedAvg, 0); j <= min(i+voicedAvg, n-1); j++ {
			if w := env.Voice[j]; w != VoiceFloor && w != VoiceLoud {
				s += VoiceScore(w)
				k++
			}
		}
		if s >= voicedMin*float64(k) {
			c++
		}
	}
	return c
}

// hasRun reports whether b holds a run of at least k true values.
func hasRun(b []bool, k int) bool {
	run := 0
	for _, v := range b {
		if !v {
			run = 0
		} else if run++; run >= k {
			return true
		}
	}
	return false
}

// nonSpeech is NonSpeech without the checks of the whole input; it also
// returns how many frames were found periodic.
func nonSpeech(env *Envelope, lv []float32, speechDb, faintDb float64) ([]bool, int) {
	n := len(env.Voice)
	floor := localFloor(lv)
	seed := make([]bool, n)
	voiced := 0
	classified := func(v uint8) bool { return v != VoiceFloor && v != VoiceLoud }
	for i, v := range env.Voice {
		switch {
		case v == VoiceLoud:
			seed[i] = true
		case classified(v):
			// The periodicity averaged over the classified frames
			// within 20 ms.
			s, c := 0.0, 0
			for j := max(i-voicedAvg, 0); j <= min(i+voicedAvg, n-1); j++ {
				if w := env.Voice[j]; classified(w) {
					s += VoiceScore(w)
					c++
				}
			}
			seed[i] = s >= voicedMin*float64(c)
			if seed[i] {
				voiced++
			}
		}
	}
	// other marks the frames of a fainter voice: they would seed but for
	// the faint-voice rule. Speech does not grow over them.
	var other []bool
	if faintDb > 0 {
		other = make([]bool, n)
		for i := range seed {
			if seed[i] && float64(lv[i]) < speechDb-faintDb {
				seed[i], other[i] = false, true
			}
		}
	}
	// Over a fainter voice's frames speech grows only while the level
	// keeps falling away from the seed run (by at most decayRiseDb a
	// frame): the speaker's own decay or soft onset, not another voice
	// starting.
	grows := func(k, prev int) bool {
		if float64(lv[k]) < float64(floor[k])+growMarginDb {
			return false
		}
		return other == nil || !other[k] || float64(lv[k]) <= float64(lv[prev])+decayRiseDb
	}
	speech := make([]bool, n)
	for i := 0; i < n; {
		if !seed[i] {
			i++
			continue
		}
		j, loud := i, 0
		for j < n && seed[j] {
			if env.Voice[j] == VoiceLoud {
				loud++
			}
			j++
		}
		if j-i >= seedMinFrames || loud >= loudMinFrames {
			for k := i; k < j; k++ {
				speech[k] = true
			}
			// A dip of up to growDipFrames under the margin does not
			// stop the growth (a stop consonant's closure); it ends at
			// the last frame over it.
			last, dip := j-1, 0
			for k := j; k < min(j+growAfter, n) && dip <= growDipFrames; k++ {
				if grows(k, k-1) {
					last, dip = k, 0
				} else {
					dip++
				}
			}
			for k := j; k <= last; k++ {
				speech[k] = true
			}
			first, dip := i, 0
			for k := i - 1; k >= max(i-growBefore, 0) && dip <= growDipFrames; k-- {
				if grows(k, k+1) {
					first, dip = k, 0
				} else {
					dip++
				}
			}
			for k := first; k < i; k++ {
				speech[k] = true
			}
		}
		i = j
	}
	if faintDb > 0 {
		// A stretch of speech whose loudest 50 ms stays more than
		// faintDb - faintPeakDb under the speech level is another,
		// fainter voice.
		for i := 0; i < n; {
			if !speech[i] {
				i++
				continue
			}
			j, peak := i, float32(FloorDb)
			for ; j < n && speech[j]; j++ {
				peak = max(peak, lv[j])
			}
			if float64(peak) < speechDb-(faintDb-faintPeakDb) {
				for k := i; k < j; k++ {
					speech[k] = false
				}
			}
			i = j
		}
	}
	// Level first: a run of at least loudRunFrames (80 ms) within
	// bgMaxDb of the speech level is sound, whatever its periodicity (a
	// steady tone or music, a loud noise the speaker makes); shorter
	// ones are crackles and clicks of the background.
	for i := 0; i < n; {
		if float64(lv[i]) < speechDb-bgMaxDb {
			speech[i] = !speech[i]
			i++
			continue
		}
		j := i
		for j < n && float64(lv[j]) >= speechDb-bgMaxDb {
			j++
		}
		for k := i; k < j; k++ {
			speech[k] = !speech[k] && j-i < loudRunFrames
		}
		i = j
	}
	return speech, voiced
}

// localFloor returns the lowest of lv within voiceFloorWin frames of each
// frame (a sliding minimum), as the classification's floor.
func localFloor(lv []float32) []float32 {
	n := len(lv)
	out := make([]float32, n)
	dq := make([]int, 0, 2*voiceFloorWin+2)
	next, head := 0, 0
	for i := range n {
		for ; next < n && next <= i+voiceFloorWin; next++ {
			for len(dq) > head && lv[dq[len(dq)-1]] >= lv[next] {
				dq = dq[:len(dq)-1]
			}
			dq = append(dq, next)
		}
		for dq[head] < i-voiceFloorWin {
			head++
		}
		out[i] = lv[dq[head]]
		if head > voiceFloorWin { // keep the slice short
			dq = append(dq[:0], dq[head:]...)
			head = 0
		}
	}
	return out
}
