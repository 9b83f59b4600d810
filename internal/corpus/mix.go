package corpus

// The real-speech test set: clean real speech from testdata/recordings mixed
// with real and generated non-speech beds at known speech-to-bed ratios,
// with the truth taken from the clean speech alone.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/go-audio/audio"
	"github.com/go-audio/wav"
)

// MixRate is the sample rate of every mix (mono, 16-bit WAV).
const MixRate = 48000

// Bed is a kind of non-speech background mixed under the speech.
type Bed string

// The beds. Vinyl, pink and music are real recordings from
// testdata/recordings (looped with a short crossfade); hum and static are
// generated; crosstalk is a second real speaker from the recordings.
const (
	BedVinyl     Bed = "vinyl"     // crackling vinyl hiss (noise_vinyl_hiss_cc0.flac)
	BedPink      Bed = "pink"      // pink noise (noise_alsa_pink_1s.wav)
	BedHum       Bed = "hum"       // 50 or 60 Hz mains hum, 12 harmonics, over a faint noise
	BedMusic     Bed = "music"     // the three music recordings, one after the other
	BedStatic    Bed = "static"    // radio static: 300-3400 Hz noise, fading, with crackles
	BedCrosstalk Bed = "crosstalk" // another real speaker (the other asterisk voice)
	// BedRadio is the static bed with the speech through a radio link's
	// band (radioChannel) and the whole mix through a receiver's
	// automatic gain control (see agcGains): the static comes up by as
	// much as agcMaxDb in pauses. Not in MixBeds: RadioCases lists its
	// cases.
	BedRadio Bed = "radio"
	// BedPhone is the crosstalk bed with both voices through a telephone
	// link's band (radioChannel): a meeting on the phone. Not in MixBeds:
	// PhoneCases lists its cases.
	BedPhone Bed = "phone"
	// BedTyping is a keyboard on a quiet desk (typing): keystrokes, each a
	// press and a softer release, in bursts, over a faint room noise: the
	// pauses of a meeting headset or a laptop microphone while the speaker
	// types. Generated: no real typing recording ships. Not in MixBeds:
	// TypingCases lists its cases.
	BedTyping Bed = "typing"
)

// MixBeds lists the beds in the order the tables show them.
func MixBeds() []Bed {
	return []Bed{BedVinyl, BedPink, BedHum, BedMusic, BedStatic, BedCrosstalk}
}

// MixSpeech lists the clean speech recordings of testdata/recordings used as
// the main speaker.
func MixSpeech() []string {
	return []string{
		"en_asterisk_allison_demo-instruct_73s.wav",
		"fr_asterisk_june_demo-instruct_71s.wav",
		"en_jfk_inaugural_11s.flac",
		"en_librispeech_5703-47212-0000.ogg",
		"en_librivox_sense_sensibility_0870.wav",
		"fr_picovoice_leopard_test_fr.wav",
	}
}

// MixSNRs lists the speech-to-bed ratios of the set, in dB. Crosstalk (and
// its phone form) uses only 15 to 25 dB (a second voice 15-25 dB under the
// main one).
func MixSNRs(b Bed) []float64 {
	if b == BedCrosstalk || b == BedPhone {
		return []float64{15, 20, 25}
	}
	return []float64{10, 15, 20, 25, 35}
}

// MixCase is one case of the real-speech set.
type MixCase struct {
	Name   string  // speech-bed-SNR, e.g. "allison-hum-20"
	Speech string  // file name in the recordings directory
	Bed    Bed     // the background
	SNRDb  float64 // active speech level over the bed's RMS level, dB
	Seed   uint64  // generated beds and offsets into real ones
	// DriftDb: the speech's level falls this much (dB) over each
	// driftSec of it (a speaker leaning away from the microphone), down
	// to at most driftMaxDb; 0: steady.
	DriftDb float64
	// TurnSec: this much of the bed alone is inserted in the speech, at
	// its quietest 10 ms within 2 s of its middle (the other speaker's
	// turn, on the crosstalk bed); 0: none.
	TurnSec float64
	// RoomRT60: the speech passes a reverberant room with this
	// reverberation time (s; see room); 0: dry.
	RoomRT60 float64
	// GainDb: the whole mix lies this much over the level its seed gives
	// (the speech at -20, -26 or -32 dBFS active; less where the mix would
	// peak over full scale, see Mix): a quiet recording or a mastered one;
	// 0: that level.
	GainDb float64
	// Offset: this constant (full scale 1) is added to every sample of the
	// mix before the dither and rounding, as an interface's DC offset
	// would be; the truth, which hears no DC, is the same; 0: none.
	Offset float64
	// LowPassHz: the speech and the bed pass a low-pass at this frequency
	// (four Butterworth sections) before the truth is taken, as a
	// recorder's anti-alias filter; 0: none.
	LowPassHz float64
	// Rate: the mix's sample rate, which divides MixRate (a recording made
	// at a telephone's or a meeting system's rate): the mix, built at
	// MixRate, is decimated, and LowPassHz must lie under half of it; 0:
	// MixRate.
	Rate int
	// FadeDb: the whole mix, speech and bed, is turned down this much at
	// its first and last samples, less and less over fadeSec from each
	// end (a raised cosine in dB), as ffmpeg's dynaudnorm with its
	// defaults leaves a file's ends (measured on the mixes: 13-15 dB under
	// the middle at the ends, half of that 5 s in); the truth, the clean
	// speech's own audible rule, is the same; 0: none.
	FadeDb float64
	// Other: a second voice (a recording's name) taking turns with the
	// speech, never at once (see ConversationCases), OtherDb quieter in
	// active level, through a room of OtherRoomRT60 (s) if over 0; the
	// truth counts both voices' audible words as speech; "": none.
	Other         string
	OtherDb       float64
	OtherRoomRT60 float64
}

// fadeSec is how far from each end FadeDb reaches.
const fadeSec = 10.0

// fadeGain returns the factor FadeDb gives sample i of n at MixRate.
func fadeGain(fadeDb float64, i, n int) float64 {
	t := float64(min(i, n-1-i)) / MixRate
	if fadeDb == 0 || t >= fadeSec {
		return 1
	}
	return math.Pow(10, -fadeDb*(1+math.Cos(math.Pi*t/fadeSec))/2/20)
}

