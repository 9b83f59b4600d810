package transcribe

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/autocut-dev/autocut/dsp"
)

// Acoustic finds filled pauses (um, uh, euh, ...) without a speech model, in
// any language: a filled pause is a long voiced stretch whose pitch and
// spectrum barely move, where words glide in pitch and change spectrum every
// few tens of milliseconds. It returns fillers only (no words).
//
// Per 10 ms frame (40 ms window, mono, about 8 kHz): level, voicing and pitch
// from the normalised autocorrelation (70-400 Hz), and a 16-band log
// spectrum; see detect for the decision.
type Acoustic struct {
	// Threshold is the classifier score a candidate must reach to be
	// reported (default defaultThreshold).
	Threshold float64

	// NoIsolated turns off the second rule (isolated steady sounds between
	// pauses, see detectIsolated).
	NoIsolated bool

	model *fillerModel // the classifier; nil for defaultModel (tests train others)
	cand  *candParams  // nil for defaultCand (tests sweep others)
}

// candParams are the candidate generator's settings.
type candParams struct {
	flux     float64 // largest spectral change from the frame before, dB per band
	flux5    float64 // largest spectral change from 50 ms before, dB per band
	minSec   float64 // shortest candidate
	mergeGap float64 // runs closer than this with the same pitch are one candidate, s
	pauseDb  float64 // frames this far under the speech level are pauses
}

// defaultCand was chosen by cross-validation on the tuning part
// (TestAcousticTrain).
var defaultCand = candParams{flux: 4, flux5: 5, minSec: 0.1, mergeGap: 0.15, pauseDb: 30}

// The detector's settings. The candidate generator's are loose (it must
// keep every filler, the classifier drops the rest); the threshold was
// chosen by cross-validation on the tuning part of testdata/fillers (see
// TestAcousticTrain).
const (
	levelDb    = 30  // voiced frames this far under the speech level are not candidates
	candMaxSec = 2.5 // longest candidate
)

// Serves reports that the detector serves every language: it knows no
// word and no lexicon, only the sound of a held vowel (long, voiced,
// steady in pitch and spectrum), which is how filled pauses sound in the
// languages it was measured on (English and French); and it only suggests
// (AcousticAutoCut), so a language where it hears wrong costs a review,
// not a clipped word.
func (a *Acoustic) Serves(lang string) (bool, string) { return true, "" }

// Name returns "acoustic".
func (a *Acoustic) Name() string { return "acoustic" }

// Available always holds: the detector is pure Go.
func (a *Acoustic) Available(ctx context.Context) error { return nil }

// frameFeat are one frame's features, kept for every frame of the file
// (the level threshold is a percentile of the whole file), so they are
// compact: 24 bytes per 10 ms, 26 MB for 3 hours.
type frameFeat struct {
	db    float32 // RMS level, dBFS
	pitch float32 // Hz when voiced, 0 when not
	corr  float32 // voicing: the best normalised autocorrelation in the pitch range
	flux  float32 // mean |change| of the 16 band levels from the previous frame, dB
	flux5 float32 // the same from fluxLag frames before (slow formant movement)
	cent  float32 // spectral centroid over the 16 bands, in bands (0-15): vowel colour
}

// Transcribe decodes path and returns the filled pauses it finds.
func (a *Acoustic) Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*Transcript, error) {
	st, err := dsp.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	feats, hop, err := a.features(ctx, st, progress)
	if err != nil {
		return nil, err
	}
	t := &Transcript{Status: "done", Language: lang, Engine: a.Name(), Words: []Word{}, Fillers: a.detect(feats, hop)}
	MarkFillers(t, AcousticAutoCut)
	report(progress, 1)
	return t, nil
}

