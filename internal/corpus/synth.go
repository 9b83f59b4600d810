package corpus

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/autocut-dev/autocut/internal/tail"
)

// SampleRate is the rate of the synthetic corpus's audio.
const SampleRate = 48000

// synthVersion changes whenever Synthesize's output would change for the
// same cases (it is part of the cache key).
const synthVersion = "synth-2"

// Formats Synthesize can write.
const (
	WAV   = "wav"   // 16-bit PCM stereo
	WAV24 = "wav24" // 24-bit PCM stereo (NAME.24.wav)
	MP3   = "mp3"   // LAME 128 kb/s stereo
	M4A   = "m4a"   // AAC 128 kb/s stereo
	MP4   = "mp4"   // H.264 test pattern 640x360 at 30 fps with the AAC audio
)

// The sentences the cases are made of.
var (
	english = []string{
		"So I think we should go to the market today.",
		"The quarterly numbers came in higher than anyone expected.",
		"Let me tell you about the time I lost my keys in Berlin.",
		"Podcasting is mostly about showing up every single week.",
		"Here is the thing nobody tells you about editing audio.",
		"We recorded this episode in a small room with a big window.",
		"Honestly, the second half of the interview was the best part.",
		"If you remember one thing from today, remember this.",
		"Our guest has been building synthesizers for twenty years.",
		"The trick is to cut the pauses but keep the breathing natural.",
		"Thanks for listening, and see you next time.",
		"First, open the file. Then, check the levels carefully.",
	}
	french = []string{
		"Bonjour à tous et bienvenue dans ce nouveau cours.",
		"Aujourd'hui nous allons parler de la transformée de Fourier.",
		"Prenez une feuille et notez bien cette formule.",
		"La semaine prochaine, nous verrons les filtres numériques.",
		"C'est une question que l'on me pose très souvent.",
		"Merci de votre attention, et à bientôt.",
	}
	// gapChoices are the pause lengths between utterances, from a breath
	// to a long silence, on both sides of the usual minimum silences.
	gapChoices  = []float64{0.12, 0.25, 0.4, 0.6, 0.9, 1.3, 2.0, 3.2, 5.0}
	tailChoices = []float64{0, 0.5, 2.0}
	leadChoices = []float64{0, 0.3, 1.5}
	levelChoice = []float64{-18, -24, -30, -36}
	speedChoice = []int{140, 160, 175, 190}
	// noiseChoice: no noise, or a floor at an RMS level (the speech peaks
	// at -24 to -6 dBFS).
	noiseChoice = []*Noise{nil, {"pink", -68}, {"pink", -58}, {"brown", -45}, {"white", -55}}
)

// Case is the recipe of one synthetic case.
type Case struct {
	Name     string `json:"name"`
	Language string `json:"language"` // "en" or "fr"
	Voice    string `json:"voice"`    // espeak-ng voice
	Speed    int    `json:"speed"`    // espeak-ng words per minute
	// Lines are the utterances, spoken one after the other.
	Lines []string `json:"lines"`
	// Gaps[i] is the pause after Lines[i] in seconds (0: none).
	Gaps []float64 `json:"gaps"`
	// Lead is the silence before the first utterance in seconds.
	Lead float64 `json:"lead"`
	// SpeechDbfs is the nominal speech level: every utterance is scaled
	// to peak 12 dB over it.
	SpeechDbfs float64 `json:"speechDbfs"`
	// Noise is the floor laid under the whole case; nil for none.
	Noise *Noise `json:"noise"`
	// NoiseSeed seeds the noise generator.
	NoiseSeed uint64 `json:"noiseSeed"`
}

// peakDbfs is the level every utterance is scaled to peak at.
func (c Case) peakDbfs() float64 { return c.SpeechDbfs + 12 }

// TrimDbfs is the truth rule's level for the case: an utterance's edges
// are trimmed where it stays under 40 dB below its peak, or under 6 dB
// over the noise floor when that is higher.
func (c Case) TrimDbfs() float64 {
	trim := c.peakDbfs() - 40
	if c.Noise != nil {
		trim = max(trim, c.Noise.LevelDbfs+6)
	}
	return trim
}

