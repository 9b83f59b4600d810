package dsp

import (
	"math"
	"slices"

	"github.com/autocut-dev/autocut/internal/silero"
)

// Voice classification of the 10 ms frames (Envelope.Voice).
//
// Level is the first signal: a frame is classified only where its level
// cannot decide. Each frame's level (the 10 ms powers averaged over 50 ms)
// is compared with the local floor, the lowest such level within 1 s on
// either side:
//
//   - under floor + voiceFloorBandDb (4 dB) the frame is the background
//     itself (VoiceFloor), or under -90 dBFS (digital silence);
//   - in between (floor + 4 to floor + voiceLoudBandDb, 18 dB) a noisy or
//     fluctuating bed and quiet speech overlap;
//   - over it, the frame stands well clear of the background.
//
// Where the bed is quiet, level decides every frame: VoiceLoud over the
// floor band. Where it is loud (the 10th percentile of the recent 50 ms
// levels within voiceLoudBedDb, 30 dB, of their 95th: a noisy, humming,
// crackling or musical bed, another voice; about the last 33 s count, and
// the first second, before voiceStatsMin levels, counts as loud) the
// classifier runs on every frame over the floor band, the loud ones too,
// which may be loud music or another voice.
//
// The classifier is the Silero VAD v5 network (internal/silero): the
// downmix is resampled to 16 kHz (a windowed-sinc polyphase filter, 7.2
// kHz cutoff) and the network gives the probability that each 32 ms chunk
// holds speech, carrying its state from chunk to chunk. It runs only over
// the stretches that need it: at the first classified frame after a
// stretch decided by level it starts afresh voiceWarmChunks (192 ms)
// earlier, and stretches of level-decided frames shorter than
// voiceGapChunks (128 ms) are run through. A classified frame stores
// 1 + round(253 x the probability of the chunk holding its centre).
//
// The network hears the programme at one level, whatever the input's: its
// scores depend on level (the real-speech mixes of plan's TestRealMix 20
// dB quieter: another voice scored 0.03-0.09 where it scored 0.67-0.95,
// and a speech-free classification was set aside; 10 dB louder: a music
// bed scored more speech-like), so its input is scaled to bring the 95th
// percentile of the recent 50 ms levels to voiceNetLevelDb (-21 dBFS, the
// middle of the -13.5 to -28.5 dBFS the mixes span), boosting at most
// voiceNetBoostDb (30 dB) and never lifting the 10th percentile over
// voiceNetBedDb (-40 dBFS: a bed is not brought up into the levels where
// the network took music for speech). The gain follows the levels known
// (updated each second, about the last 33 s counting). The first frames
// wait for voiceHoldFrames (5 s) of levels: a recording that opens on its
// bed alone (music, another voice) would otherwise be heard at the bed's
// level until its speech came (plan's TestLevelMix: picovoice's opening
// crosstalk or music).
//
// Over a quiet bed level also leaves to the network the sounds that stand
// alone: a run of frames over the floor band, between floor frames, of at
// most voiceLoneMax (300 ms), standing clear of the floor (a frame
// voiceLoudBandDb over it) but not as loud as speech (fewer than
// loudRunFrames within bgMaxDb of the recent programme level, which
// NonSpeech would keep as sound whatever the network says): a keystroke,
// a mouse click, a lip smack; or a short word. Its frames keep VoiceLoud
// unless the network's highest probability over the run stays under
// voiceLoneMaxP (0.2): then they get the network's codes, and NonSpeech
// puts them in the background. The first such sound within voiceLoneGap
// (300 ms) after speech (a longer or louder run, or a sound the network
// scores voicedMin or more) stays level's: a speaker's own sound after a
// word (picovoice's final burst, 30 ms after its last word's decay, which
// the network scores 0.07 and the truth counts as speech: 90 ms of it were
// cut over music at 35 dB without that). Measured over the typing mixes
// (plan's TestTypingMix, every speaker), of the sounds standing alone up
// to 1 s: 92 % of those the network scored under 0.2 lasted under 300 ms,
// 63 % of those it scored 0.5 or more (words) lasted longer. Asking about
// every such sound up to 1 s, allison over pink noise 35 dB down (plan's
// BenchmarkAnalyzeMixQuiet) analysed at 1341x realtime instead of 2900x;
// up to 300 ms, at 1487x; leaving out those as loud as speech, at 1723x
// (the network heard 42 swells of the noise bed in 86 s); with the floor's
// clearance, at 2903x. And the network
// hears the first loud frames over a quiet bed, voiceProbeFrames at most,
// until voiceProbeHeard of them are speech: Envelope.VoiceHeard counts
// those, so that NonSpeech can tell speech whose pauses hold such sounds
// (where level decided every other frame, and the classified frames hold
// little speech) from music over silence, where the network hears no
// voice.
//
// On a file whose pauses are quiet, only the onsets and decays of speech
// fall in the band, so the classifier costs little; on a noisy bed it
// runs on most frames. The frames are decided 1.03 s late (the floor looks
// 1 s ahead; the first 5 s later), from a ring of the last 5.4 s or more
// of the downmix.
const (
	// VoiceFloor marks a frame at the background's level (not classified).
	VoiceFloor uint8 = 0
	// VoiceLoud marks a frame well over the background (not classified).
	VoiceLoud uint8 = 255

	voiceFloorBandDb = 4.0
	voiceLoudBandDb  = 18.0
	voiceLoudBedDb   = 30.0
	voiceMinRun      = 20  // band frames in a run before it is classified (over a quiet bed)
	voiceLoneMaxP    = 0.2 // a sound standing alone over a quiet bed is no speech under this (quietLoud)
	voiceLoneGap     = 30  // frames after speech within which the first such sound is level's
	voiceLoneMax     = 30  // frames over the floor band of a sound standing alone at most
	voiceProbeFrames = 300 // loud frames over a quiet bed the network hears at most (VoiceHeard)
	voiceProbeHeard  = 2 * minVoicedFrames
	voiceHistLoDb    = voiceSilenceDb
	voiceHistBins    = int((20-voiceHistLoDb)*2) + 1 // 0.5 dB bins up to +20 dBFS
	voiceSilenceDb   = -90.0
	voiceFloorWin    = 100  // frames each side for the local floor
	voiceHoldFrames  = 500  // levels known before the first frame is decided (the network's gain)
	voiceRingFrames  = 1024 // frame levels kept: voiceFloorWin behind the frame decided to voiceHoldFrames ahead
	voiceSmooth      = 2    // frames each side of the 50 ms level
	voiceDelay       = voiceFloorWin + voiceSmooth + 1
	voiceWarmChunks  = 6     // chunks run before a stretch's first classified frame
	voiceGapChunks   = 4     // chunks of level-decided frames run through
	voiceStatsMin    = 100   // 50 ms levels (weighted) before the loud-bed test or the gain is trusted
	voiceStatsEvery  = 100   // frames between updates of the loud-bed test and the gain
	voiceStatsForget = 0.97  // weight kept by the counts each update: about 33 s of memory
	voiceResampleSec = 0.001 // half-length of the resampling kernel
	voiceResamplePh  = 64    // resampling kernel phases
	voiceCutoffHz    = 7200.0
	voiceNetLevelDb  = -21.0 // the network's input: recent 95th percentile 50 ms level brought here
	voiceNetBoostDb  = 30.0  // at most this much boost
	voiceNetBedDb    = -40.0 // and never the 10th percentile lifted over this
)