// MixCases returns the whole set: every speech recording with every bed at
// every ratio of MixSNRs.
func MixCases() []MixCase {
	var out []MixCase
	for i, sp := range MixSpeech() {
		for j, b := range MixBeds() {
			for _, snr := range MixSNRs(b) {
				out = append(out, MixCase{
					Name:   fmt.Sprintf("%s-%s-%g", MixSpeaker(sp), b, snr),
					Speech: sp, Bed: b, SNRDb: snr,
					Seed: uint64(1000*i + 10*j),
				})
			}
		}
	}
	return out
}

// RadioCases returns the radio cases: every speech recording through a
// radio link's band over the static bed, the mix through a receiver's
// gain control, at every ratio of MixSNRs (the ratio is the one before the
// gain control). The truth is the band-limited speech's.
func RadioCases() []MixCase { return bedCases(BedRadio, 70) }

// PhoneCases returns the phone cases: every speech recording with the
// crosstalk bed, both through a telephone link's band, at every ratio of
// MixSNRs, with the seeds of the crosstalk cases of MixCases.
func PhoneCases() []MixCase {
	return bedCases(BedPhone, mixSeed(BedCrosstalk))
}

// TypingCases returns the typing cases: every speech recording over the
// typing bed at every ratio of MixSNRs (the bed's RMS, its keystrokes
// included: their 10 ms levels peak about 16 dB over it).
func TypingCases() []MixCase { return bedCases(BedTyping, 80) }

// DriftCases returns the drift cases: every speech recording over the
// pink and crosstalk beds at every ratio of MixSNRs, with the speaker's
// level falling 10 dB a minute (DriftDb), the seeds of MixCases. The ratio
// is the one to the active level of the whole drifting speech.
func DriftCases() []MixCase {
	return variants([]Bed{BedPink, BedCrosstalk}, "-drift", func(c *MixCase) { c.DriftDb = 10 })
}

// TurnCases returns the turn cases: the crosstalk cases of MixCases with a
// 20 s turn of the other speaker (TurnSec) in the middle of the speech,
// where the main speaker is silent: a close-mic track during the other
// speaker's turn.
func TurnCases() []MixCase {
	return variants([]Bed{BedCrosstalk}, "-turn", func(c *MixCase) { c.TurnSec = 20 })
}

// FadeCases returns the fade cases: the pink, hum and crosstalk cases of
// MixCases with the mix's ends turned down 14 dB (FadeDb), as ffmpeg's
// dynaudnorm leaves them.
func FadeCases() []MixCase {
	return variants([]Bed{BedPink, BedHum, BedCrosstalk}, "-fade", func(c *MixCase) { c.FadeDb = 14 })
}

// RoomCases returns the room cases: the vinyl, pink and crosstalk cases of
// MixCases with the speech through a reverberant room (RoomRT60 0.5 s, a
// meeting room). The truth is the reverberant speech's: its audible tail
// is speech.
func RoomCases() []MixCase {
	return variants([]Bed{BedVinyl, BedPink, BedCrosstalk}, "-room", func(c *MixCase) { c.RoomRT60 = 0.5 })
}

// RateCases returns cases recorded at sample rate rate: low-passed at 0.45
// rate (LowPassHz) and decimated (Rate), each named with the rate in kHz
// ("-8k").
func RateCases(cases []MixCase, rate int) []MixCase {
	out := BandCases(cases, rate)
	for i := range out {
		out[i].Name = strings.TrimSuffix(out[i].Name, "-band")
		out[i].Rate = rate
	}
	return out
}

// BandCases returns cases low-passed as RateCases's at rate but left at
// MixRate ("-8k-band"): the same signal as theirs, sampled at MixRate.
func BandCases(cases []MixCase, rate int) []MixCase {
	out := slices.Clone(cases)
	for i := range out {
		out[i].Name += fmt.Sprintf("-%gk-band", float64(rate)/1000)
		out[i].LowPassHz = 0.45 * float64(rate)
	}
	return out
}

// LevelCases returns the level cases: the vinyl, music and crosstalk
// cases of MixCases with the whole mix gainDb louder (GainDb), the seeds
// of MixCases: -20 dB puts the speech at -40 to -52 dBFS active (a
// recording made with too little gain), +10 dB at -10 to -22 dBFS (a
// mastered podcast).
func LevelCases(gainDb float64) []MixCase {
	return variants([]Bed{BedVinyl, BedMusic, BedCrosstalk}, fmt.Sprintf("-gain%+g", gainDb), func(c *MixCase) { c.GainDb = gainDb })
}

// OffsetCases returns cases with a DC offset of dc added to each mix
// (Offset), alternately dc and -dc, named with it ("-dc0.01").
func OffsetCases(cases []MixCase, dc float64) []MixCase {
	out := slices.Clone(cases)
	for i := range out {
		out[i].Offset = dc
		if i%2 == 1 {
			out[i].Offset = -dc
		}
		out[i].Name += fmt.Sprintf("-dc%g", out[i].Offset)
	}
	return out
}

// variants returns the cases of MixCases over beds (their seeds too), each
// named with suffix and changed by set.
func variants(beds []Bed, suffix string, set func(*MixCase)) []MixCase {
	var out []MixCase
	for _, b := range beds {
		for _, c := range bedCases(b, mixSeed(b)) {
			c.Name += suffix
			set(&c)
			out = append(out, c)
		}
	}
	return out
}

// mixSeed is the seed bedCases gives MixCases' cases over bed b (of
// MixBeds).
func mixSeed(b Bed) uint64 { return uint64(10 * slices.Index(MixBeds(), b)) }

// bedCases returns every speech recording over bed b at every ratio of
// MixSNRs, the i-th recording's seed 1000 i + seed.
func bedCases(b Bed, seed uint64) []MixCase {
	var out []MixCase
	for i, sp := range MixSpeech() {
		for _, snr := range MixSNRs(b) {
			out = append(out, MixCase{
				Name:   fmt.Sprintf("%s-%s-%g", MixSpeaker(sp), b, snr),
				Speech: sp, Bed: b, SNRDb: snr,
				Seed: uint64(1000*i) + seed,
			})
		}
	}
	return out
}

