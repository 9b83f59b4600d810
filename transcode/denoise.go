package transcode

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/internal/fft"
	"github.com/autocut-dev/autocut/plan"
)

// Spectral gating. The noise profile is the mean power spectrum of the
// stretches the analysis found silent (the plan's silence cuts, read from the
// original), which no peer tool has to hand: they ask the user to mark noise
// or guess it from the quietest frames. Each STFT bin is then attenuated by
// a Wiener-like gain sqrt(max(0, 1 - alpha*N/P)), floored at denoiseFloorDb
// and smoothed over time and neighbouring bins to avoid musical noise.
const (
	denoiseAlpha   = 2.5   // over-subtraction
	denoiseFloorDb = -30.0 // deepest attenuation
	denoiseSmooth  = 0.6   // one-pole smoothing of gains across frames
	maxProfileSec  = 60    // noise material used for the profile at most
	subBassHz      = 40.0  // bins under this are noise wherever the profile has noise
)

// denoiser is a streaming STFT stage: sqrt-Hann windows at 50% overlap
// (perfect reconstruction), one frame of latency that it hides.
type denoiser struct {
	src   dsp.Source
	ch    int
	n, h  int
	win   []float64
	plan  *fft.Plan
	noise []float64 // per-bin noise power (n/2+1)
	gmin  float64
	// subBass is the number of bins under subBassHz: one frame cannot
	// resolve them, so their power swings from frame to frame far more
	// than the noise profile's mean says, and the Wiener gain lets the
	// swings through. Speech has nothing there; where the profile holds
	// noise they are held at the floor.
	subBass int

	in    [][]float64 // per channel: the last n input samples
	ola   [][]float64 // per channel: overlap-add accumulator
	gPrev [][]float64 // per channel per bin: last gains
	re    []float64
	im    []float64
	g     []float64
	fill  int // samples of the current hop received

	inBuf   []float32
	pending []float32 // interleaved output ready
	skip    int       // output frames still to drop (latency)
	inN     int64
	outN    int64
	eof     bool
}

// stftSize picks a power-of-two frame of about 40 ms.
func stftSize(rate int) int {
	n := 256
	for n < rate/25 {
		n <<= 1
	}
	return n
}

// newDenoiser returns src through the spectral gate. The noise profile is
// *noise when it is set, else measured on the input's silences and stored
// in *noise, so the render's two passes measure it once.
func newDenoiser(ctx context.Context, open opener, a *dsp.Analysis, cuts []plan.Cut, src dsp.Source, noise *[]float64) (dsp.Source, error) {
	f := src.Format()
	n := stftSize(f.SampleRate)
	d := &denoiser{src: src, ch: f.Channels, n: n, h: n / 2, plan: fft.NewPlan(n),
		gmin: math.Pow(10, denoiseFloorDb/20), skip: n / 2,
		subBass: int(math.Ceil(subBassHz * float64(n) / float64(f.SampleRate)))}
	d.win = make([]float64, n)
	for i := range d.win {
		d.win[i] = math.Sqrt(0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n)))
	}
	d.re, d.im, d.g = make([]float64, n), make([]float64, n), make([]float64, n/2+1)
	for c := 0; c < d.ch; c++ {
		d.in = append(d.in, make([]float64, n))
		d.ola = append(d.ola, make([]float64, n))
		g := make([]float64, n/2+1)
		for i := range g {
			g[i] = 1
		}
		d.gPrev = append(d.gPrev, g)
	}
	if *noise == nil {
		var err error
		if *noise, err = d.profile(ctx, open, a, cuts); err != nil {
			return nil, err
		}
	}
	d.noise = *noise
	d.inBuf = make([]float32, stageBufFrames*d.ch)
	return d, nil
}

// noiseRanges returns where the noise profile is taken: the plan's silences
// when it has some, else the envelope's frames within 3 dB of the noise floor.
func noiseRanges(a *dsp.Analysis, cuts []plan.Cut) []dsp.Range {
	var out []dsp.Range
	total := 0.0
	for _, c := range cuts {
		if c.Reason == plan.ReasonSilence && c.End-c.Start >= 0.1 {
			out = append(out, dsp.Range{Start: c.Start, End: c.End})
			total += c.End - c.Start
		}
	}
	if total >= 0.5 {
		return out
	}
	out = out[:0]
	e := a.Envelope
	for i, v := range e.RMSDb {
		if float64(v) <= a.NoiseFloorDb+3 && float64(v) > dsp.FloorDb {
			t := float64(i) * e.FrameSec
			if n := len(out); n > 0 && math.Abs(out[n-1].End-t) < 1e-9 {
				out[n-1].End = t + e.FrameSec
			} else {
				out = append(out, dsp.Range{Start: t, End: t + e.FrameSec})
			}
		}
	}
	return out
}