// stereoPolarity: the network hears a stereo input as one channel, and
// (L+R)/2 is silent where the two channels are one signal in opposite
// polarity: a microphone cable wired the other way round on one channel,
// or a mono recording made "stereo" with one side inverted. The level
// (the channels' power) is the same, so level decided every frame it
// could, but over a noisy bed the network heard no speech at all: plan's
// TestRealMix mixes at 15 dB written as L and -L had 0-38 % of the
// removable pause time cut instead of 90-99 %, and june over crosstalk
// lost 1.66 s of speech (the other voice, scored as the only voice, kept
// as the speaker's; the speaker's quieter words, unheard, cut). So the
// detector keeps (L-R)/2 beside (L+R)/2 and the network hears the
// difference while it outweighs the sum: the correlation of the channels
// (their offsets taken out), 2 sum L·R / sum (L²+R²) = (M-D)/(M+D) with M
// and D the sums of the squares of the two downmixes, decaying by
// stereoDecay a frame (about 1 s of memory), under -stereoSwitch; and the
// sum again once it is over stereoSwitch. The choice is made before each
// of the network's chunks, from every sample written so far (the frames
// are decided 1 s behind); after a change of wiring it follows within
// about a second (dsp's TestVoiceStereoPolarity). Channels that are not
// one signal (two speakers, one on each side; stereo music) correlate
// between the two bounds or over them and keep the sum, as before. The
// analysis warns (WarnOppositePolarity) when the whole input correlates
// under -stereoWarn: a mono mix of it loses its speech.
const (
	stereoDecay  = 0.99
	stereoSwitch = 0.3
	stereoWarn   = 0.5
)

// The frame rings hold every level a decision reads (a compile-time check).
const _ = uint(voiceRingFrames - (voiceFloorWin + voiceHoldFrames + voiceSmooth + 1))

// VoiceScore returns a classified frame's speech probability in [0, 1],
// or -1 for VoiceFloor and 2 for VoiceLoud.
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

	// Stereo (see stereoPolarity): side holds (L-R)/2 as ring holds
	// (L+R)/2, both less their offsets; pol follows which of the two the
	// network hears, allMid and allDif are the sums of their squares over
	// the whole input.
	side           []float32
	pol            Polarity
	allMid, allDif float64

	pw   [voiceRingFrames]float64 // frame mean squares, by frame index mod voiceRingFrames
	sm   [voiceRingFrames]float64 // 50 ms levels (dB), by frame index mod voiceRingFrames
	dq   [voiceRingFrames]int64   // sliding-minimum deque of frame indexes over sm
	dqH  int                      // deque head (index into dq, mod voiceRingFrames)
	dqN  int                      // deque length
	nf   int64                    // frames pushed
	nsm  int64                    // smoothed levels computed
	done int64                    // frames decided

	// The loud-bed test: the recent 50 ms levels up to voiceFloorWin
	// frames ahead of the frame being decided; the network's gain: all
	// the levels computed.
	bedStats  levelStats
	gainStats levelStats
	fed       int64 // levels given to the deque and bedStats (reach)
	flushing  bool
	loudBed   bool
	statsAge  int
	runStart  int64   // first frame of the current run of band frames, -1: none
	wasFloor  bool    // the frame decided last is VoiceFloor
	loneEnd   int64   // frames before it belong to a sound standing alone (quietLoud)
	loneP     float32 // the network's highest probability over that sound
	loneNear  bool    // it is the first sound within voiceLoneGap after speech
	lastLoud  int64   // the last frame of speech over a quiet bed (quietLoud)
	p95       float64 // the recent 95th percentile of the 50 ms levels (the programme level)
	probed    int     // loud frames the network heard over a quiet bed
	heard     int     // of which it found speech

	// The classifier: the network's stream, the resampler's kernel, and
	// the next chunk (at 16 kHz) to run; probs holds the last chunks'
	// probabilities by chunk index mod len(probs).
	net     *silero.Stream
	kern    []float32 // [voiceResamplePh+1][taps]
	taps    int
	half    int // kernel taps before the centre
	chunk   [silero.Chunk]float32
	nextCh  int64 // next chunk to run; -1: the network is idle
	probs   [8]float32
	classes int     // frames classified
	gain    float32 // the network's input gain (netGain)

	out []uint8

	// The spectrum of the classified frames (bands.go, Envelope.BandFrames
	// and Bands).
	meter      *bandMeter
	bandWin    []float32
	bandFrames []int32
	bands      []uint8

	// The frames' levels after the rumble filter (rumble.go).
	rumble *rumbleMeter
}

func newVoiceDetector(rate, ch int) *voiceDetector {
	half := int(math.Ceil(float64(rate) * voiceResampleSec))
	if rate == silero.Rate {
		half = 1
	}
	warm := float64(voiceWarmChunks+1)*silero.Chunk/silero.Rate + float64(silero.Context)/silero.Rate +
		float64(voiceMinRun)*EnvelopeFrameSec
	need := int64(float64(rate)*(float64(max(voiceDelay, voiceHoldFrames+voiceSmooth)+4)*EnvelopeFrameSec+warm)) + int64(2*half) + 1
	size := int64(1)
	for size < need {
		size <<= 1
	}
	v := &voiceDetector{
		rate: int64(rate), ch: ch,
		ring: make([]float32, size), mask: size - 1,
		nextCh: -1, loudBed: true, runStart: -1, gain: 1, wasFloor: true, lastLoud: noSpeechYet,
	}
	if m, err := silero.Load(); err == nil {
		v.net = m.NewStream()
	}
	if ch == 2 {
		v.side = make([]float32, size)
	}
	v.half, v.taps = half, 2*half
	v.kern = resampleKernel(rate, half)
	v.meter = newBandMeter(rate)
	v.bandWin = make([]float32, v.meter.n)
	v.rumble = newRumbleMeter(rate, ch)
	return v
}

// resampleKernel returns the polyphase kernel that resamples rate to 16
// kHz: for each of voiceResamplePh+1 fractional positions f (in steps of
// 1/voiceResamplePh), the taps at input offsets -half+1 .. half from the
// sample before the position, a Blackman-windowed sinc at the cutoff
// (7.2 kHz, or 0.45 of the lower rate), normalised to unit gain. At 16
// kHz it is the identity.
func resampleKernel(rate, half int) []float32 {
	taps := 2 * half
	k := make([]float32, (voiceResamplePh+1)*taps)
	fc := min(voiceCutoffHz, 0.45*float64(min(rate, silero.Rate))) / float64(rate)
	for ph := 0; ph <= voiceResamplePh; ph++ {
		f := float64(ph) / voiceResamplePh
		row := k[ph*taps : (ph+1)*taps]
		if rate == silero.Rate {
			// Phase 0 only is used: the sample itself.
			row[half-1] = 1
			continue
		}
		sum := 0.0
		for t := range taps {
			x := float64(t-half+1) - f // offset from the position
			u := x / float64(half)
			if math.Abs(u) >= 1 {
				continue
			}
			s := 2 * fc
			if x != 0 {
				s = math.Sin(2*math.Pi*fc*x) / (math.Pi * x)
			}
			w := 0.42 + 0.5*math.Cos(math.Pi*u) + 0.08*math.Cos(2*math.Pi*u)
			row[t] = float32(s * w)
			sum += s * w
		}
		for t := range row {
			row[t] = float32(float64(row[t]) / sum)
		}
	}
	return k
}

