package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/google/go-cmp/cmp"
)

// twoMics writes a host and a guest track of 10 s: the host speaks (a
// tone) over [0.5, 3), the guest, 15 dB quieter, over [5, 7.5); nobody
// between 3 and 5 s and after 7.5 s.
func twoMics(t *testing.T, dir string) (host, guest string) {
	t.Helper()
	host, guest = filepath.Join(dir, "host.wav"), filepath.Join(dir, "guest.wav")
	for _, c := range []struct{ path, f, vol string }{
		{host, "440", "if(between(t,0.5,3),0.3,0.0003)"},
		{guest, "660", "if(between(t,5,7.5),0.053,0.0003)"},
	} {
		if b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=f="+c.f+":d=10:sample_rate=44100",
			"-af", "volume='"+c.vol+"':eval=frame", c.path).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
	}
	return host, guest
}

// TestCutTracks: `autocut cut` of two WAV files writes their mix (named
// after the first by default), or each track with --split-tracks, and
// keeps the guest's speech while the host pauses; a 2-stream MKV with
// --tracks streams is cut the same way.
func TestCutTracks(t *testing.T) {
	dir := t.TempDir()
	host, guest := twoMics(t, dir)
	mkv := filepath.Join(dir, "show.mkv")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-i", host, "-i", guest, "-map", "0:a", "-map", "1:a", "-c:a", "pcm_s16le", mkv).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	for _, c := range []struct {
		name  string
		args  []string
		outs  []string
		say   string
		ch    []int
		isMix bool
	}{
		{"two files, default name", []string{"cut", "--normalize", "none", host, guest}, []string{"host-autocut.wav"}, "the mix of 2 tracks", []int{1}, true},
		{"two files to mp3", []string{"cut", "-o", filepath.Join(dir, "show.mp3"), host, guest}, []string{"show.mp3"}, "the mix of 2 tracks", []int{1}, true},
		{"split", []string{"cut", "--split-tracks", "-o", filepath.Join(dir, "split.wav"), host, guest}, []string{"split-1.wav", "split-2.wav"}, "track guest.wav", []int{1, 1}, false},
		{"mkv streams", []string{"cut", "--tracks", "streams", "-o", filepath.Join(dir, "mkv.wav"), mkv}, []string{"mkv.wav"}, "the mix of 2 tracks", []int{1}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(context.Background(), c.args, &out, &errb); code != 0 {
				t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
			}
			if !strings.Contains(errb.String(), c.say) {
				t.Errorf("the report does not say %q: %s", c.say, errb.String())
			}
			var lens []float64
			for _, o := range c.outs {
				d := probeDur(t, filepath.Join(dir, o))
				lens = append(lens, d)
				// Host 2.5 s + guest 2.5 s, with the preset's pauses kept
				// around them; planned on the host alone it would be 3 s.
				if d < 4.8 || d > 7 {
					t.Errorf("%s lasts %.3f s, want 4.8..7 (both speakers, not the pauses where nobody speaks)", o, d)
				}
			}
			if len(lens) == 2 && lens[0] != lens[1] {
				t.Errorf("the split tracks last %v s: want one length", lens)
			}
			t.Logf("%s", strings.TrimSpace(errb.String()))
		})
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"streams of two files", []string{"cut", "--tracks", "streams", "-o", filepath.Join(dir, "x.wav"), host, guest}, "2 files given"},
		{"no stream 2", []string{"cut", "--tracks", "channels", "-o", filepath.Join(dir, "x.wav"), mkv}, ""},
		{"transcribe", []string{"cut", "--transcribe", "-o", filepath.Join(dir, "x.wav"), host, guest}, "--transcribe with several tracks"},
		{"split to stdout", []string{"cut", "--split-tracks", "-o", "-", host, guest}, "one stream cannot hold several files"},
		{"output is an input", []string{"cut", "-y", "-o", guest, host, guest}, "it is the input file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), c.args, &out, &errb)
			if c.want == "" { // a mono MKV stream: one channel, one track; cut fine
				if code != 0 {
					t.Errorf("exit %d: %s", code, errb.String())
				}
				return
			}
			if code != 2 || !strings.Contains(errb.String(), c.want) {
				t.Errorf("exit %d, %q; want 2 and %q", code, errb.String(), c.want)
			}
		})
	}
}

// TestPlanTracksKeepsEitherSpeaker: the plan of two mics keeps the guest
// while the host pauses, and cuts where neither speaks.
func TestPlanTracksKeepsEitherSpeaker(t *testing.T) {
	// Analyses of the two mics: the plan keeps the guest while the host pauses.
	dir := t.TempDir()
	host, guest := twoMics(t, dir)
	var as []*dsp.Analysis
	for _, p := range []string{host, guest} {
		a, err := dsp.AnalyzeFile(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	p, err := planTracks(as, plan.DefaultPreset().Params)
	if err != nil {
		t.Fatal(err)
	}
	kept := func(at float64) bool {
		for _, k := range p.Keep {
			if at >= k.Start && at < k.End {
				return true
			}
		}
		return false
	}
	for _, at := range []float64{1, 2.5, 5.5, 7} {
		if !kept(at) {
			t.Errorf("%.1f s (someone speaks) is cut: keep %v", at, p.Keep)
		}
	}
	for _, at := range []float64{4, 9} {
		if kept(at) {
			t.Errorf("%.1f s (nobody speaks) is kept: keep %v", at, p.Keep)
		}
	}
}

// TestAnalyzeTracks: `autocut analyze` of two files prints each track's
// analysis and one plan that keeps both speakers.
func TestAnalyzeTracks(t *testing.T) {
	host, guest := twoMics(t, t.TempDir())
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"analyze", host, guest}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Tracks []struct {
			Track dsp.TrackRef `json:"track"`
			Input dsp.Info     `json:"input"`
		} `json:"tracks"`
		Plan *plan.Plan `json:"plan"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	var names []string
	for _, tr := range got.Tracks {
		names = append(names, filepath.Base(tr.Track.Path)+" "+tr.Input.Name)
	}
	if d := cmp.Diff([]string{"host.wav host.wav", "guest.wav guest.wav"}, names); d != "" {
		t.Errorf("tracks (-want +got):\n%s", d)
	}
	if got.Plan == nil || got.Plan.Stats.FinalSec < 4.8 || got.Plan.Stats.FinalSec > 7 {
		t.Errorf("plan %+v: want 4.8..7 s kept", got.Plan)
	}
}
