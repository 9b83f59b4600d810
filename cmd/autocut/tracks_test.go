package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
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

// clipSpan is one clip of a timeline track as the tests read it back: its
// source in and out and its record in, as the format writes them.
type clipSpan struct{ Src, Out, Rec string }

// TestCutTracksTimelines: `autocut cut --timelines all` (and analyze's) of
// two WAV files, or of a 2-stream MKV with --tracks streams, writes every format with
// one audio track per track (an EDL per track), and every track's clips
// are the same cut, each track's media its own file (the streams' the
// one file).
func TestCutTracksTimelines(t *testing.T) {
	dir := t.TempDir()
	host, guest := twoMics(t, dir)
	mkv := filepath.Join(dir, "show.mkv")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-i", host, "-i", guest, "-map", "0:a", "-map", "1:a", "-c:a", "pcm_s16le", mkv).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	chans := filepath.Join(dir, "mics.wav")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-i", host, "-i", guest, "-filter_complex", "[0:a][1:a]join=inputs=2:channel_layout=stereo[a]", "-map", "[a]", "-c:a", "pcm_s16le", chans).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	for _, c := range []struct {
		name   string
		args   []string
		stem   string
		media  []string // each track's file
		edlDir string
		cmd    string // "" is cut
		// each track's part of its file as OTIO's metadata and Premiere
		// XML's source track name it: stream and channel from 1 (0: the
		// whole file), the source track index
		parts [][3]int
	}{
		{"analyze two files", []string{"--timeline-dir", filepath.Join(dir, "d"), host, guest}, "host", []string{host, guest}, "d", "analyze", [][3]int{{0, 0, 1}, {0, 0, 1}}},
		{"two files", []string{"-o", filepath.Join(dir, "a", "show.wav"), host, guest}, "host", []string{host, guest}, "a", "", [][3]int{{0, 0, 1}, {0, 0, 1}}},
		{"two files, split", []string{"--split-tracks", "-o", filepath.Join(dir, "b", "show.wav"), host, guest}, "host", []string{host, guest}, "b", "", [][3]int{{0, 0, 1}, {0, 0, 1}}},
		{"mkv streams", []string{"--tracks", "streams", "--timeline-dir", filepath.Join(dir, "c"), "-o", filepath.Join(dir, "mkv.wav"), mkv}, "show", []string{mkv, mkv}, "c", "", [][3]int{{1, 0, 1}, {2, 0, 1}}},
		{"wav channels", []string{"--tracks", "channels", "--timeline-dir", filepath.Join(dir, "e"), "-o", filepath.Join(dir, "mics-cut.wav"), chans}, "mics", []string{chans, chans}, "e", "", [][3]int{{1, 1, 1}, {1, 2, 2}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tlDir := filepath.Join(dir, c.edlDir)
			if err := os.MkdirAll(tlDir, 0o755); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			cmd := "cut"
			if c.cmd != "" {
				cmd = c.cmd
			}
			args := append([]string{cmd, "--timelines", "all"}, c.args...)
			if code := run(context.Background(), args, &out, &errb); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errb.String())
			}
			if cmd == "analyze" {
				var js struct{ Timelines []string }
				if err := json.Unmarshal(out.Bytes(), &js); err != nil || len(js.Timelines) != len(timeline.Kinds())+len(c.media)-1 {
					t.Errorf("analyze's JSON lists the timelines %q (%v), want one per kind and an EDL per track", js.Timelines, err)
				}
			}
			read := func(name string) []byte {
				b, err := os.ReadFile(filepath.Join(tlDir, c.stem+"-autocut"+name))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			urls := make([]string, len(c.media))
			for k, m := range c.media {
				urls[k] = "file://" + m
			}
			got := map[string][][]clipSpan{}
			var files map[string][]string = map[string][]string{}

			// OpenTimelineIO: an audio track per track.
			var otio struct {
				Tracks struct {
					Children []struct {
						Kind     string `json:"kind"`
						Children []struct {
							SourceRange struct {
								Duration  struct{ Value float64 } `json:"duration"`
								StartTime struct{ Value float64 } `json:"start_time"`
							} `json:"source_range"`
							Media struct {
								Default struct {
									TargetURL string `json:"target_url"`
									Metadata  struct {
										Autocut struct{ Stream, Channel int } `json:"autocut"`
									} `json:"metadata"`
								} `json:"DEFAULT_MEDIA"`
							} `json:"media_references"`
						} `json:"children"`
					} `json:"children"`
				} `json:"tracks"`
			}
			if err := json.Unmarshal(read(".otio"), &otio); err != nil {
				t.Fatal(err)
			}
			var parts [][3]int // each track's stream, channel (OTIO) and source track (Premiere XML)
			for _, tr := range otio.Tracks.Children {
				if tr.Kind != "Audio" {
					continue
				}
				if len(tr.Children) > 0 {
					a := tr.Children[0].Media.Default.Metadata.Autocut
					parts = append(parts, [3]int{a.Stream, a.Channel})
				}
				var spans []clipSpan
				rec := 0.0
				for _, cl := range tr.Children {
					spans = append(spans, clipSpan{fmt.Sprint(cl.SourceRange.StartTime.Value), fmt.Sprint(cl.SourceRange.Duration.Value), fmt.Sprint(rec)})
					rec += cl.SourceRange.Duration.Value
					files["otio"] = appendNew(files["otio"], cl.Media.Default.TargetURL)
				}
				got["otio"] = append(got["otio"], spans)
			}

			// CSV: a track column.
			rows, err := csv.NewReader(bytes.NewReader(read(".csv"))).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			byTrack := map[string][]clipSpan{}
			var order []string
			for _, r := range rows[1:] { // index,track,source,...,src_in_frame,src_out_frame,rec_in_frame,...
				if _, ok := byTrack[r[1]]; !ok {
					order = append(order, r[1])
				}
				byTrack[r[1]] = append(byTrack[r[1]], clipSpan{r[8], r[9], r[10]})
				files["csv"] = appendNew(files["csv"], "file://"+r[2])
			}
			for _, k := range order {
				got["csv"] = append(got["csv"], byTrack[k])
			}

			// EDL: one list per track.
			for k := range c.media {
				name := ".edl"
				if k > 0 {
					name = fmt.Sprintf("-track%d.edl", k+1)
				}
				var spans []clipSpan
				for _, line := range strings.Split(strings.ReplaceAll(string(read(name)), "\r\n", "\n"), "\n") {
					if f := strings.Fields(line); len(f) == 8 && f[1] == "AX" {
						spans = append(spans, clipSpan{f[4], f[5], f[6]})
					}
					if f, ok := strings.CutPrefix(line, "* SOURCE FILE: "); ok {
						files["edl"] = appendNew(files["edl"], "file://"+f)
					}
				}
				got["edl"] = append(got["edl"], spans)
			}

			// Premiere XML: an audio track per mono track.
			var xm struct {
				Tracks []struct {
					Clips []struct {
						Start, In, Out string
						File           struct {
							ID      string `xml:"id,attr"`
							PathURL string `xml:"pathurl"`
						} `xml:"file"`
						SourceTrack int `xml:"sourcetrack>trackindex"`
					} `xml:"clipitem"`
				} `xml:"sequence>media>audio>track"`
			}
			if err := xml.Unmarshal(read(".xml"), &xm); err != nil {
				t.Fatal(err)
			}
			for k, tr := range xm.Tracks {
				if k < len(parts) && len(tr.Clips) > 0 {
					parts[k][2] = tr.Clips[0].SourceTrack
				}
				var spans []clipSpan
				for _, cl := range tr.Clips {
					spans = append(spans, clipSpan{cl.In, cl.Out, cl.Start})
					if cl.File.PathURL != "" {
						files["xml"] = appendNew(files["xml"], strings.Replace(cl.File.PathURL, "file://localhost", "file://", 1))
					}
				}
				got["xml"] = append(got["xml"], spans)
			}
			if diff := cmp.Diff(c.parts, parts); diff != "" {
				t.Errorf("each track's stream, channel (OTIO) and source track (Premiere XML) (-want +got):\n%s", diff)
			}

			// FCPXML: the first track on the spine, the others in lanes -1, -2, ...
			type fclip struct {
				Ref      string  `xml:"ref,attr"`
				Lane     string  `xml:"lane,attr"`
				Offset   string  `xml:"offset,attr"`
				Start    string  `xml:"start,attr"`
				Duration string  `xml:"duration,attr"`
				Lanes    []fclip `xml:"asset-clip"`
			}
			var fx struct {
				Assets []struct {
					Src string `xml:"src,attr"`
					Rep struct {
						Src string `xml:"src,attr"`
					} `xml:"media-rep"`
				} `xml:"resources>asset"`
				Spine []fclip `xml:"library>event>project>sequence>spine>asset-clip"`
			}
			if err := xml.Unmarshal(read(".fcpxml"), &fx); err != nil {
				t.Fatal(err)
			}
			for _, a := range fx.Assets {
				files["fcpxml"] = append(files["fcpxml"], a.Src+a.Rep.Src)
			}
			lanes := make([][]clipSpan, len(c.media))
			for _, cl := range fx.Spine {
				lanes[0] = append(lanes[0], clipSpan{cl.Start, cl.Duration, cl.Offset})
				for _, l := range cl.Lanes {
					k := 0
					fmt.Sscanf(l.Lane, "-%d", &k)
					if k < 1 || k >= len(lanes) || l.Offset != cl.Start {
						t.Errorf("fcpxml: lane clip %+v is not connected at its spine clip's start %s", l, cl.Start)
						continue
					}
					// (A lane clip's offset is in its parent's source time.)
					lanes[k] = append(lanes[k], clipSpan{l.Start, l.Duration, cl.Offset})
				}
			}
			got["fcpxml"] = lanes

			for kind, tracks := range got {
				if len(tracks) != len(c.media) {
					t.Errorf("%s has %d audio tracks, want %d", kind, len(tracks), len(c.media))
					continue
				}
				if len(tracks[0]) == 0 {
					t.Errorf("%s: no clip", kind)
				}
				for k := 1; k < len(tracks); k++ {
					if diff := cmp.Diff(tracks[0], tracks[k]); diff != "" {
						t.Errorf("%s: track %d's clips are not track 1's (-1 +%d):\n%s", kind, k+1, k+1, diff)
					}
				}
				want := slices.Compact(slices.Clone(urls))
				if kind == "fcpxml" { // an asset per track
					want = urls
				}
				if diff := cmp.Diff(want, files[kind]); diff != "" {
					t.Errorf("%s names the media %q, want %q", kind, files[kind], urls)
				}
			}
			t.Logf("%d tracks of %d clips in each format", len(c.media), len(got["csv"][0]))
		})
	}
}