// voiceOp is one step of the voice detector, as the Analyzer records it
// for a segment: write its n frames, then, when the segment closes a 10 ms
// frame (ms >= 0), record the frame's mean square ms.
type voiceOp struct {
	n  int32
	ms float64
	dc offsets // the downmixes' DC offsets, taken out of their samples (offset.go)
	// rebase: dc is taken out of the samples written before too (the
	// first offset estimate, see offsetTracker).
	rebase bool
}

// offsets are the DC offsets of the voice detector's downmixes: of the
// channels' mean, and for stereo of (L-R)/2.
type offsets struct{ mean, side float32 }

// replay performs the steps ops over the interleaved frames p, in order.
// The detector sees the same calls in the same order whether the Analyzer
// runs it inline (Write) or on its own goroutine (Analyze).
func (v *voiceDetector) replay(p []float32, ops []voiceOp) {
	off := 0
	for _, op := range ops {
		end := off + int(op.n)*v.ch
		if op.rebase {
			v.rebase(op.dc)
		}
		v.write(p[off:end], op.dc)
		off = end
		if op.ms >= 0 {
			v.frame(op.ms)
		}
	}
}

// write adds interleaved samples to the ring, downmixed, less the
// downmix's offset dc.
func (v *voiceDetector) write(seg []float32, dc offsets) {
	v.rumble.write(seg) // the filter takes the offsets out itself
	ch := v.ch
	pos := v.n
	switch {
	case ch == 1 && dc.mean == 0:
		for len(seg) > 0 {
			i := pos & v.mask
			k := copy(v.ring[i:], seg)
			seg = seg[k:]
			pos += int64(k)
		}
	case ch == 1:
		for _, x := range seg {
			v.ring[pos&v.mask] = x - dc.mean
			pos++
		}
	case ch == 2:
		var mm, dd float32
		for i := 0; i+1 < len(seg); i += 2 {
			l, r := seg[i], seg[i+1]
			m, d := (l+r)*0.5-dc.mean, (l-r)*0.5-dc.side
			j := pos & v.mask
			v.ring[j], v.side[j] = m, d
			mm += m * m
			dd += d * d
			pos++
		}
		v.pol.add(float64(mm), float64(dd))
		v.allMid += float64(mm)
		v.allDif += float64(dd)
	default:
		inv := 1 / float32(ch)
		for i := 0; i+ch <= len(seg); i += ch {
			s := float32(0)
			for _, x := range seg[i : i+ch] {
				s += x
			}
			v.ring[pos&v.mask] = s*inv - dc.mean
			pos++
		}
	}
	v.n = pos
}

// rebase takes dc out of the samples in the rings (and out of the
// stereo sums: they are counted again from the rings, which then hold
// every sample written, none of them decayed yet).
func (v *voiceDetector) rebase(dc offsets) {
	for i := max(v.n-int64(len(v.ring)), 0); i < v.n; i++ {
		v.ring[i&v.mask] -= dc.mean
	}
	if v.side == nil {
		return
	}
	var mm, dd float64
	for i := max(v.n-int64(len(v.ring)), 0); i < v.n; i++ {
		j := i & v.mask
		v.side[j] -= dc.side
		mm += float64(v.ring[j]) * float64(v.ring[j])
		dd += float64(v.side[j]) * float64(v.side[j])
	}
	v.allMid += mm - v.pol.mid
	v.allDif += dd - v.pol.dif
	v.pol.mid, v.pol.dif = mm, dd
}

// frame records the mean square of the frame just closed and decides the
// frames that are now far enough behind.
func (v *voiceDetector) frame(ms float64) {
	v.pol.decay()
	v.pw[v.nf%voiceRingFrames] = ms
	v.nf++
	// The 50 ms level of frame nf-1-voiceSmooth is now complete.
	for v.nsm+voiceSmooth < v.nf {
		v.smooth(v.nsm, v.nf)
	}
	for v.done+voiceFloorWin < v.nsm && v.nsm >= voiceHoldFrames {
		v.decide(v.done)
	}
}

// flush decides the remaining frames at the end of the input.
func (v *voiceDetector) flush() {
	v.rumble.flush()
	for v.nsm < v.nf {
		v.smooth(v.nsm, v.nf)
	}
	v.flushing = true
	for v.done < v.nf {
		v.decide(v.done)
	}
}

// smooth computes the 50 ms level of frame i (frames [i-2, i+2] within
// [0, nf)) and pushes it on the sliding-minimum deque.
func (v *voiceDetector) smooth(i, nf int64) {
	s, c := 0.0, 0
	for j := max(i-voiceSmooth, 0); j <= min(i+voiceSmooth, nf-1); j++ {
		s += v.pw[j%voiceRingFrames]
		c++
	}
	l := FloorDb
	if m := s / float64(c); m > 1e-12 {
		l = max(10*math.Log10(m), FloorDb)
	}
	v.sm[i%voiceRingFrames] = l
	v.nsm = i + 1
	v.gainStats.add(l)
}

// reach makes the levels up to frame i+voiceFloorWin (all of them once
// flushing) known to the decisions: pushed on the sliding-minimum deque
// and counted in bedStats.
func (v *voiceDetector) reach(i int64) {
	for ; v.fed < v.nsm && (v.flushing || v.fed <= i+voiceFloorWin); v.fed++ {
		l := v.sm[v.fed%voiceRingFrames]
		for v.dqN > 0 && v.sm[v.dq[(v.dqH+v.dqN-1)%voiceRingFrames]%voiceRingFrames] >= l {
			v.dqN--
		}
		v.dq[(v.dqH+v.dqN)%voiceRingFrames] = v.fed
		v.dqN++
		v.bedStats.add(l)
	}
}

// levelStats is a histogram of recent 50 ms levels in 0.5 dB bins from
// voiceHistLoDb (digital silence, not counted) up, forgetting the past by
// voiceStatsForget every voiceStatsEvery levels: about the last 33 s count.
type levelStats struct {
	hist  [voiceHistBins]float32
	n     float32 // weighted count of the levels in hist
	added int64
}

// add counts the level l (dBFS).
func (s *levelStats) add(l float64) {
	if l >= voiceHistLoDb {
		s.hist[min(int((l-voiceHistLoDb)*2), voiceHistBins-1)]++
		s.n++
	}
	if s.added++; s.added%voiceStatsEvery == 0 {
		for b := range s.hist {
			s.hist[b] *= voiceStatsForget
		}
		s.n *= voiceStatsForget
	}
}

// percentiles returns the 10th and 95th percentile of the levels (the
// floors of their bins, dBFS); ok is false with fewer than voiceStatsMin.
func (s *levelStats) percentiles() (p10, p95 float64, ok bool) {
	if s.n < voiceStatsMin {
		return 0, 0, false
	}
	b10, b95 := -1, -1
	var acc float32
	for b, c := range s.hist {
		acc += c
		if b10 < 0 && 10*acc >= s.n {
			b10 = b
		}
		if 100*acc >= 95*s.n {
			b95 = b
			break
		}
	}
	return voiceHistLoDb + float64(b10)/2, voiceHistLoDb + float64(b95)/2, true
}

