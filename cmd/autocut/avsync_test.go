package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBinaryVideoStaysInSync: a video whose audio starts 1 s after its
// first frame (as the picture shows a flash when the sound beeps) is cut
// with the flash still on the beep. The audio's pause is cut; before the
// decoder aligned the audio to the first frame, the cut fell 1 s off in
// the picture and the flash came 1 s after the beep.
func TestBinaryVideoStaysInSync(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		b, err := exec.Command("ffmpeg", append([]string{"-hide_banner", "-nostdin", "-y"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("ffmpeg %v: %v\n%s", args, err, b)
		}
		return string(b)
	}
	// Audio: a tone, a 1 s pause, a 100 ms beep at 2.9 s, a tone.
	run("-v", "error", "-f", "lavfi", "-i", "sine=f=440:d=1.9", "-f", "lavfi", "-i", "anullsrc=r=44100:cl=mono:d=1",
		"-f", "lavfi", "-i", "sine=f=3000:d=0.1", "-f", "lavfi", "-i", "sine=f=440:d=2",
		"-filter_complex", "[0][1][2][3]concat=n=4:v=0:a=1[a]", "-map", "[a]", filepath.Join(dir, "sound.wav"))
	// Picture: black, white for one frame at 3.9 s, where the beep falls
	// once the audio starts 1 s in.
	run("-v", "error", "-f", "lavfi", "-i", "color=black:s=160x120:r=25:d=6", "-itsoffset", "1", "-i", filepath.Join(dir, "sound.wav"),
		"-filter_complex", "[0:v]drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='between(t,3.9,3.939)'[v]",
		"-map", "[v]", "-map", "1:a", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", filepath.Join(dir, "clip.mp4"))
	autocut(t, dir, "cut", "clip.mp4").want(t, "cut", 0, "wrote clip-autocut.mp4")

	out := filepath.Join(dir, "clip-autocut.mp4")
	// The flash: the first frame whose mean luma is high.
	b, err := exec.Command("ffprobe", "-v", "error", "-f", "lavfi", "movie="+out+",signalstats",
		"-show_entries", "frame=best_effort_timestamp_time:frame_tags=lavfi.signalstats.YAVG", "-of", "csv=p=0").Output()
	if err != nil {
		t.Fatal(err)
	}
	flash := -1.0
	for _, line := range strings.Split(string(b), "\n") {
		ts, y, ok := strings.Cut(line, ",")
		if v, err := strconv.ParseFloat(y, 64); ok && err == nil && v > 100 {
			flash, _ = strconv.ParseFloat(ts, 64)
			break
		}
	}
	// The beep: where the sound above 2 kHz first stops being silent.
	m := regexp.MustCompile(`silence_end: ([0-9.]+)`).FindStringSubmatch(run("-i", out, "-vn",
		"-af", "highpass=f=2000,highpass=f=2000,silencedetect=noise=-30dB:d=0.05", "-f", "null", "-"))
	if flash < 0 || m == nil {
		t.Fatalf("no flash (%v) or no beep (%v) in the cut video", flash, m)
	}
	beep, _ := strconv.ParseFloat(m[1], 64)
	t.Logf("cut video: flash at %.3f s, beep at %.3f s", flash, beep)
	// The flash's frame starts within a frame (40 ms) of the beep.
	if d := flash - beep; d < -0.045 || d > 0.045 {
		t.Errorf("cut video: the flash comes %.3f s after the beep, want it within a frame", d)
	}
	if beep > 3.5 {
		t.Errorf("the beep at %.3f s: the pause before it was not cut", beep)
	}
}