// MixSpeaker is the speaker's short name in case names: the recording
// name's field after the language, or the voice for the asterisk prompts
// (allison, june, jfk, librispeech, librivox, picovoice).
func MixSpeaker(file string) string {
	file = filepath.Base(file)
	f := strings.Split(strings.TrimSuffix(file, filepath.Ext(file)), "_")
	if len(f[0]) != 2 { // not lang_source_...: a corpus file's own name
		return strings.TrimSuffix(file, filepath.Ext(file))
	}
	switch {
	case len(f) > 2 && f[1] == "asterisk":
		return f[2]
	case len(f) > 1:
		return f[1]
	}
	return file
}

// MixTruth is what the clean speech of a case says: the audible speech, the
// levels the mix was made with, and the rule's threshold.
type MixTruth struct {
	Name      string     `json:"name"`
	Duration  float64    `json:"duration"`
	SpeechDb  float64    `json:"speechDb"`  // active speech RMS, dBFS (over the audible frames)
	BedDb     float64    `json:"bedDb"`     // the bed's RMS over the whole case, dBFS
	AudibleDb float64    `json:"audibleDb"` // 20 ms RMS threshold of audible speech, dBFS
	Speech    []Interval `json:"speech"`    // audible speech of the clean recording, sorted
	// Other: the spans of the other voice's turns (MixCase.Other), sorted.
	Other []Interval `json:"other,omitempty"`
}

// Truth rule (the synthetic corpus's rule carried over to real speech): a
// 10 ms frame of the clean speech is audible when its RMS over 20 ms
// (centred) reaches the highest of: its sample peak - 40 dB, its own
// noise floor (10th percentile of the 10 ms RMS levels over digital
// silence) + 6 dB, the bed's RMS + 6 dB. Speech is the runs of audible
// frames, less clicks (an audible run under 40 ms, 100 ms or more from any
// other); everything else is pause, whatever the bed holds.
const (
	truthPeakDepthDb   = 40.0
	truthFloorMarginDb = 6.0
	truthFrameSec      = 0.01
)

// Mixer builds cases from recordings looked up in a list of folders,
// decoding each recording once (with ffmpeg, to mono float at MixRate).
// Safe for concurrent use.
type Mixer struct {
	dirs []string

	mu      sync.Mutex
	decoded map[string][]float32
}

// NewMixer returns a Mixer of the recordings in dirs: a recording is read
// from the first folder that holds it (the repository's testdata/recordings,
// then the real material's recordings/, see internal/realdata).
func NewMixer(dirs ...string) *Mixer { return &Mixer{dirs: dirs, decoded: map[string][]float32{}} }

// ErrNoRecording reports that no folder of the Mixer holds a recording.
var ErrNoRecording = errors.New("corpus: recording not found")

// find returns the path of recording name in the first folder holding it.
func (m *Mixer) find(name string) (string, error) {
	for _, d := range m.dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s in %q", ErrNoRecording, name, m.dirs)
}

// Has reports whether every recording case c reads is in the Mixer's
// folders (its speech and, for the beds taken from recordings, theirs).
func (m *Mixer) Has(c MixCase) bool {
	for _, name := range c.Recordings() {
		if _, err := m.find(name); err != nil {
			return false
		}
	}
	return true
}

// ErrNoFFmpeg reports that ffmpeg, which decodes the recordings, is missing.
var ErrNoFFmpeg = errors.New("ffmpeg not found (Debian package ffmpeg)")

// load returns the recording decoded to mono float32 at MixRate.
func (m *Mixer) load(ctx context.Context, name string) ([]float32, error) {
	m.mu.Lock()
	x, ok := m.decoded[name]
	m.mu.Unlock()
	if ok {
		return x, nil
	}
	path, err := m.find(name)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		return nil, ErrNoFFmpeg
	}
	var out, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "ffmpeg", "-nostdin", "-v", "error", "-i", path,
		"-ac", "1", "-ar", fmt.Sprint(MixRate), "-f", "f32le", "-")
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("corpus: decode %s: %w: %s", name, err, stderr.String())
	}
	b := out.Bytes()
	x = make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	m.mu.Lock()
	m.decoded[name] = x
	m.mu.Unlock()
	return x, nil
}

// Mixed is a built case: the mix, mono at Rate (the case's, or MixRate),
// on the 16-bit grid (as WriteWAV writes it), and its truth.
type Mixed struct {
	Samples []float32
	Rate    int
	Truth   MixTruth
}