// updateStats works out from the recent levels whether the bed is loud:
// the 10th percentile of the 50 ms levels within voiceLoudBedDb of the
// 95th (the floor and the programme level, as EstimateLevels takes them);
// and the network's input gain from the same two over the levels known
// (netGain).
func (v *voiceDetector) updateStats() {
	if p10, p95, ok := v.gainStats.percentiles(); ok {
		v.gain = float32(math.Pow(10, netGain(p10, p95)/20))
	}
	p10, p95, ok := v.bedStats.percentiles()
	v.loudBed = !ok || p95-p10 < voiceLoudBedDb
	v.p95 = p95
}

// netGain returns the gain (dB) that brings a programme whose recent 50 ms
// levels have the 10th percentile p10 and the 95th p95 (dBFS) to the
// network's level: p95 to voiceNetLevelDb, a boost of at most
// voiceNetBoostDb that leaves p10 at voiceNetBedDb or under (none where p10
// is over it already).
func netGain(p10, p95 float64) float64 {
	g := voiceNetLevelDb - p95
	if g > 0 {
		g = max(min(g, voiceNetBoostDb, voiceNetBedDb-p10), 0)
	}
	return g
}

// decide classifies frame i: its local floor is the minimum 50 ms level
// over [i-voiceFloorWin, i+voiceFloorWin] (as far as known).
func (v *voiceDetector) decide(i int64) {
	v.reach(i)
	for v.dqN > 0 && v.dq[v.dqH] < i-voiceFloorWin {
		v.dqH = (v.dqH + 1) % voiceRingFrames
		v.dqN--
	}
	if v.statsAge--; v.statsAge <= 0 {
		v.updateStats()
		v.statsAge = voiceStatsEvery
	}
	floor := v.sm[v.dq[v.dqH]%voiceRingFrames]
	l := v.sm[i%voiceRingFrames]
	var out uint8
	switch {
	case l < voiceSilenceDb || l < floor+voiceFloorBandDb:
		out = VoiceFloor
		v.runStart = -1
	case v.net == nil:
		out = VoiceLoud
	case l > floor+voiceLoudBandDb:
		out = VoiceLoud
		v.runStart = -1
		if v.loudBed {
			out = v.classify(i)
		}
	default:
		// In the band: classified over a loud bed, or once the run of
		// band frames lasts voiceMinRun (the frames before it in the run
		// too); a shorter run (a word's onset or decay over a quiet bed)
		// is left to level.
		if v.runStart < 0 {
			v.runStart = i
		}
		switch {
		case v.loudBed || i-v.runStart > voiceMinRun:
			out = v.classify(i)
		case i-v.runStart == voiceMinRun:
			for j := v.runStart; j < i; j++ {
				v.out[j] = v.classify(j)
			}
			out = v.classify(i)
		default:
			out = VoiceLoud
		}
	}
	if out == VoiceLoud && !v.loudBed && v.net != nil {
		out = v.quietLoud(i, floor)
	}
	v.wasFloor = out == VoiceFloor
	v.out = append(v.out, out)
	v.done = i + 1
}

// bandSlot returns frame i's BandCount codes in v.bands, adding the frame
// to v.bandFrames where it is not there yet (frames are mostly measured
// in order; one classified again, see decide, keeps its place).
func (v *voiceDetector) bandSlot(i int64) []uint8 {
	f := int32(i)
	k := len(v.bandFrames)
	if k > 0 && v.bandFrames[k-1] >= f {
		var found bool
		k, found = slices.BinarySearch(v.bandFrames, f)
		if !found {
			v.bandFrames = slices.Insert(v.bandFrames, k, f)
			v.bands = slices.Insert(v.bands, k*BandCount, make([]uint8, BandCount)...)
		}
	} else {
		v.bandFrames = append(v.bandFrames, f)
		v.bands = append(v.bands, make([]uint8, BandCount)...)
	}
	return v.bands[k*BandCount : (k+1)*BandCount]
}

// measureBands measures the spectrum of frame i (bands.go) from the ring
// the network hears.
func (v *voiceDetector) measureBands(i int64) {
	ring := v.ring
	if v.pol.inverted {
		ring = v.side
	}
	b0, b1 := (i*v.rate+50)/100, ((i+1)*v.rate+50)/100
	start := (b0+b1)/2 - int64(len(v.bandWin)/2)
	oldest := v.n - int64(len(ring))
	for t := range v.bandWin {
		x := float32(0)
		if p := start + int64(t); p >= 0 && p >= oldest && p < v.n {
			x = ring[p&v.mask]
		}
		v.bandWin[t] = x
	}
	v.meter.measure(v.bandWin, v.bandSlot(i))
}

// quietLoud decides frame i, which level finds loud over a quiet bed
// (floor its local floor): the frames of a sound standing alone get the
// network's codes where it finds the sound no speech (loneSound), but for
// the first sound within voiceLoneGap after speech; any other frame stays
// VoiceLoud (speech, as level has it), the network hearing it while the
// probe lasts (VoiceHeard).
func (v *voiceDetector) quietLoud(i int64, floor float64) uint8 {
	if v.wasFloor && i >= v.loneEnd {
		v.loneEnd, v.loneP = v.loneSound(i, floor)
		// Only the first sound after the speech (a swell of the bed is none).
		v.loneNear = v.loneEnd >= 0 && v.loneP >= 0 && i-v.lastLoud <= voiceLoneGap
		if v.loneNear {
			v.lastLoud = noSpeechYet
		}
	}
	if i < v.loneEnd {
		if v.loneP >= 0 && v.loneP < voiceLoneMaxP && !v.loneNear {
			return v.classify(i)
		}
		if v.loneP >= voicedMin {
			v.lastLoud = i
		}
		return VoiceLoud
	}
	v.lastLoud = i
	if v.probed < voiceProbeFrames && v.heard < voiceProbeHeard {
		v.probed++
		if float64(v.speech(i)) >= voicedMin {
			v.heard++
		}
	}
	return VoiceLoud
}

// noSpeechYet is lastLoud before any speech (or once the first sound
// after it has been had): far enough back for no sound to be near it.
const noSpeechYet = -1 << 40

// loneSound reads the run of frames over the floor band that starts at
// frame i: it returns -1 where the run lasts more than voiceLoneMax frames
// or holds loudRunFrames within bgMaxDb of the programme level (speech, as
// level has it); else the run's end, with -1 where no frame stands
// voiceLoudBandDb clear of the floor (a swell of the bed: no sound to
// ask about), or the network's highest probability over the run, as far
// as the first of voicedMin or more (speech: the network stops there).
func (v *voiceDetector) loneSound(i int64, floor float64) (int64, float32) {
	loud, clear := 0, false
	for j := i; j < v.nsm && j-i <= voiceLoneMax; j++ {
		// (frame i is over the band: quietLoud decides only such frames)
		if l := v.sm[j%voiceRingFrames]; j == i || l >= voiceSilenceDb && l >= floor+voiceFloorBandDb {
			if l >= v.p95-bgMaxDb {
				loud++
			}
			clear = clear || l > floor+voiceLoudBandDb
			continue
		}
		if loud >= loudRunFrames {
			return -1, 0
		}
		if !clear {
			return j, -1
		}
		p := float32(0)
		for k := i; k < j && float64(p) < voicedMin; k++ {
			p = max(p, v.speech(k))
		}
		return j, p
	}
	return -1, 0
}