// profile decodes the input once, averaging the windowed power spectrum of
// frames that lie wholly inside the noise ranges.
func (d *denoiser) profile(ctx context.Context, open opener, a *dsp.Analysis, cuts []plan.Cut) ([]float64, error) {
	ranges := noiseRanges(a, cuts)
	noise := make([]float64, d.n/2+1)
	if len(ranges) == 0 {
		return noise, nil // nothing known to be noise: the gate passes everything
	}
	st, closeSt, err := open(ctx)
	if err != nil {
		return nil, err
	}
	defer closeSt()
	rate := float64(st.Format().SampleRate)
	ch := st.Format().Channels
	buf := make([]float32, d.h/2*ch) // small reads: frames are judged every h/2 samples
	frame := make([][]float64, ch)
	for c := range frame {
		frame[c] = make([]float64, d.n)
	}
	var pos int64 // frames read
	count := 0
	ri := 0
	maxFrames := int(maxProfileSec * rate / float64(d.h))
	for count < maxFrames && ri < len(ranges) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k, err := st.Read(buf)
		got := k / ch
		if got > 0 {
			for c := 0; c < ch; c++ {
				copy(frame[c], frame[c][got:])
				for i := 0; i < got; i++ {
					frame[c][d.n-got+i] = float64(buf[i*ch+c])
				}
			}
			pos += int64(got)
			start := float64(pos-int64(d.n)) / rate
			end := float64(pos) / rate
			for ri < len(ranges) && ranges[ri].End < end {
				ri++
			}
			if ri < len(ranges) && start >= ranges[ri].Start && end <= ranges[ri].End && pos >= int64(d.n) {
				for c := 0; c < ch; c++ {
					for i := range d.re {
						d.re[i], d.im[i] = frame[c][i]*d.win[i], 0
					}
					d.plan.Transform(d.re, d.im, false)
					for b := range noise {
						noise[b] += (d.re[b]*d.re[b] + d.im[b]*d.im[b]) / float64(ch)
					}
				}
				count++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("denoise profile: %w", err)
		}
	}
	if count == 0 {
		return noise, nil
	}
	for b := range noise {
		noise[b] /= float64(count)
	}
	return noise, nil
}

// Format returns the stage's format.
func (d *denoiser) Format() dsp.Format { return d.src.Format() }

// hop processes one full hop of every channel and queues h output frames.
func (d *denoiser) hop() {
	n, h := d.n, d.h
	for c := 0; c < d.ch; c++ {
		for i := 0; i < n; i++ {
			d.re[i], d.im[i] = d.in[c][i]*d.win[i], 0
		}
		d.plan.Transform(d.re, d.im, false)
		gp := d.gPrev[c]
		for b := 0; b <= n/2; b++ {
			p := d.re[b]*d.re[b] + d.im[b]*d.im[b]
			g := 1.0
			switch {
			case d.noise[b] > 0 && (p == 0 || b < d.subBass):
				g = 0
			case p > 0:
				g = math.Sqrt(max(0, 1-denoiseAlpha*d.noise[b]/p))
			}
			d.g[b] = max(g, d.gmin)
		}
		for b := 0; b <= n/2; b++ { // smooth across neighbouring bins, then over time
			lo, hi := max(b-1, 0), min(b+1, n/2)
			g := (d.g[lo] + d.g[b] + d.g[hi]) / 3
			if g < gp[b] {
				g = denoiseSmooth*gp[b] + (1-denoiseSmooth)*g
			}
			gp[b] = g
		}
		for b := 0; b <= n/2; b++ {
			d.re[b] *= gp[b]
			d.im[b] *= gp[b]
			if b > 0 && b < n/2 { // keep the spectrum Hermitian
				d.re[n-b] = d.re[b]
				d.im[n-b] = -d.im[b]
			}
		}
		d.plan.Transform(d.re, d.im, true)
		o := d.ola[c]
		for i := 0; i < n; i++ {
			o[i] += d.re[i] / float64(n) * d.win[i]
		}
		copy(d.in[c], d.in[c][h:])
	}
	for i := 0; i < h; i++ {
		if d.skip > 0 {
			d.skip--
			continue
		}
		if d.outN >= d.inN {
			break
		}
		for c := 0; c < d.ch; c++ {
			d.pending = append(d.pending, float32(d.ola[c][i]))
		}
		d.outN++
	}
	for c := 0; c < d.ch; c++ {
		copy(d.ola[c], d.ola[c][h:])
		clear(d.ola[c][n-h:])
	}
}

// Read fills p with denoised frames.
func (d *denoiser) Read(p []float32) (int, error) {
	for len(d.pending) < len(p) && !(d.eof && d.outN >= d.inN) {
		if d.eof {
			// flush with zeros
			for c := 0; c < d.ch; c++ {
				d.in[c][d.n-d.h+d.fill] = 0
			}
			d.fill++
			if d.fill == d.h {
				d.hop()
				d.fill = 0
			}
			continue
		}
		m, err := d.src.Read(d.inBuf)
		for i := 0; i+d.ch <= m; i += d.ch {
			for c := 0; c < d.ch; c++ {
				d.in[c][d.n-d.h+d.fill] = float64(d.inBuf[i+c])
			}
			d.inN++
			d.fill++
			if d.fill == d.h {
				d.hop()
				d.fill = 0
			}
		}
		if err == io.EOF {
			d.eof = true
		} else if err != nil {
			return 0, fmt.Errorf("denoise: %w", err)
		}
	}
	k := min(len(p)/d.ch*d.ch, len(d.pending))
	if k == 0 {
		return 0, io.EOF
	}
	copy(p, d.pending[:k])
	d.pending = append(d.pending[:0], d.pending[k:]...)
	return k, nil
}