func (a *Acoustic) features(ctx context.Context, st dsp.Stream, progress dsp.Progress) ([]frameFeat, float64, error) {
	f := st.Format()
	dec, rate, hop, win := acousticFrames(f.SampleRate)
	// ring is circular (pos is the oldest sample); window receives it in
	// order at each hop.
	ring := make([]float64, win)
	window := make([]float64, win)
	fs := newFrameScratch(win, rate)
	pos := 0
	buf := make([]float32, 4096*f.Channels)
	// One frame per 10 ms: sized from the duration when the stream knows it
	// (growing by doubling would hold up to three times the features), up
	// to 4 hours, so that a lying header cannot ask for a huge allocation.
	frames := st.Info().Duration * 100
	if !(frames > 0) {
		frames = 0
	}
	feats := make([]frameFeat, 0, int(min(frames, 4*3600*100))+16)
	filled, sinceHop := 0, 0
	var acc float64
	accN := 0
	total := float64(st.Info().Duration) * float64(rate)
	var pol dsp.Polarity
	polStep := 2 * max(f.SampleRate/100, 1)
	var read float64
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		n, err := st.Read(buf)
		if f.Channels == 2 {
			// Channels in opposite polarity: their mean is silent, so
			// the right one is turned over (dsp.Polarity, about 10 ms at
			// a time).
			for i := 0; i < n; i += polStep {
				if s := buf[i:min(i+polStep, n)]; pol.Frame(s) {
					for j := 1; j < len(s); j += 2 {
						s[j] = -s[j]
					}
				}
			}
		}
		for i := 0; i+f.Channels <= n; i += f.Channels {
			for c := 0; c < f.Channels; c++ {
				acc += float64(buf[i+c])
			}
			accN++
			if accN < dec {
				continue
			}
			ring[pos] = acc / float64(f.Channels*dec)
			pos++
			if pos == win {
				pos = 0
			}
			acc, accN = 0, 0
			filled++
			sinceHop++
			if filled >= win && sinceHop >= hop {
				sinceHop = 0
				copy(window, ring[pos:])
				copy(window[win-pos:], ring[:pos])
				feats = append(feats, fs.measure(window, len(feats) == 0))
			}
		}
		read += float64(n / f.Channels)
		if progress != nil && total > 0 {
			progress(0.9 * min(read/total, 1))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("acoustic: %w", err)
		}
	}
	// frame k is centred at (k*hop + win/2) samples after the first full window
	return feats, float64(hop) / float64(rate), nil
}

// acousticFrames returns the features' framing for a sample rate: the
// decimation (to about 8 kHz, a box filter: pitch and the bands up to 4
// kHz are all the detector needs), the rate worked at, the hop (10 ms) and
// the window (the power of two samples from 40 ms). Frame k is centred
// (k*hop + win/2)/rate seconds after the start.
func acousticFrames(sampleRate int) (dec, rate, hop, win int) {
	dec = max(1, sampleRate/8000)
	rate = sampleRate / dec
	hop = max(rate/100, 1)
	win = 1
	for win < rate*40/1000 {
		win <<= 1
	}
	return dec, rate, hop, win
}

// nBands is the number of log-spaced bands (100 Hz to 4 kHz) of the
// spectral change measures.
const nBands = 16

// fluxLag is the distance, in frames, of the slow spectral change (flux5).
const fluxLag = 5

// frameScratch holds the buffers of measure, reused frame after frame, so
// that measuring a frame allocates nothing.
type frameScratch struct {
	rate             int
	sq, tapered, pad []float64
	acf              []float64
	hann             []float64
	spec, padSpec    []complex128
	fft, padFFT      *fourier.FFT
	bandLo, bandHi   [nBands]int
	hist             [fluxLag + 1][nBands]float64 // band levels of the last frames, circular
	histN            int
}

func newFrameScratch(win, rate int) *frameScratch {
	fs := &frameScratch{
		rate: rate, sq: make([]float64, win+1), tapered: make([]float64, win), hann: make([]float64, win),
		pad: make([]float64, 2*win), acf: make([]float64, 2*win),
		spec: make([]complex128, win/2+1), padSpec: make([]complex128, win+1),
		fft: fourier.NewFFT(win), padFFT: fourier.NewFFT(2 * win),
	}
	for i := range fs.hann {
		fs.hann[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(win))
	}
	for b := 0; b < nBands; b++ {
		lo := 100 * math.Pow(40, float64(b)/nBands)
		hi := 100 * math.Pow(40, float64(b+1)/nBands)
		fs.bandLo[b] = int(lo * float64(win) / float64(rate))
		fs.bandHi[b] = min(int(hi*float64(win)/float64(rate)), win/2)
	}
	return fs
}

