package corpus

// Conditions: what happens to a recording between the microphone and
// autocut (a lossy codec, an overdriven recorder, a broadcast chain's
// compressor), applied to a built mix. The truth stays the mix's: a codec
// or a processor changes what the file holds, not where the speech is.

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
)

// Condition is one way a mix is processed into a file autocut reads.
type Condition struct {
	// Name is the condition's short name, in file names and tables
	// ("mp3-64k").
	Name string
	// Ext is the processed file's extension, with its dot (".mp3"): it
	// decides the container ffmpeg writes.
	Ext string
	// DriveDb: the mix is raised by this much and hard-clipped at full
	// scale before anything else (an overdriven recorder); 0: not.
	DriveDb float64
	// CompDb: the mix passes a compressor (ffmpeg's acompressor) whose
	// threshold lies this far under the case's active speech level
	// (MixTruth.SpeechDb), with compRatio and a make-up gain that brings
	// the active speech level back where it was: the pauses' bed comes
	// up by about CompDb (1 - 1/compRatio); 0: no compressor.
	CompDb float64
	// FFmpeg are the output options of the ffmpeg run that writes the
	// file from the mix (codec, bit rate, channels, rate, filters); nil
	// with Ext ".wav": the mix as 16-bit PCM, as it is (after DriveDb).
	FFmpeg []string
	// BreathDb: a breath blast on the microphone (Breath) starts with every
	// other speech run of the truth, this far over the active speech level
	// (MixTruth.SpeechDb) in RMS at the burst's middle; 0: none.
	BreathDb float64
}

// Breath blasts (BreathDb): breath or wind on a close microphone, a burst
// of breathHz, so low that the rumble filter of every preset takes it out,
// lasting breathSec under a Hann window from the run's start. The truth
// is the clean voice's: a blast is no speech.
const (
	breathHz  = 35.0
	breathSec = 0.25
)

// Breath returns the condition of breath blasts on the microphone: a
// speaker with a cold whose every other phrase opens with a 35 Hz blast
// db over the speech level (RMS, at its middle; the sum clipped at full
// scale), written as 16-bit PCM. It is not among Conditions: the plan
// measures it apart (plan's TestBreathMix, at 15 and 25 dB).
func Breath(db float64) Condition {
	return Condition{Name: fmt.Sprintf("breath+%g", db), Ext: ".wav", BreathDb: db}
}

// The compressor of CompDb: a broadcast chain's, fast enough to act
// within words.
const (
	compRatio     = 4.0
	compAttackMs  = 5.0
	compReleaseMs = 100.0
)

// Conditions returns the conditions of the codec set, in the order the
// tables show them: MP3 at 64 kbit/s mono and at 128 kbit/s stereo (44.1
// kHz, libmp3lame), AAC at 64 kbit/s mono in an MP4 (.m4a, 44.1 kHz,
// ffmpeg's own encoder), Opus at 24 kbit/s for voice (.opus, libopus's
// voip mode: a voice note), the mix driven 12 dB into a hard clip, a
// compressor 10 dB under the speech level (4:1, the pauses' bed up 7.5 dB)
// and ffmpeg's dynamic normaliser with its defaults (dynaudnorm: up to 20
// dB of gain, smoothed over 15 s, which ffmpeg 5.1 ramps from no gain at
// the input's start and back to none at its end).
func Conditions() []Condition {
	return []Condition{
		{Name: "mp3-64k", Ext: ".mp3", FFmpeg: []string{"-ac", "1", "-ar", "44100", "-c:a", "libmp3lame", "-b:a", "64k"}},
		{Name: "mp3-128k", Ext: ".mp3", FFmpeg: []string{"-ac", "2", "-ar", "44100", "-c:a", "libmp3lame", "-b:a", "128k"}},
		{Name: "aac-64k", Ext: ".m4a", FFmpeg: []string{"-ac", "1", "-ar", "44100", "-c:a", "aac", "-b:a", "64k"}},
		{Name: "opus-24k", Ext: ".opus", FFmpeg: []string{"-ac", "1", "-c:a", "libopus", "-b:a", "24k", "-application", "voip"}},
		{Name: "clip+12", Ext: ".wav", DriveDb: 12},
		{Name: "comp", Ext: ".wav", CompDb: 10, FFmpeg: []string{"-c:a", "pcm_s16le"}},
		{Name: "norm", Ext: ".wav", FFmpeg: []string{"-af", "dynaudnorm", "-c:a", "pcm_s16le"}},
	}
}