// Cases draws n cases from seed: language (English three times in four),
// voice, speed, 5 to 10 utterances with pauses from 0.12 to 5 s, a lead-in
// of 0, 0.3 or 1.5 s, a speech level from -36 to -18 dBFS and no noise or
// pink, brown or white noise from -68 to -45 dBFS RMS. The same seed gives the
// same cases; they are named caseSSS-II.
func Cases(seed uint64, n int) []Case {
	rng := rand.New(rand.NewPCG(seed, 0x6175746f637574)) // "autocut"
	pick := func(n int) int { return rng.IntN(n) }
	out := make([]Case, 0, n)
	for i := range n {
		c := Case{Name: fmt.Sprintf("case%03d-%02d", seed, i)}
		lines := english
		if pick(4) == 3 {
			c.Language, lines = "fr", french
			c.Voice = []string{"fr-fr", "fr-fr+f2"}[pick(2)]
		} else {
			c.Language = "en"
			c.Voice = []string{"en-us", "en-gb", "en-us+f3"}[pick(3)]
		}
		c.Speed = speedChoice[pick(len(speedChoice))]
		utterances := 5 + pick(6)
		c.SpeechDbfs = levelChoice[pick(len(levelChoice))]
		if nz := noiseChoice[pick(len(noiseChoice))]; nz != nil {
			cp := *nz
			c.Noise = &cp
		}
		c.Lead = leadChoices[pick(len(leadChoices))]
		for u := range utterances {
			c.Lines = append(c.Lines, lines[pick(len(lines))])
			if u < utterances-1 {
				c.Gaps = append(c.Gaps, gapChoices[pick(len(gapChoices))])
			} else {
				c.Gaps = append(c.Gaps, tailChoices[pick(len(tailChoices))])
			}
		}
		c.NoiseSeed = rng.Uint64()
		out = append(out, c)
	}
	return out
}

// Generate returns the cases Cases(seed, n) draws, in formats, from the
// cache under root (see Cached), generating them when they are not there.
// Generation takes about a second per case.
func Generate(ctx context.Context, root string, seed uint64, n int, formats ...string) ([]Truth, error) {
	return GenerateCases(ctx, root, Cases(seed, n), formats...)
}

// GenerateCases is Generate for cases chosen by the caller.
func GenerateCases(ctx context.Context, root string, cases []Case, formats ...string) ([]Truth, error) {
	spec, err := json.Marshal(cases)
	if err != nil {
		return nil, err
	}
	fs := slices.Clone(formats)
	slices.Sort(fs)
	versions, err := toolVersions(ctx, fs)
	if err != nil {
		return nil, err
	}
	key := cacheKey(synthVersion, string(spec), strings.Join(fs, ","), versions)
	_, ts, err := Cached(ctx, root, key, func(ctx context.Context, dir string) error {
		_, err := Synthesize(ctx, dir, cases, formats...)
		return err
	})
	return ts, err
}

// toolVersions is the version lines of the tools the formats need: a new
// espeak-ng or encoder changes the audio, so it is part of the cache key.
func toolVersions(ctx context.Context, formats []string) (string, error) {
	tools := [][]string{{"espeak-ng", "--version"}, {"sox", "--version"}}
	for _, f := range formats {
		if f == MP3 || f == M4A || f == MP4 {
			tools = append(tools, []string{"ffmpeg", "-version"})
			break
		}
	}
	var b strings.Builder
	for _, t := range tools {
		out, err := exec.CommandContext(ctx, t[0], t[1:]...).Output()
		if err != nil {
			return "", fmt.Errorf("corpus: %s: %w", t[0], err)
		}
		line, _, _ := strings.Cut(string(out), "\n")
		b.WriteString(line + "\n")
	}
	return b.String(), nil
}