// measure returns one window's features: level (dBFS), pitch and voicing
// from the normalised autocorrelation (computed through the power spectrum
// of the zero-padded window), and the change of 16 band levels from the
// previous frame (flux) and from fluxLag frames before (flux5).
func (fs *frameScratch) measure(x []float64, first bool) frameFeat {
	n := len(x)
	sq := fs.sq
	sq[0] = 0
	for i, v := range x {
		sq[i+1] = sq[i] + v*v
	}
	e := sq[n]
	ff := frameFeat{db: float32(10 * math.Log10(e/float64(n)+1e-12))}
	// autocorrelation = inverse transform of the power spectrum (zero
	// padding to 2n makes it linear, not circular)
	copy(fs.pad, x)
	clear(fs.pad[n:])
	fs.padFFT.Coefficients(fs.padSpec, fs.pad)
	for k, c := range fs.padSpec {
		fs.padSpec[k] = complex(real(c)*real(c)+imag(c)*imag(c), 0)
	}
	fs.padFFT.Sequence(fs.acf, fs.padSpec)
	scale := 1 / float64(2*n)
	minLag, maxLag := fs.rate/400, min(fs.rate/70, n/2)
	nr := func(lag int) float64 {
		e1, e2 := sq[n-lag], sq[n]-sq[lag]
		if e1 <= 0 || e2 <= 0 {
			return 0
		}
		return fs.acf[lag] * scale / math.Sqrt(e1*e2)
	}
	// the best local maximum, then the shortest lag within 10% of it (a
	// multiple of the period correlates almost as well)
	best := 0.0
	for lag := minLag + 1; lag < maxLag; lag++ {
		if r := nr(lag); r > best && r >= nr(lag-1) && r >= nr(lag+1) {
			best = r
		}
	}
	if best > 0.6 {
		for lag := minLag + 1; lag < maxLag; lag++ {
			if r := nr(lag); r >= 0.9*best && r >= nr(lag-1) && r >= nr(lag+1) {
				ff.pitch = float32(float64(fs.rate) / float64(lag))
				break
			}
		}
	}
	ff.corr = float32(best)
	c := fs.tapered
	for i, v := range x {
		c[i] = v * fs.hann[i]
	}
	fs.fft.Coefficients(fs.spec, c)
	cur := fs.histN % (fluxLag + 1)
	bands := &fs.hist[cur]
	var cw, ct float64
	for b := 0; b < nBands; b++ {
		var s float64
		for k := fs.bandLo[b]; k <= fs.bandHi[b]; k++ {
			v := fs.spec[k]
			s += real(v)*real(v) + imag(v)*imag(v)
		}
		bands[b] = 10 * math.Log10(s+1e-12)
		cw += float64(b) * s
		ct += s
	}
	if ct > 0 {
		ff.cent = float32(cw / ct)
	}
	if fs.histN >= 1 {
		prev := &fs.hist[(fs.histN-1)%(fluxLag+1)]
		var d float64
		for b := range bands {
			d += math.Abs(bands[b] - prev[b])
		}
		ff.flux = float32(d / nBands)
	}
	if fs.histN >= fluxLag {
		old := &fs.hist[(fs.histN-fluxLag)%(fluxLag+1)]
		var d float64
		for b := range bands {
			d += math.Abs(bands[b] - old[b])
		}
		ff.flux5 = float32(d / nBands)
	}
	fs.histN++
	return ff
}

// detect returns the candidates (candidates) that the classifier
// (fillerScore) takes for filled pauses.
func (a *Acoustic) detect(feats []frameFeat, hop float64) []Filler {
	thr := orF(a.Threshold, defaultThreshold)
	m := a.model
	if m == nil {
		m = &defaultModel
	}
	ctx := newFileContext(feats, a.params().pauseDb)
	var out []Filler
	for _, c := range a.candidates(feats, hop, ctx) {
		x := segmentFeatures(feats, hop, ctx, c)
		if p := m.score(x); p >= thr {
			out = append(out, Filler{Word: "(filled pause)", Start: float64(c.i)*hop + 0.02, End: float64(c.j)*hop + 0.02, Kind: "filler", Confidence: p})
		}
	}
	if !a.NoIsolated {
		out = mergeFillers(append(out, detectIsolated(feats, hop)...))
	}
	return out
}