// classify returns frame i's code from the network's probability.
func (v *voiceDetector) classify(i int64) uint8 {
	v.classes++
	v.measureBands(i)
	return 1 + uint8(math.Round(253*float64(v.speech(i))))
}

// speech returns the network's probability for the chunk holding the
// centre of frame i, running the network up to it.
func (v *voiceDetector) speech(i int64) float32 {
	c := (i*silero.Rate/100 + silero.Rate/200) / silero.Chunk
	if v.nextCh < 0 || c-v.nextCh > voiceGapChunks || c < v.nextCh-int64(len(v.probs)) {
		// Start afresh a little before, as far as the ring reaches.
		start := max(c-voiceWarmChunks, 0)
		for start < c && v.inputAt(start*silero.Chunk-silero.Context)-int64(v.half) < v.n-int64(len(v.ring)) {
			start++
		}
		v.net.Reset()
		v.nextCh = start
	}
	for ; v.nextCh <= c; v.nextCh++ {
		if v.side != nil {
			v.pol.decide()
		}
		base := v.nextCh * silero.Chunk
		for j := range v.chunk {
			v.chunk[j] = v.gain * v.resampled(base+int64(j))
		}
		v.probs[v.nextCh%int64(len(v.probs))] = v.net.Process(v.chunk[:])
	}
	return v.probs[c%int64(len(v.probs))]
}

// inputAt returns the input sample before the 16 kHz sample j.
func (v *voiceDetector) inputAt(j int64) int64 {
	return j * v.rate / silero.Rate
}

// resampled returns the 16 kHz sample j of the downmix (0 outside the
// input and the ring).
func (v *voiceDetector) resampled(j int64) float32 {
	num := j * v.rate
	n0 := num / silero.Rate
	ph := ((num-n0*silero.Rate)*voiceResamplePh + silero.Rate/2) / silero.Rate
	row := v.kern[int(ph)*v.taps : int(ph+1)*v.taps]
	lo := n0 - int64(v.half) + 1
	ring := v.ring
	if v.pol.inverted {
		ring = v.side
	}
	oldest := v.n - int64(len(ring))
	var acc float32
	if lo >= 0 && lo >= oldest && lo+int64(v.taps) <= v.n {
		i := int(lo & v.mask)
		if i+len(row) <= len(ring) { // no wrap: one slice, no masking
			x := ring[i : i+len(row)]
			for t, w := range row {
				acc += w * x[t]
			}
			return acc
		}
		for t, w := range row {
			acc += w * ring[(lo+int64(t))&v.mask]
		}
		return acc
	}
	for t, w := range row {
		if p := lo + int64(t); p >= 0 && p >= oldest && p < v.n {
			acc += w * ring[p&v.mask]
		}
	}
	return acc
}

// Polarity follows whether the two channels of a stereo input are one
// signal in opposite polarity, so that a mono mix of it is their
// difference, not their silent sum (see stereoPolarity): from when the
// channels correlate under -0.3 over about the last second until they
// correlate over 0.3. The voice detector follows it, and transcription
// makes its mono input with it. The zero value starts on the sum.
type Polarity struct {
	mid, dif float64 // the decaying sums of the squares of (L+R)/2 and (L-R)/2
	inverted bool
}

// Frame takes the next 10 ms of interleaved stereo samples and reports
// whether the difference of the channels carries their signal (it is
// decided with these samples).
func (p *Polarity) Frame(stereo []float32) bool {
	var mm, dd float64
	for i := 0; i+1 < len(stereo); i += 2 {
		m, d := float64(stereo[i]+stereo[i+1]), float64(stereo[i]-stereo[i+1])
		mm += m * m
		dd += d * d
	}
	p.decay()
	p.add(mm/4, dd/4)
	return p.decide()
}

// add counts samples whose sum and difference downmixes have the sums of
// squares mm and dd.
func (p *Polarity) add(mm, dd float64) { p.mid += mm; p.dif += dd }

// decay forgets a 10 ms frame's share of the sums.
func (p *Polarity) decay() { p.mid *= stereoDecay; p.dif *= stereoDecay }

// decide updates and returns the decision from the sums.
func (p *Polarity) decide() bool {
	if t := p.mid + p.dif; t > 0 {
		switch r := (p.mid - p.dif) / t; {
		case !p.inverted && r < -stereoSwitch:
			p.inverted = true
		case p.inverted && r > stereoSwitch:
			p.inverted = false
		}
	}
	return p.inverted
}

// invertedInput reports whether the input's two channels are in
// opposite polarity over the whole input: the correlation of the
// channels, 2 sum L·R / sum (L²+R²), is under -stereoWarn.
func (v *voiceDetector) invertedInput() bool {
	t := v.allMid + v.allDif
	return v.side != nil && t > 0 && (v.allMid-v.allDif)/t < -stereoWarn
}

// Speech seeds and the background mask (NonSpeech).
//
// A frame seeds speech when it is VoiceLoud, or classified as speech (a
// probability of voicedMin, 0.5, or more), or classified but standing voiceLoudBandDb over the
// local floor within bgMaxDb of the speech level (level first: as loud as
// speech); and, with a faint-voice depth given, its 50 ms level is
// within that depth less faintSeedDb (3 dB) of the speech level (a
// fainter voice is another speaker's crosstalk). Seeds in runs shorter
// than seedMinFrames (50 ms) with fewer than loudMinFrames (2) VoiceLoud
// frames are dropped: crackles and clicks. Speech is every seed run
// widened while the level stays growMarginDb (8 dB) over the local floor
// (the lowest 50 ms level within 1 s: for a steady bed about its level
// less 3 dB, so the bed + 5 dB, what stands out of it): up to growAfter
// frames (200 ms) after it, for word endings, and growBefore (150 ms)
// before it, for unvoiced onsets; over a fainter voice's frames only
// while the level keeps falling (never more than decayRiseDb, 1.5 dB,
// over the last frame grown over), and, past growSlack frames (30 ms,
// the network's chunk), never over a frame the network finds clearly not
// speech (a probability under growStopP, 0.2: music or noise just before
// or after a word). With a faint-voice depth, a stretch of
// speech whose loudest 50 ms stays more than the depth less faintPeakDb
// (5 dB) under the speech level is the fainter voice too; here and in the
// seeds' comparison, the speech level is the main speaker's where the
// frame lies (speakerLevel, trackSpeechLevel). But a quiet word
// inside the speaker's phrase is not (fainterStretches): a run standing
// growMarginDb over the floor and within the depth + 6 dB of the speech
// level, 100 ms to 1 s long, holding frames of the fainter voice, peaking
// within the depth of the speech level, with a 50 ms level within the depth
// less faintPeakDb of it within 300 ms on both sides. Over a radio
// channel's 300-3400 Hz band (the radio cases of plan's TestRadioMix), a
// word of librivox's reading 4-8 dB under its active level peaked 10.7 dB
// under the speech level, and cuts took 190-300 ms of speech at 15 and 20
// dB; with both voices of the crosstalk mixes through that band (a
// telephone meeting), the same word was lost at 15-25 dB (60-345 ms) until
// its run stopped at the depth + 6 dB: the other voice, filling the gap
// before it, had joined it to the louder word there (3-9 dB give the same).
// Another voice 15 dB down rarely falls that close between two words:
// measured on the real-speech mixes, without the depth bound the rule kept
// another voice's words between the speaker's (june next to crosstalk at 20
// and 25 dB lost a 0.7 s pause each), with it no removal changes and 3
// edges move by 10-20 ms. Every other frame whose level is more than
// bgMaxDb (10 dB) under the speech level is background: level decides the
// louder ones (a steady tone or loud music is sound, not a bed, however
// unvoiced).
//
// Why the faint-voice limits sit 3 and 5 dB inside the depth: the speech
// level (the 95th percentile of the 10 ms levels) lies 4-6 dB over the
// active speech level (the real-speech mixes: -15.8 and -14.2 dBFS for
// speech at -20), and a voice's 50 ms levels scatter about 6 dB over its
// own active level in its loud syllables. So a second voice 15 dB under
// the main one (active levels, the crosstalk mixes at 15 dB) has stretches
// whose loudest 50 ms reaches 10.5-14.6 dB under the speech level
// (measured): with the limits at the depth itself, half of its pause time
// stayed (45 % of the removable pause cut at 15 dB), with them 94 %. The
// main speaker's stretches all peak within 11.2 dB of the speech level
// but one: the weak last word and final burst of the picovoice recording
// (14-15 dB under, 0.1-0.5 s after the rest), which level cannot tell
// from crosstalk (see plan's realmix test).
const (
	voicedMin     = 0.5
	seedMinFrames = 5
	loudMinFrames = 2
	growAfter     = 20
	growBefore    = 15
	growMarginDb  = 8
	growDipFrames = 2
	faintPeakDb   = 5
	faintSeedDb   = 3
	growSlack     = 3
	growStopP     = 0.2
	decayRiseDb   = 1.5
	bgMaxDb       = 10
	loudRunFrames = 8
	// minVoicedFrames: the classification applies only to input with at
	// least this many frames classified as speech (0.2 s of voice) where
	// level could not decide.
	minVoicedFrames = 20
	// Syllabic rhythm (SyllabicDepth): under minSyllabicDb the input has
	// no speech rhythm and level alone decides (NonSpeech returns nil).
	syllableFast  = 5
	syllableSlow  = 25
	minSyllabicDb = 2.0
)

