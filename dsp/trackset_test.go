package dsp

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestAnalyzeTrackSetSameAsEach: the tracks of a 2- and a 3-channel WAV,
// a 2-channel MP3 and a 2-stream MKV (made with ffmpeg), measured by
// AnalyzeTrackSet (one decode for the channels of one stream), are
// measured as AnalyzeTrack measures each alone.
func TestAnalyzeTrackSetSameAsEach(t *testing.T) {
	if !(FFmpegDecoder{}).Available() {
		t.Skip("ffmpeg not found")
	}
	dir := t.TempDir()
	// Each input channel its own tone bursts over its own noise bed.
	voices := []string{
		"sine=f=220:d=8:r=48000,volume='if(lt(mod(t,2),1),1,0.01)':eval=frame,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=mono",
		"sine=f=330:d=8:r=48000,volume='if(lt(mod(t+1,3),1.5),0.5,0.005)':eval=frame,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=mono",
		"sine=f=500:d=8:r=48000,volume='if(lt(mod(t,4),1),0.3,0.02)':eval=frame,aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=mono",
	}
	mk := func(name string, ch int, codec ...string) string {
		args := []string{"-v", "error", "-y"}
		var graph string
		for k := 0; k < ch; k++ {
			graph += voices[k] + "[v" + string(rune('0'+k)) + "];"
		}
		for k := 0; k < ch; k++ {
			graph += "[v" + string(rune('0'+k)) + "]"
		}
		graph += "amerge=inputs=" + string(rune('0'+ch))
		p := filepath.Join(dir, name)
		args = append(args, "-filter_complex", graph+"[out]", "-map", "[out]")
		args = append(args, codec...)
		if b, err := exec.Command("ffmpeg", append(args, p)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", name, err, b)
		}
		return p
	}
	two := mk("two.wav", 2, "-c:a", "pcm_s16le")
	three := mk("three.wav", 3, "-c:a", "pcm_f32le")
	mp3 := mk("two.mp3", 2, "-c:a", "libmp3lame", "-b:a", "128k")
	mkv := filepath.Join(dir, "show.mkv")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-i", two, "-i", three, "-map", "0:a", "-map", "1:a", "-c:a", "flac", mkv).CombinedOutput(); err != nil {
		t.Fatalf("mkv: %v: %s", err, b)
	}
	ctx := context.Background()
	dec := AutoDecoder{}
	for _, c := range []struct {
		name    string
		mode    string
		path    string
		n       int
		oneDec  bool
		reorder bool
	}{
		{"2-channel WAV", TracksChannels, two, 2, true, false},
		{"3-channel WAV", TracksChannels, three, 3, true, false},
		{"3-channel WAV, channels 2 and 0", TracksChannels, three, 2, true, true},
		{"2-channel MP3", TracksChannels, mp3, 2, true, false},
		{"2-stream MKV, channels of its first", TracksChannels, mkv, 2, true, false},
		{"2-stream MKV, its streams", TracksStreams, mkv, 2, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			refs, err := ListTracks(ctx, dec, c.mode, []string{c.path})
			if err != nil {
				t.Fatal(err)
			}
			if c.reorder {
				refs = []TrackRef{refs[2], refs[0]}
			}
			if len(refs) != c.n || OneDecode(refs) != c.oneDec {
				t.Fatalf("%d tracks, one decode %v; want %d, %v", len(refs), OneDecode(refs), c.n, c.oneDec)
			}
			var last float64
			got, err := AnalyzeTrackSet(ctx, dec, refs, 0, func(f float64) {
				if f < last {
					t.Errorf("progress %v after %v", f, last)
				}
				last = f
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(refs) || last != 1 {
				t.Fatalf("%d analyses, last progress %v", len(got), last)
			}
			for k, r := range refs {
				want, err := AnalyzeTrack(ctx, dec, r, 0, nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got[k], cmpopts.EquateNaNs()); d != "" {
					t.Errorf("track %s differs (-AnalyzeTrack +AnalyzeTrackSet):\n%s", r, d)
				}
			}
		})
	}
	// A channel the file does not have is refused.
	if _, err := AnalyzeTrackSet(ctx, dec, []TrackRef{{Path: two, Channel: 0}, {Path: two, Channel: 2}}, 0, nil); err == nil {
		t.Error("channel 2 of a 2-channel file: no error")
	}
}