// fileContext holds the whole-file levels the features are relative to.
type fileContext struct {
	top       float64 // speech level: the 95th percentile of the frame levels, dB
	medPitch  float64 // median pitch of the voiced frames, semitones (re 1 Hz)
	floor     float64 // frames under this level are pauses, dB
	medFlux5  float64 // median 50 ms spectral change of the voiced speech frames, dB
	noise     float64 // noise floor: the 10th percentile of the frame levels, dB
	medCent   float64 // median spectral centroid of the voiced speech frames, bands
	hasVoiced bool
}

func (a *Acoustic) params() *candParams {
	if a.cand != nil {
		return a.cand
	}
	return &defaultCand
}

func newFileContext(feats []frameFeat, pauseDb float64) fileContext {
	lv := make([]float64, len(feats))
	for k, f := range feats {
		lv[k] = float64(f.db)
	}
	c := fileContext{top: percentile(lv, 0.95)}
	c.noise = percentile(lv, 0.1)
	c.floor = c.top - pauseDb
	var ps, fl, ce []float64
	for _, f := range feats {
		if f.pitch > 0 && float64(f.db) >= c.top-levelDb {
			ps = append(ps, semi(f.pitch))
			fl = append(fl, float64(f.flux5))
			ce = append(ce, float64(f.cent))
		}
	}
	if len(ps) > 0 {
		c.medPitch = percentile(ps, 0.5)
		c.medFlux5 = percentile(fl, 0.5)
		c.medCent = percentile(ce, 0.5)
		c.hasVoiced = true
	}
	return c
}

func semi(hz float32) float64 { return 12 * math.Log2(float64(hz)) }

// span is a candidate: frames [i, j).
type span struct{ i, j int }

// candidates returns the steady voiced stretches of a file: runs of voiced
// frames within levelDb of the speech level whose spectrum changes by at
// most candFluxDb from one frame to the next and whose pitch moves by at
// most 2 semitones a frame (gaps of up to 30 ms bridged), at least
// candMinSec long; runs separated by less than mergeGapSec whose median
// pitches lie within 2 semitones are joined (a long "uhhh" whose spectrum
// wobbles once is one filler, not two). Words glide in pitch and change
// spectrum every few tens of milliseconds; filled pauses hold still, but so
// do some lengthened vowels: the classifier decides.
func (a *Acoustic) candidates(feats []frameFeat, hop float64, ctx fileContext) []span {
	if !ctx.hasVoiced {
		return nil
	}
	cp := a.params()
	steady := func(k int) bool {
		return feats[k].pitch > 0 && float64(feats[k].db) >= ctx.top-levelDb && float64(feats[k].flux) <= cp.flux && float64(feats[k].flux5) <= cp.flux5
	}
	const bridge = 3 // frames
	minFrames := int(cp.minSec/hop + 0.5)
	var runs []span
	for i := 0; i < len(feats); {
		if !steady(i) {
			i++
			continue
		}
		last, gap := i, 0
		for k := i + 1; k < len(feats); k++ {
			if steady(k) && math.Abs(semi(feats[k].pitch)-semi(feats[last].pitch)) <= 2 {
				last, gap = k, 0
				continue
			}
			if gap++; gap > bridge {
				break
			}
		}
		if last+1-i >= minFrames {
			runs = append(runs, span{i, last + 1})
		}
		i = last + 1
	}
	maxGap := int(cp.mergeGap/hop + 0.5)
	maxFrames := int(candMaxSec/hop + 0.5)
	var out []span
	for _, r := range runs {
		if n := len(out); n > 0 {
			p := out[n-1]
			if r.i-p.j <= maxGap && r.j-p.i <= maxFrames && math.Abs(medianSemi(feats, p)-medianSemi(feats, r)) <= 2 {
				out[n-1].j = r.j
				continue
			}
		}
		out = append(out, r)
	}
	// too long to be one filler: a held note, music
	k := 0
	for _, r := range out {
		if r.j-r.i <= maxFrames {
			out[k] = r
			k++
		}
	}
	return out[:k]
}

