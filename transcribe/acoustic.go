package transcribe

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"sort"

	"github.com/mjibson/go-dsp/fft"

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
	MinSec       float64 // shortest filled pause (default defaultMinSec)
	MaxSec       float64 // longest (default 2.5 s)
	MaxPitchSemi float64 // largest pitch standard deviation, semitones (default defaultMaxPitchSemi)
	SplitFluxDb  float64 // frame-to-frame spectral change that ends a steady run, dB per band (default defaultSplitFluxDb)
	LevelDb      float64 // frames this far under the speech level are not speech (default defaultLevelDb)
	// PauseSec, when set, also requires a pause (frames under the speech
	// level) of that length within 0.1 s before or after the run.
	PauseSec float64
	// NoIsolated turns off the second rule (isolated steady sounds between
	// pauses, see detectIsolated).
	NoIsolated bool
}

// The detector's defaults, chosen on the tuning part of testdata/fillers
// (see TestAcousticRealFillers).
const (
	defaultMinSec       = 0.25
	defaultMaxPitchSemi = 1.0
	defaultSplitFluxDb  = 3
	defaultLevelDb      = 30
)

// Name returns "acoustic".
func (a *Acoustic) Name() string { return "acoustic" }

// Available always holds: the detector is pure Go.
func (a *Acoustic) Available(ctx context.Context) error { return nil }

// frameFeat are one frame's features, kept for every frame of the file
// (the level threshold is a percentile of the whole file), so they are
// compact: 20 bytes per 10 ms, 22 MB for 3 hours.
type frameFeat struct {
	db    float64 // RMS level, dBFS
	pitch float64 // Hz when voiced, 0 when not
	flux  float32 // mean |change| of the 16 band levels from the previous frame, dB
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
	report(progress, 1)
	return t, nil
}