// Mix builds the case. The speech is scaled to an active level of -20, -26
// or -32 dBFS (by seed; plus GainDb), the bed to SNRDb under it; TPDF
// dither, then 16-bit rounding.
func (m *Mixer) Mix(ctx context.Context, c MixCase) (*Mixed, error) {
	rate := MixRate
	if c.Rate != 0 {
		if c.Rate < 0 || c.Rate > MixRate || MixRate%c.Rate != 0 {
			return nil, fmt.Errorf("corpus: %s: rate %d does not divide %d", c.Name, c.Rate, MixRate)
		}
		if c.Rate < MixRate && (c.LowPassHz <= 0 || c.LowPassHz >= float64(c.Rate)/2) {
			return nil, fmt.Errorf("corpus: %s: rate %d needs a low-pass under %d Hz", c.Name, c.Rate, c.Rate/2)
		}
		rate = c.Rate
	}
	clean, err := m.speech(ctx, c.Speech)
	if err != nil {
		return nil, err
	}
	var tk *talk
	if c.Other != "" {
		if tk, err = m.conversation(ctx, c, clean); err != nil {
			return nil, err
		}
		clean = tk.x
	}
	if c.Bed == BedRadio || c.Bed == BedPhone {
		clean = radioChannel(clean)
	}
	if c.DriftDb != 0 {
		clean = drift(clean, c.DriftDb)
	}
	if c.TurnSec > 0 {
		clean = turn(clean, c.TurnSec)
	}
	if c.RoomRT60 > 0 {
		clean = room(clean, c.RoomRT60)
	}
	if c.LowPassHz > 0 {
		clean = lowPass(clean, c.LowPassHz)
	}
	n := len(clean)
	fl := MixRate / 100
	nf := (n + fl - 1) / fl
	ms := frameMS(clean, fl, nf)

	// The clean recording's own audible rule (without the bed) gives the
	// active speech level.
	peak := 0.0
	for _, v := range clean {
		peak = max(peak, math.Abs(float64(v)))
	}
	peakDb := db20(peak)
	floorDb := floorOf(ms)
	thr := max(peakDb-truthPeakDepthDb, floorDb+truthFloorMarginDb)
	thrAt := func(int) float64 { return thr }
	if tk != nil {
		thrAt = tk.thrAt
	}
	ms20 := window20(ms)
	var sum float64
	cnt := 0
	for i, v := range ms20 {
		if db10(v) >= thrAt(i) {
			sum += ms[i]
			cnt++
		}
	}
	if cnt == 0 {
		return nil, fmt.Errorf("corpus: %s has no audible speech", c.Speech)
	}
	activeDb := db10(sum / float64(cnt))
	r := rand.New(rand.NewPCG(c.Seed, 0x6d6978))
	target := []float64{-20, -26, -32}[c.Seed%3] + c.GainDb
	gain := math.Pow(10, (target-activeDb)/20)

	bed, err := m.bed(ctx, c, n, r)
	if err != nil {
		return nil, err
	}
	if c.LowPassHz > 0 {
		bed = lowPass(bed, c.LowPassHz)
	}
	var bsq float64
	for _, v := range bed {
		bsq += float64(v) * float64(v)
	}
	bedRMSDb := db10(bsq / float64(n))
	bedGain := math.Pow(10, (target-c.SNRDb-bedRMSDb)/20)

	// The radio bed: the whole mix through the receiver's gain control,
	// agc[i] the gain (a factor) of sample i, agcF[f] the gain (dB) of
	// frame f.
	var agc []float64
	var agcF []float64
	if c.Bed == BedRadio {
		pre := make([]float32, n)
		for i := range n {
			pre[i] = float32(float64(clean[i])*gain + float64(bed[i])*bedGain)
		}
		agcF = agcGains(pre, target)
		agc = agcSamples(agcF, n)
	}
	at := func(i int) float64 {
		if agc == nil {
			return 1
		}
		return agc[i]
	}

	// A bed with a high crest (crackles) may peak over full scale: then the
	// whole mix goes down, speech and bed together.
	mpeak := 0.0
	for i := range n {
		mpeak = max(mpeak, math.Abs((float64(clean[i])*gain+float64(bed[i])*bedGain)*at(i)))
	}
	if mpeak > 0.9 {
		down := 0.9 / mpeak
		gain, bedGain, target = gain*down, bedGain*down, target+20*math.Log10(down)
	}
	// Every k-th sample: at rate (both parts low-passed).
	k := MixRate / rate
	mix := make([]float32, 0, (n+k-1)/k)
	var bsq2 float64 // the bed's power after the gain control
	for i := range n {
		a := at(i)
		b := float64(bed[i]) * bedGain * a
		bsq2 += b * b
		if i%k == 0 {
			v := (float64(clean[i])*gain+float64(bed[i])*bedGain)*a*fadeGain(c.FadeDb, i, n) + c.Offset
			mix = append(mix, float32(max(-32768, min(32767, math.Round(v*32768+r.Float64()-r.Float64())))/32768))
		}
	}
	g := 20 * math.Log10(gain)
	bedDb := target - c.SNRDb
	if agc != nil {
		bedDb = db10(bsq2 / float64(n))
	}
	tr := MixTruth{
		Name:      c.Name,
		Duration:  float64(n) / MixRate,
		SpeechDb:  target,
		BedDb:     bedDb,
		AudibleDb: max(thr+g, bedDb+truthFloorMarginDb),
	}
	if tk != nil {
		tr.Other = tk.spans
	}
	if agc == nil && tk == nil {
		tr.Speech = dropClicks(runsOver(ms20, tr.AudibleDb-g, n))
	} else {
		// The speech's own rule moves with the gain; the bed's is its RMS
		// after the gain control, as for every bed: per frame, the clean
		// speech's 20 ms level is compared in the clean recording's scale
		// (in a conversation, against the threshold of the voice whose
		// turn it is).
		rel := make([]float64, len(ms20))
		for f, v := range ms20 {
			up := 0.0
			if agc != nil {
				up = agcF[f]
			}
			rel[f] = v / math.Pow(10, max(thrAt(f), bedDb+truthFloorMarginDb-g-up)/10)
		}
		tr.Speech = dropClicks(runsOver(rel, 0, n))
	}

	return &Mixed{Samples: mix, Rate: rate, Truth: tr}, nil
}

// lowPass returns x through a low-pass at fc (four Butterworth sections at
// MixRate), as a recorder at a lower rate filters it.
func lowPass(x []float32, fc float64) []float32 {
	return cascade(x, newBiquadLP(fc), newBiquadLP(fc), newBiquadLP(fc), newBiquadLP(fc))
}

// cascade returns x through the sections fs, one after the other.
func cascade(x []float32, fs ...*section) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		y := float64(v)
		for _, f := range fs {
			y = f.run(y)
		}
		out[i] = float32(y)
	}
	return out
}

// The receiver's automatic gain control of the radio bed: it raises the
// programme where it falls under the speech's active level, so in a pause
// it brings the static up, by at most agcMaxDb, over agcReleaseSec (the
// noise "breathes" up between words), and takes it back down to no gain
// within agcAttackSec when speech comes back. The level it follows is the
// mix's 10 ms RMS with an instant rise and an agcHoldSec fall (so that it
// does not pump inside a word).
const (
	agcMaxDb      = 10.0
	agcReleaseSec = 0.5
	agcAttackSec  = 0.02
	agcHoldSec    = 0.3
)