// Synthesize writes cases into dir (NAME.EXT per format and
// NAME.truth.json) and returns their truths. It needs espeak-ng and sox,
// and ffmpeg for the mp3, m4a and mp4 formats.
//
// Each utterance is spoken by espeak-ng, resampled to 48 kHz, scaled to
// peak 12 dB over the case's speech level and trimmed at both ends where
// sox's silence effect finds it under the case's TrimDbfs (its RMS over
// 20 ms). The utterances and the pauses between them are laid end to end,
// a noise bed at the case's RMS level is added over the whole length, and
// the mono result is written in each format as stereo.
func Synthesize(ctx context.Context, dir string, cases []Case, formats ...string) ([]Truth, error) {
	for _, f := range formats {
		if !slices.Contains([]string{WAV, WAV24, MP3, M4A, MP4}, f) {
			return nil, fmt.Errorf("corpus: unknown format %q", f)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := make([]Truth, 0, len(cases))
	for _, c := range cases {
		t, err := synthesize(ctx, dir, c, formats)
		if err != nil {
			return nil, fmt.Errorf("corpus: case %s: %w", c.Name, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func synthesize(ctx context.Context, dir string, c Case, formats []string) (Truth, error) {
	if len(c.Lines) == 0 || len(c.Gaps) != len(c.Lines) {
		return Truth{}, fmt.Errorf("%d lines and %d gaps", len(c.Lines), len(c.Gaps))
	}
	tmp, err := os.MkdirTemp("", "autocut-synth-")
	if err != nil {
		return Truth{}, err
	}
	defer os.RemoveAll(tmp)

	samples := func(sec float64) int { return int(math.Round(sec * SampleRate)) }
	at := func(n int) float64 { return float64(n) / SampleRate }
	x := make([]float32, samples(c.Lead))
	t := Truth{
		Name: c.Name, Generator: "synth", Language: c.Language, Voice: c.Voice,
		SampleRate: SampleRate, SpeechLevelDbfs: c.SpeechDbfs, TrimDbfs: c.TrimDbfs(), Noise: c.Noise,
		Files: map[string]string{}, dir: dir,
	}
	for i, line := range c.Lines {
		u, err := utterance(ctx, tmp, line, c.Voice, c.Speed, c.peakDbfs(), c.TrimDbfs())
		if err != nil {
			return t, err
		}
		t.Speech = append(t.Speech, Interval{at(len(x)), at(len(x) + len(u))})
		x = append(x, u...)
		if g := samples(c.Gaps[i]); g > 0 {
			t.Gaps = append(t.Gaps, Interval{at(len(x)), at(len(x) + g)})
			x = append(x, make([]float32, g)...)
		}
	}
	t.Duration = at(len(x))
	if c.Noise != nil {
		bed, err := noiseBed(c.Noise.Kind, len(x), c.Noise.LevelDbfs, c.NoiseSeed)
		if err != nil {
			return t, err
		}
		for i := range x {
			x[i] += bed[i]
		}
	}
	for i, v := range x {
		if v > 1 || v < -1 {
			return t, fmt.Errorf("sample %d clips (%g)", i, v)
		}
	}
	if err := encode(ctx, dir, tmp, &t, x, formats); err != nil {
		return t, err
	}
	return t, WriteTruth(dir, t)
}

// utterance speaks text and returns it at SampleRate, scaled to peak at
// peakDbfs and trimmed at both ends where it is under trimDbfs.
func utterance(ctx context.Context, tmp, text, voice string, speed int, peakDbfs, trimDbfs float64) ([]float32, error) {
	raw := filepath.Join(tmp, "utterance.wav")
	pcm := filepath.Join(tmp, "utterance.f32")
	if err := run(ctx, "espeak-ng", "-v", voice, "-s", strconv.Itoa(speed), "-w", raw, text); err != nil {
		return nil, err
	}
	// sox's silence effect keeps audio from the first point where the RMS
	// of the last 20 ms stays at or over the level for 1 ms; "reverse"
	// applies the same rule from the end.
	trim := strconv.FormatFloat(trimDbfs, 'f', 2, 64) + "d"
	if err := run(ctx, "sox", raw, "-t", "f32", "-c", "1", "-r", strconv.Itoa(SampleRate), pcm,
		"rate", "-h", strconv.Itoa(SampleRate), "norm", strconv.FormatFloat(peakDbfs, 'f', 2, 64),
		"silence", "1", "0.001", trim, "reverse", "silence", "1", "0.001", trim, "reverse"); err != nil {
		return nil, err
	}
	x, err := readF32(pcm)
	if err != nil {
		return nil, err
	}
	if len(x) == 0 {
		return nil, fmt.Errorf("utterance %q: nothing over %s", text, trim)
	}
	return x, nil
}

// noiseBed returns n samples of noise of kind ("white", "pink" or
// "brown") scaled to levelDbfs RMS. White noise is Gaussian; pink is
// white noise through Paul Kellet's weighted sum of one-pole filters
// (within 0.05 dB of -3 dB/octave above 10 Hz); brown is a bounded random
// walk (-6 dB/octave), the kind sox's synth makes.
func noiseBed(kind string, n int, levelDbfs float64, seed uint64) ([]float32, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6e6f697365)) // "noise"
	y := make([]float64, n)
	switch kind {
	case "white":
		for i := range y {
			y[i] = rng.NormFloat64()
		}
	case "pink":
		var b0, b1, b2, b3, b4, b5, b6 float64
		for i := range y {
			w := rng.NormFloat64()
			b0 = 0.99886*b0 + w*0.0555179
			b1 = 0.99332*b1 + w*0.0750759
			b2 = 0.96900*b2 + w*0.1538520
			b3 = 0.86650*b3 + w*0.3104856
			b4 = 0.55000*b4 + w*0.5329522
			b5 = -0.7616*b5 - w*0.0168980
			y[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w*0.5362
			b6 = w * 0.115926
		}
	case "brown":
		// A random walk of uniform steps, reflected at ±1: its swings stay
		// within a few dB of its RMS, unlike integrated Gaussian noise
		// whose rare slow excursions read as loud frames.
		var b float64
		for i := range y {
			b += (2*rng.Float64() - 1) / 16
			if b > 1 {
				b = 2 - b
			} else if b < -1 {
				b = -2 - b
			}
			y[i] = b
		}
	default:
		return nil, fmt.Errorf("unknown noise %q", kind)
	}
	var sum float64
	for _, v := range y {
		sum += v * v
	}
	if n == 0 || sum == 0 {
		return make([]float32, n), nil
	}
	g := math.Pow(10, levelDbfs/20) / math.Sqrt(sum/float64(n))
	out := make([]float32, n)
	for i, v := range y {
		out[i] = float32(v * g)
	}
	return out, nil
}

// encode writes x (mono) in every format as stereo and records the file
// names in t.Files.
func encode(ctx context.Context, dir, tmp string, t *Truth, x []float32, formats []string) error {
	base := filepath.Join(dir, t.Name)
	var f32 string // x as raw float for ffmpeg, written once
	for _, f := range formats {
		var name string
		switch f {
		case WAV, WAV24:
			bits, name0 := 16, t.Name+".wav"
			if f == WAV24 {
				bits, name0 = 24, t.Name+".24.wav"
			}
			name = name0
			if err := writeWAV(filepath.Join(dir, name), x, bits); err != nil {
				return err
			}
		default:
			if f32 == "" {
				f32 = filepath.Join(tmp, "mixed.f32")
				if err := writeF32(f32, x); err != nil {
					return err
				}
			}
			name = t.Name + "." + f
			in := []string{"-f", "f32le", "-ar", strconv.Itoa(SampleRate), "-ac", "1", "-i", f32}
			var args []string
			switch f {
			case MP3:
				args = append(in, "-ac", "2", "-c:a", "libmp3lame", "-b:a", "128k")
			case M4A:
				args = append(in, "-ac", "2", "-c:a", "aac", "-b:a", "128k")
			case MP4:
				args = append([]string{"-f", "lavfi", "-i", fmt.Sprintf("testsrc2=size=640x360:rate=30:duration=%.6f", t.Duration)}, in...)
				args = append(args, "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
					"-ac", "2", "-c:a", "aac", "-b:a", "128k", "-shortest")
			}
			args = append([]string{"-nostdin", "-hide_banner", "-y"}, args...)
			if err := run(ctx, "ffmpeg", append(args, base+"."+f)...); err != nil {
				return err
			}
		}
		t.Files[f] = name
	}
	return nil
}

// run runs a tool and returns its stderr's tail in the error.
func run(ctx context.Context, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, tail.Lines(stderr.String(), 3))
	}
	return nil
}

// readF32 reads raw little-endian float32 samples.
func readF32(path string) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("%s: %d bytes, not whole float32 samples", path, len(b))
	}
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x, nil
}

// writeF32 writes raw little-endian float32 samples.
func writeF32(path string, x []float32) error {
	b := make([]byte, 4*len(x))
	for i, v := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return os.WriteFile(path, b, 0o644)
}

// writeWAV writes x as a stereo PCM WAV of 16 or 24 bits, both channels
// the same, rounded without dither (digital silence stays zero).
func writeWAV(path string, x []float32, bits int) error {
	if bits != 16 && bits != 24 {
		return errors.New("writeWAV: 16 or 24 bits")
	}
	const channels = 2
	bps := bits / 8
	data := len(x) * channels * bps
	var b bytes.Buffer
	b.Grow(44 + data)
	le := binary.LittleEndian
	b.WriteString("RIFF")
	b.Write(le.AppendUint32(nil, uint32(36+data)))
	b.WriteString("WAVEfmt ")
	b.Write(le.AppendUint32(nil, 16))
	b.Write(le.AppendUint16(nil, 1)) // PCM
	b.Write(le.AppendUint16(nil, channels))
	b.Write(le.AppendUint32(nil, SampleRate))
	b.Write(le.AppendUint32(nil, uint32(SampleRate*channels*bps)))
	b.Write(le.AppendUint16(nil, uint16(channels*bps)))
	b.Write(le.AppendUint16(nil, uint16(bits)))
	b.WriteString("data")
	b.Write(le.AppendUint32(nil, uint32(data)))
	full := float64(int(1)<<(bits-1) - 1)
	var s [3]byte
	for _, v := range x {
		q := int32(math.Round(max(-1, min(1, float64(v))) * full))
		for range channels {
			if bits == 16 {
				b.Write(le.AppendUint16(nil, uint16(int16(q))))
			} else {
				s[0], s[1], s[2] = byte(q), byte(q>>8), byte(q>>16)
				b.Write(s[:])
			}
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
