package plan_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/google/go-cmp/cmp"
)

// TestSplitMP3SamePlans: dsp analyses an MP3 file in two halves side by
// side (dsp/mp3split.go), and the same bytes read from a pipe in one
// piece; every preset's plan of the two analyses is the same. The input is
// 7 minutes of real speech (English and French) over a real vinyl-hiss
// bed, where the voice classifier runs.
func TestSplitMP3SamePlans(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg is not installed (scripts/test.sh installs it)")
	}
	const rec = "../testdata/recordings/"
	path := filepath.Join(t.TempDir(), "speech.mp3")
	speech := ""
	var in []string
	for i, f := range []string{"en_asterisk_allison_demo-instruct_73s.wav", "fr_asterisk_june_demo-instruct_71s.wav",
		"en_librivox_sense_sensibility_0870.wav", "es_asterisk_allison_demo-instruct_86s.wav",
		"en_asterisk_allison_demo-instruct_73s.wav", "fr_asterisk_june_demo-instruct_71s.wav"} {
		in = append(in, "-i", rec+f)
		speech += "[" + string(rune('0'+i)) + ":a]aresample=44100,aformat=channel_layouts=mono[s" + string(rune('0'+i)) + "];"
	}
	graph := speech + "[s0][s1][s2][s3][s4][s5]concat=n=6:v=0:a=1[s];" +
		"[6:a]aresample=44100,aformat=channel_layouts=mono,volume=0.3[n];[s][n]amix=inputs=2:duration=first:normalize=0[out]"
	args := append([]string{"-v", "error", "-y"}, in...)
	args = append(args, "-stream_loop", "-1", "-i", rec+"noise_vinyl_hiss_cc0.flac", "-filter_complex", graph,
		"-map", "[out]", "-ac", "2", "-c:a", "libmp3lame", "-q:a", "2", path)
	if out, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	ctx := context.Background()
	halves, err := dsp.AnalyzeFile(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := dsp.AnalyzeReader(ctx, bytes.NewReader(data), "speech.mp3", dsp.AnalyzeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f s; integrated %.2f / %.2f LUFS", whole.Input.Duration, halves.Loudness.Integrated, whole.Loudness.Integrated)
	if halves.Input.Frames != whole.Input.Frames {
		t.Fatalf("%d frames in halves, %d in one piece", halves.Input.Frames, whole.Input.Frames)
	}
	for _, p := range plan.Presets() {
		ph, err1 := plan.Make(halves, p.Params, nil)
		pw, err2 := plan.Make(whole, p.Params, nil)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v, %v", p.Name, err1, err2)
		}
		if d := cmp.Diff(pw.Cuts, ph.Cuts); d != "" {
			t.Errorf("%s: cuts differ (-one piece +halves):\n%s", p.Name, d)
		}
		t.Logf("%s: %d cuts, the same", p.Name, len(ph.Cuts))
	}
}