// agcGains returns the gain control's gain (dB, 0 to agcMaxDb) for each
// 10 ms frame of x, raising what falls under targetDb towards it.
func agcGains(x []float32, targetDb float64) []float64 {
	fl := MixRate / 100
	nf := (len(x) + fl - 1) / fl
	ms := frameMS(x, fl, nf)
	out := make([]float64, nf)
	env, cur := math.Inf(-1), 0.0
	fall := 1 - math.Exp(-truthFrameSec/agcHoldSec)
	for f, v := range ms {
		l := db10(v)
		if l > env || math.IsInf(env, -1) {
			env = l
		} else {
			env += (l - env) * fall
		}
		want := min(max(targetDb-env, 0), agcMaxDb)
		tau := agcReleaseSec
		if want < cur {
			tau = agcAttackSec
		}
		cur += (want - cur) * (1 - math.Exp(-truthFrameSec/tau))
		out[f] = cur
	}
	return out
}

// agcSamples spreads the frame gains (dB) over n samples as factors, each
// frame's gain reached at its start and interpolated linearly (in dB) to
// the next.
func agcSamples(gf []float64, n int) []float64 {
	fl := MixRate / 100
	out := make([]float64, n)
	for i := range out {
		f := i / fl
		v := gf[f]
		if f+1 < len(gf) {
			w := float64(i%fl) / float64(fl)
			v = v*(1-w) + gf[f+1]*w
		}
		out[i] = math.Pow(10, v/20)
	}
	return out
}

// Pause stretching: the recordings' own pauses are mostly under 0.6 s
// (read prompts and speeches), too few to measure pause removal on. So each
// natural pause of at least stretchMinSec (between audible runs of the clean
// recording, by the truth rule) is lengthened to a length drawn from
// stretchLens (seeded by the file name) by repeating its own middle, the
// recording's room tone, with 10 ms crossfades. A pause drawn shorter than
// it is left as it is. The speech itself is untouched.
const stretchMinSec = 0.2

var stretchLens = []float64{0.4, 0.7, 1.0, 1.5, 2.5}

// speechEnd cuts a recording where its speech ends: after the last word
// of the inaugural address the crowd starts to cheer (from 10.42 s), which
// is not speech.
var speechEnd = map[string]float64{"en_jfk_inaugural_11s.flac": 10.42}

// speech returns the main speaker's recording with its pauses stretched.
func (m *Mixer) speech(ctx context.Context, name string) ([]float32, error) {
	key := "stretched:" + name
	m.mu.Lock()
	x, ok := m.decoded[key]
	m.mu.Unlock()
	if ok {
		return x, nil
	}
	raw, err := m.load(ctx, name)
	if err != nil {
		return nil, err
	}
	if end, ok := speechEnd[name]; ok && int(end*MixRate) < len(raw) {
		raw = raw[:int(end*MixRate)]
	}
	fl := MixRate / 100
	nf := (len(raw) + fl - 1) / fl
	ms := frameMS(raw, fl, nf)
	peak := 0.0
	for _, v := range raw {
		peak = max(peak, math.Abs(float64(v)))
	}
	thr := max(db20(peak)-truthPeakDepthDb, floorOf(ms)+truthFloorMarginDb)
	runs := runsOver(window20(ms), thr, len(raw))
	var seed uint64
	for _, b := range []byte(name) {
		seed = seed*131 + uint64(b)
	}
	r := rand.New(rand.NewPCG(seed, 0x7374))
	const xf = MixRate / 100 // crossfade
	out := make([]float32, 0, 2*len(raw))
	pos := 0
	for k := 1; k < len(runs); k++ {
		g0, g1 := int(runs[k-1].End*MixRate), int(runs[k].Start*MixRate)
		want := int(stretchLens[r.IntN(len(stretchLens))] * MixRate)
		if float64(g1-g0)/MixRate < stretchMinSec || want <= g1-g0 {
			continue
		}
		// The room tone: the pause less 50 ms at each end.
		tone := raw[g0+MixRate/20 : g1-MixRate/20]
		mid := (g0 + g1) / 2
		out = append(out, raw[pos:mid]...)
		for add := want - (g1 - g0); add > 0; {
			t := len(out) - xf
			for i := 0; i < xf; i++ {
				w := float32(i) / xf
				out[t+i] = out[t+i]*(1-w) + tone[i]*w
			}
			take := min(len(tone)-xf, add)
			out = append(out, tone[xf:xf+take]...)
			add -= take
		}
		// Back into the recording at its middle.
		t := len(out) - xf
		for i := 0; i < xf; i++ {
			w := float32(i) / xf
			out[t+i] = out[t+i]*(1-w) + raw[mid-xf+i]*w
		}
		pos = mid
	}
	out = append(out, raw[pos:]...)
	m.mu.Lock()
	m.decoded[key] = out
	m.mu.Unlock()
	return out, nil
}

// bedRecordings returns the recordings case c's bed is made of (none for
// a generated bed).
func bedRecordings(c MixCase) []string {
	switch c.Bed {
	case BedVinyl:
		return []string{"noise_vinyl_hiss_cc0.flac"}
	case BedPink:
		return []string{"noise_alsa_pink_1s.wav"}
	case BedMusic:
		return []string{"music_kevin_macleod_vibe_ace_ccby.ogg", "music_brahms_hungarian_dance5_pd.ogg", "music_loop_garzul_cc0.flac"}
	case BedCrosstalk, BedPhone:
		other := "fr_asterisk_june_demo-instruct_71s.wav"
		if c.Speech == other {
			other = "en_asterisk_allison_demo-instruct_73s.wav"
		}
		return []string{other}
	}
	return nil
}

// Recordings returns the recordings case c is built from: its speech,
// then its bed's.
func (c MixCase) Recordings() []string {
	out := []string{c.Speech}
	if c.Other != "" {
		out = append(out, c.Other)
	}
	return append(out, bedRecordings(c)...)
}