// A quiet word of the speaker (fainterStretches): a run of flankMinFrames
// (100 ms) to flankMaxFrames (1 s), standing no more than flankJoinDb
// under the faint-voice depth under the speech level, with a louder level
// within flankGapFrames (300 ms) on both sides.
const (
	flankMinFrames = 10
	flankMaxFrames = 100
	flankGapFrames = 30
	flankJoinDb    = 6
)

// The speaker's level (speakerLevel, trackSpeechLevel). The faint-voice
// rule measures a stretch against the main speaker's level where it lies,
// not against the whole input's speech level (the 95th percentile of all
// the 10 ms levels), for two reasons found on real-speech mixes:
//
//   - Share. The 95th percentile describes the speaker only when they talk
//     most of the time. On a close-mic track where the other speaker's
//     turns fill much of it, it falls towards the speaker's active level,
//     and another voice 15 dB down reads as 10 dB down: with a 20 s turn
//     of the other voice (plan's TestTurnMix) it fell 0.3-5 dB, and
//     crosstalk at 15 dB had 87.1 % of the removable pause cut (84.4 % with
//     the tracker below; picovoice 50 %, librivox 73 %: 7 s of speech
//     each). speakerLevel starts from
//     the loud voice's own frames instead: the speakerPct (95th)
//     percentile of the levels within speakerBandDb (15 dB) of their
//     speakerTopPct (99th) percentile, less speakerOffsetDb (1.1 dB, the
//     median difference from the 95th percentile of all the levels over
//     the 168 mixes, so that the rule's limits keep their measured
//     meaning; over them the two lie within -0.3 to +1 dB of each other).
//     With the turn, crosstalk at 15 dB has 96.6 % cut, no mix changes.
//   - Drift. A speaker who leans back or turns away talks some dB softer
//     for minutes, and against one level for the whole input the quieter
//     part's words read as another voice: on the drift cases (plan's
//     TestDriftMix: the speaker falling 10 dB a minute), 14 of 48 cases
//     lost 80 ms to 2 s of words. trackSpeechLevel follows the speaker:
//     a running quantile of the speaker's own frames (those within
//     trackNearDb, 7 dB, of the tracked level), moved by trackStepDb (0.03
//     dB) per such frame, from the starting level forwards and backwards,
//     the lower of the two, never over it nor more than trackMaxDb (10 dB)
//     under it. It follows slowly (4.5-7 dB of the long recordings' 12 dB
//     fall by their end), which is enough: the lost words stood within a
//     few dB of the rule's limit; 2 drift cases clip now (50 and 80 ms, the
//     second with the rule off too). And it resists the other voice, which
//     hardly reaches within 7 dB of the tracked level, so a long turn of it
//     barely moves the level, where a window's percentile (the 95th over
//     10-20 s, tried first) falls to it (with the turn: 60-82 % cut).
//
// Sweeps, one at a time: a step of 0.02 dB leaves 5 drift cases
// clipping, 0.025 dB 3 (0.035 dB as 0.03); a near band of 6 dB 3 (8 dB as
// 7); the tracker alone (from the 95th percentile of all the levels, 6 dB,
// 0.02 dB) left 2 drift cases clipping but the turn cases at 84.4 %.
// Starting from the 90th percentile within 12 dB of the 99th (offset 0.3
// dB) put 2 more mixes over 40 ms of boundary P95 and left 3 drift cases
// clipping.
const (
	speakerBinDb    = 0.05
	speakerTopPct   = 0.99
	speakerBandDb   = 15
	speakerPct      = 0.95
	speakerOffsetDb = 1.1
	trackNearDb     = 7
	trackStepDb     = 0.03
	trackMaxDb      = 10
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
// returns nil when env is nil or has no voice classification, when the input has
// no syllabic rhythm (SyllabicDepth under 2 dB: orchestral music, steady
// noise, tones), when it holds under 0.2 s of frames classified as speech (no voice
// where level could not decide: a noise bed alone) and the network heard
// no more among the loud frames of a quiet bed either (VoiceHeard), or
// when it holds no background stretch of 0.5 s, where level alone
// decides. Where only VoiceHeard brings the speech to 0.2 s (speech over a
// quiet bed, whose pauses hold sounds standing alone: quietLoud), the
// faint-voice rule does not apply: it is for a voice the network heard
// where level could not decide, and over the real-speech mixes it took
// two of the speakers' own sounds after a word where it applied on
// VoiceHeard alone (picovoice's final burst over music at 20 dB, 60 ms;
// allison's over pink noise at 35 dB with the speaker leaning away, 40
// ms).
//
// keepVoiced, when over 0, spares a voice the faint-voice rule: a stretch
// holding keepVoiced or more consecutive frames the network heard as
// speech stays speech however far under the speaker it lies (a quieter
// speaker, the far side of a call); the rule then takes only what the
// network does not hear as a voice for that long (keystrokes, crackles,
// a bed's notes). 0: it takes any faint voice (another speaker's bleed).
func NonSpeech(env *Envelope, lv []float32, speechDb, faintDb float64, keepVoiced int) []bool {
	if env == nil {
		return nil
	}
	n := len(env.Voice)
	if n == 0 || n != len(lv) || SyllabicDepth(lv) < minSyllabicDb {
		return nil
	}
	if voiced := VoicedFrames(env); voiced < minVoicedFrames {
		if voiced+env.VoiceHeard < minVoicedFrames {
			return nil
		}
		faintDb = 0
	}
	bg := nonSpeech(env, lv, speechDb, faintDb, keepVoiced)
	if !hasRun(bg, minPauseFrames) {
		return nil
	}
	return bg
}

// HeardNoSpeech reports whether the voice network, which judged the
// frames as loud as the programme (within bgMaxDb of speechDb), heard
// next to no speech in them: music or noise, in which no quiet stretch is
// a pause between words (plan.Make cuts only silence there). It needs
// noSpeechMinFrames (3 s) of such frames judged by the network, most
// (noSpeechJudged) of those over the local floor rather than decided loud
// by level (as over a loud bed, where the network hears every frame),
// speech in under noSpeechShare of them, and none heard over a quiet bed
// (VoiceHeard). Measured: the network heard speech in 0 of 456, 3 of 2757
// and 93 of 3907 of the loud frames of the three music recordings in
// testdata; of the 168 real-speech mixes of plan's TestRealMix, those
// where it judged 50 or more heard speech in 79 % of them or more.
//
// Left: music inside a programme of speech (an opening or closing
// theme). Tried: no cut where the network heard speech in under 20 % of
// the loud frames within 3 s either side of it. Over 9 programmes (3
// speakers over pink noise between 15 s and 10 s of each music
// recording) the cuts in the music fell from 12.2 s to 3.3 s (a window
// reaching into the speech; a closing after speech over a quiet bed,
// whose loud frames level decides), but around pauses of reverberant
// speech (plan's TestRoomMix) the network heard speech in as few as 21 %
// of them: too close to tell, so it was left out. Tried again with a
// bound of 10 %, 150 judged frames at least and 90 % of the loud frames
// judged (this function's conditions over the window): over 24
// programmes (those 9 and the same music around jfk, allison and june
// over pink noise at 35 dB and vinyl at 15 dB, librispeech over hum and
// crosstalk at 20 dB) the cuts in the music fell from 41.3 s to 20.0 s,
// but the network, hearing jfk's speech right after the music, heard
// speech in 5-10 % of the loud frames around its first pauses (in 29-75 %
// in the mixes alone): 4 of those programmes lost 20-30 points of their
// removal (a pause right after the opening not cut). The network's share
// alone cannot tell a pause next to music from one in speech it hears
// poorly.
func HeardNoSpeech(env *Envelope, speechDb float64) bool {
	if env == nil || env.VoiceHeard > 0 {
		return false
	}
	judged, speech, ok := heardLoud(env, speechDb)
	return ok && float64(speech) < noSpeechShare*float64(judged)
}

// heardLoud returns how many of env's frames as loud as the programme the
// network judged and how many of those it heard as speech, and whether
// they are enough to tell (HeardNoSpeech).
func heardLoud(env *Envelope, speechDb float64) (judged, speech int, ok bool) {
	if len(env.Voice) != len(env.RMSDb) {
		return 0, 0, false
	}
	unheard := 0
	for f, v := range env.Voice {
		if float64(env.RMSDb[f]) < speechDb-bgMaxDb || v == VoiceFloor {
			continue
		}
		if v == VoiceLoud {
			unheard++
			continue
		}
		judged++
		if VoiceScore(v) >= voicedMin {
			speech++
		}
	}
	return judged, speech, judged >= noSpeechMinFrames && float64(judged) >= noSpeechJudged*float64(judged+unheard)
}

// HeardNoSpeech's bounds.
const (
	noSpeechMinFrames = 300
	noSpeechJudged    = 0.9
	noSpeechShare     = 0.1
)

// VoicedFrames returns how many of env's frames the classification found
// speech (VoiceScore at least voicedMin); 0 for a nil env.
func VoicedFrames(env *Envelope) int {
	if env == nil {
		return 0
	}
	c := 0
	for _, v := range env.Voice {
		if v != VoiceFloor && v != VoiceLoud && VoiceScore(v) >= voicedMin {
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

// nonSpeech is NonSpeech without the checks of the whole input.
func nonSpeech(env *Envelope, lv []float32, speechDb, faintDb float64, keepVoiced int) []bool {
	n := len(env.Voice)
	floor := localFloor(lv)
	seed := make([]bool, n)
	classified := func(v uint8) bool { return v != VoiceFloor && v != VoiceLoud }
	for i, v := range env.Voice {
		switch {
		case v == VoiceLoud:
			seed[i] = true
		case classified(v):
			seed[i] = VoiceScore(v) >= voicedMin
			// Level first: a classified frame as loud as speech is speech.
			if float64(lv[i]) > float64(floor[i])+voiceLoudBandDb && float64(lv[i]) >= speechDb-bgMaxDb {
				seed[i] = true
			}
		}
	}
	// other marks the frames of a fainter voice: they would seed but for
	// the faint-voice rule. Speech does not grow over them.
	var other []bool
	var ref []float32 // the speaker's level where the faint-voice rule applies
	var voiced []bool // frames of a voice the rule spares (keepVoiced)
	if faintDb > 0 {
		other = make([]bool, n)
		ref = trackSpeechLevel(env.RMSDb, speakerLevel(env.RMSDb))
		voiced = voicedStretches(voicedRuns(env.Voice, keepVoiced), lv, floor)
		for i := range seed {
			if seed[i] && !voiced[i] && float64(lv[i]) < float64(ref[i])-faintDb+faintSeedDb {
				seed[i], other[i] = false, true
			}
		}
	}
	// Over a fainter voice's frames speech grows only while the level
	// keeps falling away from the seed run (at most decayRiseDb over the
	// last frame it grew over, not just the frame before: a dip and a
	// slow rise is another voice starting, not the speaker's own decay or
	// soft onset). d is the frame's distance from the seed run.
	grows := func(k, prev, d int) bool {
		if float64(lv[k]) < float64(floor[k])+growMarginDb {
			return false
		}
		if v := env.Voice[k]; d > growSlack && classified(v) && VoiceScore(v) < growStopP {
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
				if grows(k, last, k-j+1) {
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
				if grows(k, first, i-k) {
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
		fainterStretches(speech, other, voiced, lv, floor, ref, faintDb)
	}
	// Level first: a run of at least loudRunFrames (80 ms) within
	// bgMaxDb of the speech level is sound, whatever the classifier says (a
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
	return speech
}

// fainterStretches moves the stretches of speech whose loudest 50 ms (lv)
// stays more than faintDb less faintPeakDb under the speaker's level (ref,
// per frame: trackSpeechLevel) to other, the fainter voice. Then a quiet
// word inside the speaker's phrase comes back: a run of flankMinFrames to
// flankMaxFrames standing growMarginDb over the local floor (floor) and
// no more than faintDb + flankJoinDb under ref (so that a bed or another
// voice far under the speech does not join it to the words around it),
// holding a frame of the fainter voice, whose loudest 50 ms lies under
// that limit but within faintDb of ref, with a 50 ms level at the limit or
// over within flankGapFrames on each side. The word's extent and flanks
// are level's, so that it does not hang on the voice scores around it
// (which an analysis in two halves may give a little differently).
//
// A stretch holding a frame of voiced (voicedRuns) stays.
func fainterStretches(speech, other, voiced []bool, lv, floor, ref []float32, faintDb float64) {
	n := len(speech)
	limit := func(k int) float64 { return float64(ref[k]) - (faintDb - faintPeakDb) }
	deepest := func(k int) float64 { return float64(ref[k]) - faintDb }
	for i := 0; i < n; {
		if !speech[i] {
			i++
			continue
		}
		j, pk, spared := i, i, false
		for ; j < n && speech[j]; j++ {
			if lv[j] > lv[pk] {
				pk = j
			}
			spared = spared || voiced[j]
		}
		if !spared && float64(lv[pk]) < limit(pk) {
			for k := i; k < j; k++ {
				speech[k], other[k] = false, true
			}
		}
		i = j
	}
	stands := func(k int) bool {
		return float64(lv[k]) >= max(float64(floor[k])+growMarginDb, deepest(k)-flankJoinDb)
	}
	reaches := func(a, b int) bool {
		for k := max(a, 0); k < min(b, n); k++ {
			if float64(lv[k]) >= limit(k) {
				return true
			}
		}
		return false
	}
	for i := 0; i < n; {
		if !stands(i) {
			i++
			continue
		}
		j, pk, faint := i, i, false
		for ; j < n && stands(j); j++ {
			if lv[j] > lv[pk] {
				pk = j
			}
			faint = faint || other[j]
		}
		if l := j - i; faint && float64(lv[pk]) < limit(pk) && float64(lv[pk]) >= deepest(pk) &&
			l >= flankMinFrames && l <= flankMaxFrames && reaches(i-flankGapFrames, i) && reaches(j, j+flankGapFrames) {
			for k := i; k < j; k++ {
				speech[k], other[k] = true, false
			}
		}
		i = j
	}
}

// voicedRuns marks the frames of runs of k or more consecutive frames of
// voice: frames the network heard as speech (VoiceScore voicedMin or more)
// or that level found loud over their floor (VoiceLoud, where the network
// was not asked); none when k is 0. A word holds such a run; a keystroke
// or a crackle is shorter.
func voicedRuns(voice []uint8, k int) []bool {
	out := make([]bool, len(voice))
	if k <= 0 {
		return out
	}
	for i := 0; i < len(voice); {
		j := i
		for j < len(voice) && voice[j] != VoiceFloor && (voice[j] == VoiceLoud || VoiceScore(voice[j]) >= voicedMin) {
			j++
		}
		if j-i >= k {
			for f := i; f < j; f++ {
				out[f] = true
			}
		}
		i = max(j, i+1)
	}
	return out
}

// voicedStretches widens each run of voiced to the stretch around it that
// stands growMarginDb over the local floor (lv, floor): the whole of the
// words a voiced run lies in.
func voicedStretches(voiced []bool, lv, floor []float32) []bool {
	n := len(voiced)
	over := func(k int) bool { return float64(lv[k]) >= float64(floor[k])+growMarginDb }
	out := slices.Clone(voiced)
	for i := 0; i < n; i++ {
		if !voiced[i] || (i > 0 && voiced[i-1]) {
			continue
		}
		for k := i - 1; k >= 0 && over(k) && !out[k]; k-- {
			out[k] = true
		}
		j := i
		for j < n && voiced[j] {
			j++
		}
		for k := j; k < n && over(k) && !out[k]; k++ {
			out[k] = true
		}
	}
	return out
}

// trackSpeechLevel follows the speaker's level through the input, for the
// faint-voice rule (see "The speaker's level" above): per 10 ms frame of
// rmsDb, a running quantile of the frames within trackNearDb of it, moved
// by trackStepDb per such frame, from global (the level it starts from,
// speakerLevel's) forwards and backwards; the lower of the two, never over
// global nor more than trackMaxDb under it.
func trackSpeechLevel(rmsDb []float32, global float64) []float32 {
	n := len(rmsDb)
	out := make([]float32, n)
	// tau: the share of the frames within trackNearDb of global that lie
	// under it, which the tracker keeps under its level.
	near, above := 0, 0
	for _, v := range rmsDb {
		if d := float64(v); d > digitalSilenceDb && d >= global-trackNearDb {
			near++
			if d >= global {
				above++
			}
		}
	}
	for i := range out {
		out[i] = float32(global)
	}
	if near == 0 {
		return out
	}
	tau := 1 - float64(above)/float64(near)
	t := tracker{lo: global - trackMaxDb, hi: global, down: trackStepDb * (1 - tau), up: trackStepDb * tau}
	t.start()
	for i, v := range rmsDb {
		t.step(float64(v))
		out[i] = float32(t.q)
	}
	t.start()
	for i := n - 1; i >= 0; i-- {
		t.step(float64(rmsDb[i]))
		out[i] = min(out[i], float32(t.q))
	}
	return out
}

// speakerLevel returns the main speaker's level the faint-voice rule
// starts from (see "The speaker's level" above): the speakerPct
// percentile of the 10 ms levels (rmsDb) within speakerBandDb of their
// speakerTopPct percentile, less speakerOffsetDb; digital silence left
// out. FloorDb when everything is silent.
func speakerLevel(rmsDb []float32) float64 {
	const lo, hi = FloorDb, 20.0
	nb := int((hi-lo)/speakerBinDb) + 1
	hist := make([]int, nb)
	total := 0
	for _, v := range rmsDb {
		if d := float64(v); d > digitalSilenceDb && !math.IsNaN(d) {
			hist[int((min(d, hi)-lo)/speakerBinDb)]++
			total++
		}
	}
	if total == 0 {
		return FloorDb
	}
	// pct returns the level under which a share p of the counted frames
	// from bin first up lie.
	pct := func(first, count int, p float64) float64 {
		target, acc := max(int(math.Ceil(p*float64(count))), 1), 0
		for b := first; b < nb; b++ {
			if acc += hist[b]; acc >= target {
				return lo + (float64(b)+0.5)*speakerBinDb
			}
		}
		return hi
	}
	first := int((pct(0, total, speakerTopPct) - speakerBandDb - lo) / speakerBinDb)
	count := 0
	for _, c := range hist[max(first, 0):] {
		count += c
	}
	return pct(max(first, 0), count, speakerPct) - speakerOffsetDb
}

// tracker is trackSpeechLevel's running quantile: level q in [lo, hi],
// moved down by down or up by up by each frame at or over thr (within
// trackNearDb of q, over digital silence).
type tracker struct{ q, thr, lo, hi, down, up float64 }

// trackSilenceDb: a frame at it or over lies over digital silence (no
// float32 level lies between the two).
const trackSilenceDb = digitalSilenceDb + 1e-9

// start puts the level back at hi.
func (t *tracker) start() {
	t.q = t.hi
	t.thr = t.threshold()
}

// step moves the level by frame level d.
func (t *tracker) step(d float64) {
	if d < t.thr {
		return
	}
	if d < t.q {
		if t.q -= t.down; t.q < t.lo {
			t.q = t.lo
		}
	} else if t.q += t.up; t.q > t.hi {
		t.q = t.hi
	}
	t.thr = t.threshold()
}

// threshold is the lowest frame level that moves the level (plain
// comparisons: the builtin min and max on floats cost 5 % of a plan here).
func (t *tracker) threshold() float64 {
	if thr := t.q - trackNearDb; thr > trackSilenceDb {
		return thr
	}
	return trackSilenceDb
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