func medianSemi(feats []frameFeat, s span) float64 {
	var v []float64
	for k := s.i; k < s.j; k++ {
		if feats[k].pitch > 0 {
			v = append(v, semi(feats[k].pitch))
		}
	}
	if len(v) == 0 {
		return 0
	}
	return percentile(v, 0.5)
}

// The per-candidate features the classifier weighs (segmentFeatures).
const (
	fLogDur      = iota // log10 of the duration, s
	fPitchSD            // pitch standard deviation, semitones
	fPitchSlope         // pitch slope (least squares), semitones/s
	fFlux               // mean frame-to-frame spectral change, dB
	fFlux5              // mean spectral change over 50 ms, dB
	fLevel              // mean level relative to the speech level, dB
	fLevelSD            // level standard deviation, dB (envelope flatness)
	fPauseBefore        // pause just before, s (capped at 0.5)
	fPauseAfter         // pause just after, s (capped at 0.5)
	fPitchRel           // median pitch relative to the file's, semitones
	fVoicing            // mean voicing (normalised autocorrelation)
	fFlux5Rel           // mean spectral change over 50 ms relative to the file's median
	fDipBefore          // level drop in the 300 ms before, from the candidate's mean, dB
	fDipAfter           // level drop in the 300 ms after, dB
	fSNR                // mean level above the file's noise floor (10th percentile), dB
	fCentRel            // spectral centroid relative to the file's voiced median, bands
	fCentSD             // spectral centroid standard deviation (formant stability), bands
	nFeatures
)

// featureNames name the features in reports.
var featureNames = [nFeatures]string{"log-duration", "pitch-sd", "pitch-slope", "flux", "flux-50ms", "level", "level-sd", "pause-before", "pause-after", "pitch-rel", "voicing", "flux-50ms-rel", "dip-before", "dip-after", "snr", "centroid-rel", "centroid-sd"}

// segmentFeatures measures candidate s.
func segmentFeatures(feats []frameFeat, hop float64, ctx fileContext, s span) [nFeatures]float64 {
	var x [nFeatures]float64
	n := float64(s.j - s.i)
	x[fLogDur] = math.Log10(n * hop)
	var sp, sp2, st, st2, stp, nv, fl, fl5, lv, lv2, corr, ce, ce2 float64
	for k := s.i; k < s.j; k++ {
		f := feats[k]
		if f.pitch > 0 {
			p := semi(f.pitch)
			t := float64(k-s.i) * hop
			sp += p
			sp2 += p * p
			st += t
			st2 += t * t
			stp += t * p
			nv++
		}
		fl += float64(f.flux)
		fl5 += float64(f.flux5)
		d := float64(f.db) - ctx.top
		lv += d
		lv2 += d * d
		corr += float64(f.corr)
		ce += float64(f.cent)
		ce2 += float64(f.cent) * float64(f.cent)
	}
	if nv > 0 {
		mean := sp / nv
		x[fPitchSD] = math.Sqrt(max(sp2/nv-mean*mean, 0))
		if den := nv*st2 - st*st; den > 0 {
			x[fPitchSlope] = (nv*stp - st*sp) / den
		}
	}
	x[fPitchRel] = medianSemi(feats, s) - ctx.medPitch
	x[fFlux] = fl / n
	x[fFlux5] = fl5 / n
	x[fFlux5Rel] = x[fFlux5] / max(ctx.medFlux5, 0.1)
	x[fLevel] = lv / n
	x[fLevelSD] = math.Sqrt(max(lv2/n-(lv/n)*(lv/n), 0))
	x[fVoicing] = corr / n
	limit := int(0.5/hop + 0.5)
	k := s.i - 1
	for ; k >= 0 && s.i-1-k < limit && float64(feats[k].db) < ctx.floor; k-- {
	}
	x[fPauseBefore] = float64(s.i-1-k) * hop
	k = s.j
	for ; k < len(feats) && k-s.j < limit && float64(feats[k].db) < ctx.floor; k++ {
	}
	x[fPauseAfter] = float64(k-s.j) * hop
	mean := lv/n + ctx.top
	x[fSNR] = mean - ctx.noise
	x[fCentRel] = ce/n - ctx.medCent
	x[fCentSD] = math.Sqrt(max(ce2/n-(ce/n)*(ce/n), 0))
	dip := int(0.3/hop + 0.5)
	lo := mean
	for k := max(0, s.i-dip); k < s.i; k++ {
		lo = min(lo, float64(feats[k].db))
	}
	x[fDipBefore] = min(mean-lo, 30)
	lo = mean
	for k := s.j; k < min(len(feats), s.j+dip); k++ {
		lo = min(lo, float64(feats[k].db))
	}
	x[fDipAfter] = min(mean-lo, 30)
	return x
}