// appendNew appends s to list unless it is there.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// TestCutTracksGateBleed: two microphones, the host's voice (a tone)
// leaking into the guest's track 15 dB down and 3 ms late: --gate-bleed
// turns the guest's track down 20 dB in the host's turn (where it holds
// only the host's bleed and its bed) and leaves its own turn as it was,
// in each track's file (--split-tracks); one file alone is refused.
func TestCutTracksGateBleed(t *testing.T) {
	dir := t.TempDir()
	host, guest := filepath.Join(dir, "host.wav"), filepath.Join(dir, "guest.wav")
	const hostVoice, guestVoice = "0.3*sin(2*PI*440*t)*between(t,0.5,3)", "0.1*sin(2*PI*660*t)*between(t,5,7.5)"
	bleed := func(v string) string {
		return "0.178*" + strings.ReplaceAll(strings.ReplaceAll(v, "*t)", "*(t-0.003))"), "between(t,", "between(t-0.003,")
	}
	for _, c := range []struct{ path, expr string }{
		{host, hostVoice + "+" + bleed(guestVoice) + "+0.003*(2*random(0)-1)"},
		{guest, guestVoice + "+" + bleed(hostVoice) + "+0.003*(2*random(1)-1)"},
	} {
		if b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "aevalsrc='"+c.expr+"':s=44100:d=10", "-c:a", "pcm_f32le", c.path).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, b)
		}
	}
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
	// outAt is where the input's time sec lands in the output (-1: cut).
	outAt := func(sec float64) float64 {
		at := 0.0
		for _, k := range p.Keep {
			if sec >= k.Start && sec < k.End {
				return at + sec - k.Start
			}
			at += k.Len()
		}
		return -1
	}
	level := func(path string, from, to float64) float64 {
		if from < 0 || to < 0 {
			t.Fatalf("[%v, %v] s is cut: keep %v", from, to, p.Keep)
		}
		s, err := dsp.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var x []float32
		buf := make([]float32, 8192)
		for {
			n, err := s.Read(buf)
			x = append(x, buf[:n]...)
			if err != nil {
				break
			}
		}
		rate := float64(s.Format().SampleRate)
		var sum float64
		a, b := int(from*rate), int(to*rate)
		for _, v := range x[a:b] {
			sum += float64(v) * float64(v)
		}
		return 10 * math.Log10(sum/float64(b-a)+1e-30)
	}
	outs := map[bool]string{}
	for _, gate := range []bool{false, true} {
		out := filepath.Join(dir, fmt.Sprintf("gate-%v.wav", gate))
		args := []string{"cut", "--normalize", "none", "--split-tracks", "-o", out, host, guest}
		if gate {
			args = append(args, "--gate-bleed")
		}
		var o, errb bytes.Buffer
		if code := run(context.Background(), args, &o, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		outs[gate] = strings.TrimSuffix(out, ".wav") + "-2.wav" // the guest's
	}
	hostOpen, hostGated := level(outs[false], outAt(1), outAt(2.5)), level(outs[true], outAt(1), outAt(2.5))
	ownOpen, ownGated := level(outs[false], outAt(5.5), outAt(7)), level(outs[true], outAt(5.5), outAt(7))
	t.Logf("guest's track in the host's turn: %.1f dBFS, %.1f gated; in its own: %.2f, %.2f gated", hostOpen, hostGated, ownOpen, ownGated)
	if d := hostGated - hostOpen; math.Abs(d+20) > 0.5 {
		t.Errorf("--gate-bleed moved the guest's track by %+.1f dB in the host's turn, want -20", d)
	}
	if d := ownGated - ownOpen; math.Abs(d) > 0.5 {
		t.Errorf("--gate-bleed moved the guest's own speech by %+.2f dB, want within 0.5", d)
	}
	var o, errb bytes.Buffer
	if code := run(context.Background(), []string{"cut", "--gate-bleed", "-o", filepath.Join(dir, "one.wav"), host}, &o, &errb); code != 2 || !strings.Contains(errb.String(), "--gate-bleed") {
		t.Errorf("--gate-bleed with one file: exit %d, %q; want 2 and a word on --gate-bleed", code, errb.String())
	}
}
