package transcribe

import (
	"context"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/google/go-cmp/cmp"
)

// TestStereoInOppositePolarity: a recording whose two channels are one
// signal in opposite polarity (a cable wired the other way round) has a
// silent mean, which ffmpeg's mono mix gave the engines: no words, no
// fillers. The 16 kHz input of whisper and pocketsphinx and the acoustic
// engine's mix now take the channels' difference there (dsp.Polarity):
// the file transcribes as its mono original does.
func TestStereoInOppositePolarity(t *testing.T) {
	mono, _ := buildSpeech(t, []piece{{"So I think we should go to the market today.", false}, {"um", true},
		{"The quarterly numbers came in higher than anyone expected.", false}, {"uh", true}, {"Let me tell you about the time.", false}})
	dir := t.TempDir()
	inverted := filepath.Join(dir, "inverted.wav")
	if out, err := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-i", mono, "-af", "pan=stereo|c0=c0|c1=-1*c0", "-c:a", "pcm_s16le", inverted).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	ctx := context.Background()
	level := func(path string) float64 {
		t.Helper()
		d := t.TempDir()
		wav, err := to16kWAV(ctx, path, d)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(wav)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r, err := dsp.NewWAVReader(f)
		if err != nil {
			t.Fatal(err)
		}
		if r.Format() != (dsp.Format{SampleRate: 16000, Channels: 1}) {
			t.Fatalf("%s: %+v, want 16 kHz mono", wav, r.Format())
		}
		var sq float64
		n := 0
		buf := make([]float32, 4096)
		for {
			k, err := r.Read(buf)
			for _, v := range buf[:k] {
				sq += float64(v) * float64(v)
			}
			n += k
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return 10 * math.Log10(sq/float64(n))
	}
	m, inv := level(mono), level(inverted)
	t.Logf("16 kHz input: %.2f dBFS from the mono file, %.2f dBFS from the stereo one in opposite polarity", m, inv)
	if math.IsInf(m, 0) || math.Abs(m-inv) > 0.1 {
		t.Errorf("the stereo file in opposite polarity converts to %.2f dBFS, the mono one to %.2f", inv, m)
	}
	a := &Acoustic{}
	want, err := a.Transcribe(ctx, mono, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.Transcribe(ctx, inverted, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Fillers) == 0 {
		t.Fatal("the acoustic engine finds no filler in the mono file: the case tests nothing")
	}
	if d := cmp.Diff(want.Fillers, got.Fillers); d != "" {
		t.Errorf("the acoustic engine's fillers, mono (-) and stereo in opposite polarity (+):\n%s", d)
	}
}