// fillerModel is the classifier: a logistic regression over the
// standardised features. defaultModel (acoustic_model.go) was trained on the
// tuning part of testdata/fillers; TestAcousticTrain reproduces it.
type fillerModel struct {
	mean, scale, weights [nFeatures]float64
	bias                 float64
}

// score returns the probability that a candidate with features x is a
// filled pause.
func (m *fillerModel) score(x [nFeatures]float64) float64 {
	z := m.bias
	for i := range x {
		z += m.weights[i] * (x[i] - m.mean[i]) / m.scale[i]
	}
	return 1 / (1 + math.Exp(-z))
}

// detectIsolated finds isolated, steady voiced sounds: an active stretch (frames
// within 35 dB of the speech level, gaps under 100 ms bridged) of at most
// MaxSec with a pause of 150 ms or more on each side, mostly voiced, whose
// pitch spread and spectral flux stay under the limits. Hesitations sit
// between pauses; words inside a phrase do not. (The first version of
// the detector; it finds the fillers of synthetic speech said alone.)
func detectIsolated(feats []frameFeat, hop float64) []Filler {
	const minSec, maxSec, maxSemi, maxFlux = 0.12, 0.9, 1.2, 4
	lv := make([]float64, len(feats))
	for k, f := range feats {
		lv[k] = float64(f.db)
	}
	top := percentile(lv, 0.95)
	active := func(k int) bool { return float64(feats[k].db) >= top-35 }
	gapFrames := int(0.1/hop + 0.5)
	pauseFrames := int(0.15/hop + 0.5)
	var out []Filler
	for i := 0; i < len(feats); {
		if !active(i) {
			i++
			continue
		}
		// extend the active stretch, bridging short gaps
		j, quiet := i, 0
		for k := i; k < len(feats); k++ {
			if active(k) {
				j, quiet = k+1, 0
				continue
			}
			if quiet++; quiet > gapFrames {
				break
			}
		}
		pauseBefore := i >= pauseFrames || i == 0
		for k := max(0, i-pauseFrames); k < i && pauseBefore; k++ {
			pauseBefore = !active(k)
		}
		pauseAfter := true
		for k := j; k < min(len(feats), j+pauseFrames) && pauseAfter; k++ {
			pauseAfter = !active(k)
		}
		dur := float64(j-i) * hop
		if pauseBefore && pauseAfter && dur >= minSec && dur <= maxSec {
			var mean, sq, flux float64
			voiced := 0
			for k := i; k < j; k++ {
				if feats[k].pitch > 0 {
					p := semi(feats[k].pitch)
					mean += p
					sq += p * p
					voiced++
				}
				if k > i {
					flux += float64(feats[k].flux)
				}
			}
			if voiced >= 3 && float64(voiced) >= 0.5*float64(j-i) {
				n := float64(voiced)
				mean /= n
				sd := math.Sqrt(max(sq/n-mean*mean, 0))
				flux /= float64(max(j-i-1, 1))
				if sd <= maxSemi && flux <= maxFlux {
					out = append(out, Filler{Word: "(filled pause)", Start: float64(i)*hop + 0.02, End: float64(j)*hop + 0.02, Kind: "filler", Confidence: 0.5})
				}
			}
		}
		i = max(j, i+1)
	}
	return out
}

func orF(v, d float64) float64 {
	if v > 0 {
		return v
	}
	return d
}

func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v) // v is the caller's scratch copy
	return v[int(p*float64(len(v)-1))]
}