// bed returns n samples of the case's bed at any level (Build scales it).
func (m *Mixer) bed(ctx context.Context, c MixCase, n int, r *rand.Rand) ([]float32, error) {
	files := bedRecordings(c)
	switch c.Bed {
	case BedVinyl, BedPink:
		x, err := m.load(ctx, files[0])
		return loopTo(x, n, r), err
	case BedMusic:
		var all []float32
		for _, f := range files {
			x, err := m.load(ctx, f)
			if err != nil {
				return nil, err
			}
			all = append(all, trimSilence(x)...)
		}
		return loopTo(all, n, r), nil
	case BedCrosstalk, BedPhone:
		x, err := m.load(ctx, files[0])
		if err != nil {
			return nil, err
		}
		x = loopTo(x, n, r)
		if c.Bed == BedPhone {
			x = radioChannel(x)
		}
		return x, nil
	case BedHum:
		return hum(n, c.Seed, r), nil
	case BedStatic, BedRadio:
		return static(n, r), nil
	case BedTyping:
		return typing(n, r), nil
	}
	return nil, fmt.Errorf("corpus: unknown bed %q", c.Bed)
}

// loopTo repeats x from a random offset to n samples, crossfading 50 ms
// at each seam.
func loopTo(x []float32, n int, r *rand.Rand) []float32 {
	const fade = MixRate / 20
	if len(x) <= 2*fade {
		return make([]float32, n)
	}
	out := make([]float32, 0, n+len(x))
	out = append(out, x[r.IntN(len(x)-fade):]...)
	for len(out) < n {
		t := len(out) - fade
		for k := 0; k < fade; k++ {
			w := float32(k) / fade
			out[t+k] = out[t+k]*(1-w) + x[k]*w
		}
		out = append(out, x[fade:]...)
	}
	return out[:n]
}

// trimSilence drops the digitally silent lead and tail of a recording.
func trimSilence(x []float32) []float32 {
	a, b := 0, len(x)
	for a < b && math.Abs(float64(x[a])) < 1e-4 {
		a++
	}
	for b > a && math.Abs(float64(x[b-1])) < 1e-4 {
		b--
	}
	return x[a:b]
}

// hum is mains hum: 50 Hz (even seeds) or 60 Hz, harmonics 1-12 at 1/k^0.7
// with random phases, a slow +-1 dB wobble, over pink-ish noise 30 dB under
// it.
func hum(n int, seed uint64, r *rand.Rand) []float32 {
	f0 := 50.0
	if seed%2 == 1 {
		f0 = 60
	}
	var ph [12]float64
	for k := range ph {
		ph[k] = r.Float64() * 2 * math.Pi
	}
	out := make([]float32, n)
	noise := pink(n, r)
	for i := range out {
		t := float64(i) / MixRate
		v := 0.0
		for k := 1; k <= 12; k++ {
			v += math.Pow(float64(k), -0.7) * math.Sin(2*math.Pi*f0*float64(k)*t+ph[k-1])
		}
		v *= math.Pow(10, 0.05*math.Sin(2*math.Pi*0.13*t))
		out[i] = float32(0.5*v) + 0.5*0.0316*noise[i]
	}
	return out
}

// pink returns n samples of pink noise of about unit RMS (Paul Kellet's
// filter on white noise).
func pink(n int, r *rand.Rand) []float32 {
	out := make([]float32, n)
	var b0, b1, b2, b3, b4, b5, b6 float64
	for i := range out {
		w := r.NormFloat64()
		b0 = 0.99886*b0 + w*0.0555179
		b1 = 0.99332*b1 + w*0.0750759
		b2 = 0.96900*b2 + w*0.1538520
		b3 = 0.86650*b3 + w*0.3104856
		b4 = 0.55000*b4 + w*0.5329522
		b5 = -0.7616*b5 - w*0.0168980
		out[i] = float32((b0 + b1 + b2 + b3 + b4 + b5 + b6 + w*0.5362) * 0.11)
		b6 = w * 0.115926
	}
	return out
}

// static is radio static: white noise band-passed to 300-3400 Hz, faded
// by a slow random gain (about +-4 dB at 0.3-3 Hz), with crackles (about 15
// a second, 1-3 ms decays, up to 15 dB over the hiss).
func static(n int, r *rand.Rand) []float32 {
	hp := newBiquadHP(300)
	lp := newBiquadLP(3400)
	lp2 := newBiquadLP(3400)
	out := make([]float32, n)
	fade, fadeTarget := 0.0, 0.0
	crack, crackDecay := 0.0, 0.0
	for i := range out {
		if i%(MixRate/3) == 0 {
			fadeTarget = 4 * (2*r.Float64() - 1)
		}
		fade += (fadeTarget - fade) / (0.3 * MixRate)
		v := lp2.run(lp.run(hp.run(r.NormFloat64())))
		if r.Float64() < 15.0/MixRate {
			crack = (2*r.Float64() - 1) * math.Pow(10, (5+10*r.Float64())/20) * 3
			crackDecay = math.Exp(-1 / ((0.001 + 0.002*r.Float64()) * MixRate))
		}
		v += crack * r.NormFloat64() * 0.5
		crack *= crackDecay
		out[i] = float32(v * math.Pow(10, fade/20))
	}
	return out
}

// typing returns n samples of the typing bed: keystrokes in words of 2 to
// 7 keys, 100-250 ms apart, the words 150-400 ms apart, with a pause of 1-3
// s after one word in seven, over pink noise at typingFloorDb. A keystroke is a click (noise through 1.2-6 kHz,
// decaying in 2-6 ms) over a thump (a 120-250 Hz tone decaying in 8-15 ms),
// its level within ±4 dB of the others, and a release at 0.4 of its
// amplitude 60-120 ms later.
func typing(n int, r *rand.Rand) []float32 {
	out := make([]float32, n)
	floor := math.Pow(10, typingFloorDb/20)
	for i, v := range pink(n, r) {
		out[i] = float32(floor) * v
	}
	hp, lp := newBiquadHP(1200), newBiquadLP(6000)
	key := func(at int, amp float64) {
		tau := (0.002 + 0.004*r.Float64()) * MixRate
		ttau := (0.008 + 0.007*r.Float64()) * MixRate
		f := 120 + 130*r.Float64()
		for k := 0; k < int(6*max(tau, ttau)) && at+k < n; k++ {
			click := lp.run(hp.run(r.NormFloat64())) * math.Exp(-float64(k)/tau)
			thump := 0.5 * math.Sin(2*math.Pi*f*float64(k)/MixRate) * math.Exp(-float64(k)/ttau)
			out[at+k] += float32(amp * (click + thump))
		}
	}
	sec := func(lo, hi float64) int { return int((lo + (hi-lo)*r.Float64()) * MixRate) }
	for t := sec(0, 1); t < n; {
		for k := 2 + r.IntN(6); k > 0 && t < n; k-- {
			amp := math.Pow(10, (8*r.Float64()-4)/20)
			key(t, amp)
			if rel := t + sec(0.06, 0.12); rel < n {
				key(rel, 0.4*amp)
			}
			t += sec(0.1, 0.25)
		}
		t += sec(0.15, 0.4)
		if r.IntN(7) == 0 {
			t += sec(1, 3)
		}
	}
	return out
}