func (a *Acoustic) features(ctx context.Context, st dsp.Stream, progress dsp.Progress) ([]frameFeat, float64, error) {
	f := st.Format()
	// Work at about 8 kHz (box-filter decimation): pitch and the bands up to
	// 4 kHz are all the detector needs, and autocorrelation cost grows with
	// the square of the rate.
	dec := max(1, f.SampleRate/8000)
	rate := f.SampleRate / dec
	hop := rate / 100
	win := 1
	for win < rate*40/1000 {
		win <<= 1
	}
	// ring is circular (pos is the oldest sample); window receives it in
	// order at each hop.
	ring := make([]float64, win)
	window := make([]float64, win)
	fs := newFrameScratch(win)
	var prevBands [16]float64
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
	var read float64
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		n, err := st.Read(buf)
		for i := 0; i+f.Channels <= n; i += f.Channels {
			for c := 0; c < f.Channels; c++ {
				acc += float64(buf[i+c])
			}
			accN++
			if accN < dec {
				continue
			}
			ring[pos] = acc / float64(f.Channels*dec)
			pos = (pos + 1) % win
			acc, accN = 0, 0
			filled++
			sinceHop++
			if filled >= win && sinceHop >= hop {
				sinceHop = 0
				copy(window, ring[pos:])
				copy(window[win-pos:], ring[:pos])
				db, pitch, bands := fs.measure(window, rate)
				ff := frameFeat{db: db, pitch: pitch}
				if len(feats) > 0 {
					var d float64
					for b := range bands {
						d += math.Abs(bands[b] - prevBands[b])
					}
					ff.flux = float32(d / 16)
				}
				prevBands = bands
				feats = append(feats, ff)
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

// frameScratch holds the buffers of measure, reused frame after frame.
type frameScratch struct {
	sq      []float64
	tapered []float64
	hann    []float64
}

func newFrameScratch(win int) *frameScratch {
	fs := &frameScratch{sq: make([]float64, win+1), tapered: make([]float64, win), hann: make([]float64, win)}
	for i := range fs.hann {
		fs.hann[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(win))
	}
	return fs
}

// measure returns one window's level (dBFS), pitch (Hz when voiced, else 0)
// and 16 band levels (dB, log-spaced from 100 Hz to 4 kHz).
func (fs *frameScratch) measure(x []float64, rate int) (db, pitch float64, bands [16]float64) {
	var e float64
	for _, v := range x {
		e += v * v
	}
	db = 10 * math.Log10(e/float64(len(x))+1e-12)
	// normalised autocorrelation over the pitch range
	minLag, maxLag := rate/400, rate/70
	best, bestLag := 0.0, 0
	// sq[i] is the energy of x[:i]: the two energies of each lag come from it.
	sq := fs.sq
	sq[0] = 0
	for i, v := range x {
		sq[i+1] = sq[i] + v*v
	}
	n := len(x)
	for lag := minLag; lag <= maxLag && lag < n/2; lag++ {
		var num float64
		y := x[lag:]
		for i, v := range y {
			num += x[i] * v
		}
		e1, e2 := sq[n-lag], sq[n]-sq[lag]
		if e1 > 0 && e2 > 0 {
			if r := num / math.Sqrt(e1*e2); r > best {
				best, bestLag = r, lag
			}
		}
	}
	if best > 0.7 && bestLag > 0 {
		pitch = float64(rate) / float64(bestLag)
	}
	c := fs.tapered
	for i, v := range x {
		c[i] = v * fs.hann[i]
	}
	spec := fft.FFTReal(c)
	for b := 0; b < 16; b++ {
		lo := 100 * math.Pow(40, float64(b)/16)
		hi := 100 * math.Pow(40, float64(b+1)/16)
		var s float64
		for k := int(lo * float64(len(x)) / float64(rate)); k <= int(hi*float64(len(x))/float64(rate)) && k < len(spec)/2; k++ {
			s += math.Pow(cmplx.Abs(spec[k]), 2)
		}
		bands[b] = 10 * math.Log10(s+1e-12)
	}
	return db, pitch, bands
}

// detect returns the steady runs (detectSteady) and, unless NoIsolated is
// set, the isolated voiced sounds (detectIsolated), merged.
func (a *Acoustic) detect(feats []frameFeat, hop float64) []Filler {
	out := a.detectSteady(feats, hop)
	if !a.NoIsolated {
		out = mergeFillers(append(out, detectIsolated(feats, hop)...))
	}
	return out
}

// detectSteady finds steady voiced stretches: runs of frames that are voiced,
// within LevelDb of the speech level, whose spectrum changes by at most
// SplitFluxDb from the frame before (stable formants) and whose pitch moves by
// at most 2 semitones a frame (gaps of up to 20 ms bridged). A run of MinSec
// to MaxSec whose pitch spread stays under MaxPitchSemi is a filled pause. A
// vowel inside a word changes within 50-150 ms; a filled pause holds still.
func (a *Acoustic) detectSteady(feats []frameFeat, hop float64) []Filler {
	minSec := orF(a.MinSec, defaultMinSec)
	maxSec := orF(a.MaxSec, 2.5)
	maxSemi := orF(a.MaxPitchSemi, defaultMaxPitchSemi)
	split := orF(a.SplitFluxDb, defaultSplitFluxDb)
	levelDb := orF(a.LevelDb, defaultLevelDb)
	lv := make([]float64, len(feats))
	for k, f := range feats {
		lv[k] = f.db
	}
	top := percentile(lv, 0.95)
	steady := func(k int) bool {
		return feats[k].pitch > 0 && feats[k].db >= top-levelDb && float64(feats[k].flux) <= split
	}
	const bridge = 2 // frames
	var out []Filler
	for i := 0; i < len(feats); {
		if !steady(i) {
			i++
			continue
		}
		last, gap := i, 0 // last steady frame of the run
		for k := i + 1; k < len(feats); k++ {
			if steady(k) && math.Abs(12*math.Log2(feats[k].pitch/feats[last].pitch)) <= 2 {
				last, gap = k, 0
				continue
			}
			if gap++; gap > bridge {
				break
			}
		}
		j := last + 1
		dur := float64(j-i) * hop
		if dur >= minSec && dur <= maxSec {
			var mean, sq float64
			n := 0
			for k := i; k < j; k++ {
				if feats[k].pitch > 0 {
					p := 12 * math.Log2(feats[k].pitch)
					mean += p
					sq += p * p
					n++
				}
			}
			mean /= float64(n)
			if sd := math.Sqrt(max(sq/float64(n)-mean*mean, 0)); sd <= maxSemi && a.pauseNear(feats, i, j, top-levelDb, hop) {
				out = append(out, Filler{Word: "(filled pause)", Start: float64(i)*hop + 0.02, End: float64(j)*hop + 0.02, Kind: "filler", Confidence: 0.5})
			}
		}
		i = j
	}
	return out
}

// pauseNear reports whether a pause of PauseSec (frames under floor) starts
// or ends within 0.1 s of the run [i, j); true when PauseSec is 0.
func (a *Acoustic) pauseNear(feats []frameFeat, i, j int, floor, hop float64) bool {
	if a.PauseSec <= 0 {
		return true
	}
	need := int(a.PauseSec/hop + 0.5)
	reach := int(0.1/hop + 0.5)
	quiet := func(from, step int) bool {
		run := 0
		for k, n := from, 0; k >= 0 && k < len(feats) && n < reach+need; k, n = k+step, n+1 {
			if feats[k].db < floor {
				if run++; run >= need {
					return true
				}
			} else {
				run = 0
			}
		}
		return from < 0 || from >= len(feats)
	}
	return quiet(i-1, -1) || quiet(j, 1)
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
		lv[k] = f.db
	}
	top := percentile(lv, 0.95)
	active := func(k int) bool { return feats[k].db >= top-35 }
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
					p := 12 * math.Log2(feats[k].pitch)
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