// LookupCondition returns the condition of Conditions called name.
func LookupCondition(name string) (Condition, error) {
	for _, c := range Conditions() {
		if c.Name == name {
			return c, nil
		}
	}
	return Condition{}, fmt.Errorf("corpus: no condition %q", name)
}

// Apply writes mix x under condition c into dir (as NAME-CONDITION and
// c.Ext, NAME the truth's case name) and returns the file's path. It runs
// ffmpeg (ErrNoFFmpeg when it is missing) unless c only drives the mix
// into a clip.
func (c Condition) Apply(ctx context.Context, x *Mixed, dir string) (string, error) {
	y := x
	if c.BreathDb != 0 {
		y = breathed(y, c.BreathDb)
	}
	if c.DriveDb != 0 {
		y = clipped(y, c.DriveDb)
	}
	out := filepath.Join(dir, x.Truth.Name+"-"+c.Name+c.Ext)
	if c.FFmpeg == nil && c.CompDb == 0 {
		if c.Ext != ".wav" {
			return "", fmt.Errorf("corpus: condition %s: no ffmpeg options for %s", c.Name, c.Ext)
		}
		return out, y.WriteWAV(out)
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		return "", ErrNoFFmpeg
	}
	in := filepath.Join(dir, x.Truth.Name+"-"+c.Name+".in.wav")
	if err := y.WriteWAV(in); err != nil {
		return "", err
	}
	defer os.Remove(in)
	args := []string{"-nostdin", "-v", "error", "-y", "-i", in}
	if c.CompDb != 0 {
		thr := x.Truth.SpeechDb - c.CompDb
		// Over the threshold, the active level comes out CompDb/ratio
		// over it: make-up brings it back to the active level.
		makeup := c.CompDb * (1 - 1/compRatio)
		args = append(args, "-af", fmt.Sprintf("acompressor=threshold=%s:ratio=%g:attack=%g:release=%g:makeup=%s",
			strconv.FormatFloat(math.Pow(10, thr/20), 'g', 6, 64), compRatio, compAttackMs, compReleaseMs,
			strconv.FormatFloat(math.Pow(10, makeup/20), 'g', 6, 64)))
	}
	args = append(append(args, c.FFmpeg...), out)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "ffmpeg", args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("corpus: %s under %s: %w: %s", x.Truth.Name, c.Name, err, stderr.String())
	}
	return out, nil
}

// breathed returns x with a breath blast (BreathDb) at the start of every
// other speech run of its truth, db over the active speech level at its middle
// (the sum clipped at full scale).
func breathed(x *Mixed, db float64) *Mixed {
	y := &Mixed{Samples: slices.Clone(x.Samples), Rate: x.Rate, Truth: x.Truth}
	amp := math.Pow(10, (x.Truth.SpeechDb+db)/20) * math.Sqrt2
	n := int(breathSec * float64(x.Rate))
	for k, iv := range x.Truth.Speech {
		if k%2 == 1 {
			continue
		}
		i0 := int(iv.Start * float64(x.Rate))
		for j := 0; j < n && i0+j < len(y.Samples); j++ {
			w := 0.5 - 0.5*math.Cos(2*math.Pi*float64(j)/float64(n))
			v := float64(y.Samples[i0+j]) + amp*w*math.Sin(2*math.Pi*breathHz*float64(j)/float64(x.Rate))
			y.Samples[i0+j] = float32(max(-1, min(32767.0/32768, v)))
		}
	}
	return y
}

// clipped returns x raised by db and hard-clipped at full scale (on the
// 16-bit grid, as WriteWAV writes it).
func clipped(x *Mixed, db float64) *Mixed {
	g := math.Pow(10, db/20)
	y := &Mixed{Samples: make([]float32, len(x.Samples)), Rate: x.Rate, Truth: x.Truth}
	for i, v := range x.Samples {
		y.Samples[i] = float32(max(-1, min(32767.0/32768, float64(v)*g)))
	}
	return y
}