// typingFloorDb is the typing bed's room noise (pink noise's RMS against
// a keystroke's amplitude of 1): about 39 dB under the bed's RMS.
const typingFloorDb = -50.0

// The drift cases' fall of level: DriftDb per driftSec, linear in dB, at
// most driftMaxDb.
const (
	driftSec   = 60.0
	driftMaxDb = 12.0
)

// drift returns a copy of x whose level falls by db every driftSec (at
// most driftMaxDb).
func drift(x []float32, db float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		fall := min(db*float64(i)/(driftSec*MixRate), driftMaxDb)
		out[i] = v * float32(math.Pow(10, -fall/20))
	}
	return out
}

// The room of the room cases (room): a Schroeder reverberator, its output
// added roomWetDb under the direct sound's RMS level.
const (
	roomWetDb    = -6.0
	roomAllpassG = 0.5
)

// room returns x through the room with reverberation time rt60 (s): four
// parallel feedback combs, each losing 60 dB in rt60, then two allpasses
// in series (the delays of Freeverb's first combs and allpasses at 44.1
// kHz, scaled to MixRate).
func room(x []float32, rt60 float64) []float32 {
	combs := [...]int{1557, 1617, 1491, 1422}
	allpasses := [...]int{225, 556}
	sc := float64(MixRate) / 44100
	wet := make([]float64, len(x))
	for _, d0 := range combs {
		d := int(float64(d0) * sc)
		g := math.Pow(10, -3*float64(d)/MixRate/rt60)
		buf := make([]float64, d)
		for i, v := range x {
			y := buf[i%d]
			buf[i%d] = float64(v) + g*y
			wet[i] += y / float64(len(combs))
		}
	}
	for _, d0 := range allpasses {
		d := int(float64(d0) * sc)
		buf := make([]float64, d)
		for i, w := range wet {
			y := -roomAllpassG*w + buf[i%d]
			buf[i%d] = w + roomAllpassG*y
			wet[i] = y
		}
	}
	var ed, ew float64
	for i, v := range x {
		ed += float64(v) * float64(v)
		ew += wet[i] * wet[i]
	}
	out := make([]float32, len(x))
	if ew == 0 {
		copy(out, x)
		return out
	}
	gw := math.Sqrt(ed/ew) * math.Pow(10, roomWetDb/20)
	for i, v := range x {
		out[i] = float32(float64(v) + gw*wet[i])
	}
	return out
}

// turn returns x with sec seconds of silence inserted at its quietest 10
// ms frame within 2 s of its middle.
func turn(x []float32, sec float64) []float32 {
	fl := MixRate / 100
	at, best := len(x)/2, math.Inf(1)
	for c := max(len(x)/2-2*MixRate, 0); c+fl <= min(len(x)/2+2*MixRate, len(x)); c += fl {
		e := 0.0
		for _, v := range x[c : c+fl] {
			e += float64(v) * float64(v)
		}
		if e < best {
			at, best = c, e
		}
	}
	out := make([]float32, 0, len(x)+int(sec*MixRate))
	out = append(out, x[:at]...)
	out = append(out, make([]float32, int(sec*MixRate))...)
	return append(out, x[at:]...)
}

// radioChannel passes speech through a radio or telephone link's band,
// the static's: 300-3400 Hz, two Butterworth sections on each side.
func radioChannel(x []float32) []float32 {
	return cascade(x, newBiquadHP(300), newBiquadHP(300), newBiquadLP(3400), newBiquadLP(3400))
}

// section is a filter section with its history.
type section struct {
	q dsp.Biquad
	s [4]float64
}

func (f *section) run(x float64) float64 { return f.q.Step(&f.s, x) }

// newBiquadLP and newBiquadHP are Butterworth sections (Q 1/sqrt 2) at
// MixRate.
func newBiquadLP(fc float64) *section { return &section{q: dsp.LowPass(fc, math.Sqrt2/2, MixRate)} }

func newBiquadHP(fc float64) *section { return &section{q: dsp.HighPass(fc, math.Sqrt2/2, MixRate)} }

// frameMS returns the mean square of each 10 ms frame.
func frameMS(x []float32, fl, nf int) []float64 {
	ms := make([]float64, nf)
	for f := range ms {
		s := 0.0
		seg := x[f*fl : min((f+1)*fl, len(x))]
		for _, v := range seg {
			s += float64(v) * float64(v)
		}
		ms[f] = s / float64(len(seg))
	}
	return ms
}

// window20 returns the mean square over 20 ms centred on each frame.
func window20(ms []float64) []float64 {
	out := make([]float64, len(ms))
	for i := range ms {
		l, r := ms[i], ms[i]
		if i > 0 {
			l = ms[i-1]
		}
		if i+1 < len(ms) {
			r = ms[i+1]
		}
		out[i] = ms[i]/2 + (l+r)/4
	}
	return out
}

// floorOf is the 10th percentile of the frame levels over digital silence.
func floorOf(ms []float64) float64 {
	var lv []float64
	for _, v := range ms {
		if d := db10(v); d > -100 {
			lv = append(lv, d)
		}
	}
	if len(lv) == 0 {
		return -120
	}
	sort.Float64s(lv)
	return lv[len(lv)/10]
}

// Clicks: an audible run shorter than clickMaxSec standing at least
// clickGapSec from any other (a lip smack, a click of the tongue or the
// recorder) is not speech: no phone is that short on its own.
const (
	clickMaxSec = 0.04
	clickGapSec = 0.1
)

// dropClicks removes the clicks from runs.
func dropClicks(runs []Interval) []Interval {
	var out []Interval
	for i, r := range runs {
		// Frame times are multiples of 10 ms in floating point: a gap of
		// exactly clickGapSec may come out a hair under it (2.09 - 1.99).
		before := i == 0 || r.Start-runs[i-1].End >= clickGapSec-1e-9
		after := i == len(runs)-1 || runs[i+1].Start-r.End >= clickGapSec-1e-9
		if r.Len() < clickMaxSec-1e-9 && before && after {
			continue
		}
		out = append(out, r)
	}
	return out
}

// runsOver returns the runs of frames whose level reaches thrDb, in
// seconds, the last clamped to n samples.
func runsOver(ms []float64, thrDb float64, n int) []Interval {
	var out []Interval
	start := -1
	dur := float64(n) / MixRate
	for i := 0; i <= len(ms); i++ {
		on := i < len(ms) && db10(ms[i]) >= thrDb
		if on && start < 0 {
			start = i
		}
		if !on && start >= 0 {
			out = append(out, Interval{Start: float64(start) * truthFrameSec, End: min(float64(i)*truthFrameSec, dur)})
			start = -1
		}
	}
	return out
}

func db10(ms float64) float64 {
	if ms <= 1e-12 {
		return -120
	}
	return 10 * math.Log10(ms)
}

func db20(a float64) float64 {
	if a <= 1e-6 {
		return -120
	}
	return 20 * math.Log10(a)
}

// WriteWAV writes the mix as mono 16-bit PCM at its rate.
func (x *Mixed) WriteWAV(path string) error {
	rate := x.Rate
	if rate == 0 {
		rate = MixRate
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	ib := &audio.IntBuffer{Format: &audio.Format{NumChannels: 1, SampleRate: rate}, SourceBitDepth: 16, Data: make([]int, len(x.Samples))}
	for i, v := range x.Samples {
		ib.Data[i] = int(math.Round(float64(v) * 32768))
	}
	e := wav.NewEncoder(f, rate, 16, 1, 1)
	if err := e.Write(ib); err != nil {
		f.Close()
		return fmt.Errorf("corpus: write %s: %w", path, err)
	}
	if err := e.Close(); err != nil {
		f.Close()
		return fmt.Errorf("corpus: write %s: %w", path, err)
	}
	return f.Close()
}

// MixScore is how a plan fares on a case of the real-speech set.
type MixScore struct {
	RemovableSec   float64 // pause time a plan may remove: each pause of at least minSilence, less keepSilence
	CutSec         float64 // of that, how much the cuts remove
	RemovedPct     float64 // CutSec / RemovableSec, percent (100 when nothing is removable)
	ClippedMs      float64 // audible speech the cuts remove
	OtherClippedMs float64 // of that, the other voice's (MixCase.Other) words
	BoundaryP95    float64 // ms, 95th percentile of |cut edge - ideal edge| over the pauses cut
	Pauses         int     // removable pauses
	PausesCut      int     // of those, how many a cut overlaps
	// Edges are the signed edge errors, ms, in pause order: positive
	// when the cut edge lies further into the pause than the ideal one
	// (more kept), negative when it lies towards the speech.
	Edges []float64
}

// ScoreMix scores cuts against the truth for a plan made with minSilence
// (s) and keepSilence (ms). A pause is a gap of at least minSilence between
// audible speech (or before the first or after the last); its removable
// part leaves keepSilence/2 next to the speech on each side (all of it
// next to the speech at a file edge), and the ideal cut edges are the
// removable part's edges. Credit per pause is capped at its removable
// length, so a cut into speech earns nothing (it is counted as clipped).
func ScoreMix(tr MixTruth, cuts []Interval, minSilence, keepMs float64) MixScore {
	keep := keepMs / 1000
	var pauses []Interval
	pos := 0.0
	for _, s := range tr.Speech {
		if s.Start > pos {
			pauses = append(pauses, Interval{Start: pos, End: s.Start})
		}
		pos = s.End
	}
	if pos < tr.Duration {
		pauses = append(pauses, Interval{Start: pos, End: tr.Duration})
	}
	var sc MixScore
	var edges []float64
	for _, p := range pauses {
		if p.Len() < minSilence-1e-9 {
			continue
		}
		atStart, atEnd := p.Start <= 0, p.End >= tr.Duration-1e-9
		a, b := p.Start+keep/2, p.End-keep/2
		switch {
		case atStart && atEnd:
			a, b = 0, tr.Duration
		case atStart:
			a, b = 0, p.End-keep
		case atEnd:
			a, b = p.Start+keep, tr.Duration
		}
		if b <= a {
			continue
		}
		sc.Pauses++
		sc.RemovableSec += b - a
		got := 0.0
		var best Interval
		for _, c := range cuts {
			o := overlap(c, Interval{Start: a, End: b})
			got += o
			if o > overlap(best, Interval{Start: a, End: b}) {
				best = c
			}
		}
		sc.CutSec += min(got, b-a)
		if best.Len() > 0 {
			sc.PausesCut++
			if !atStart {
				edges = append(edges, math.Abs(best.Start-a))
				sc.Edges = append(sc.Edges, 1000*(best.Start-a))
			}
			if !atEnd {
				edges = append(edges, math.Abs(best.End-b))
				sc.Edges = append(sc.Edges, 1000*(b-best.End))
			}
		}
	}
	for _, c := range cuts {
		for _, s := range tr.Speech {
			sc.ClippedMs += overlap(c, s) * 1000
			for _, o := range tr.Other {
				if o.Start < s.End && s.Start < o.End {
					sc.OtherClippedMs += overlap(c, Interval{Start: max(o.Start, s.Start), End: min(o.End, s.End)}) * 1000
				}
			}
		}
	}
	sc.RemovedPct = 100
	if sc.RemovableSec > 0 {
		sc.RemovedPct = 100 * sc.CutSec / sc.RemovableSec
	}
	if len(edges) > 0 {
		sc.BoundaryP95 = 1000 * P95(edges)
	}
	return sc
}
