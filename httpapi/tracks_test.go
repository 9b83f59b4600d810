package httpapi

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/jobs"
)

// genTwoMics writes a 10 s recording of two microphones in one file with
// ffmpeg and returns its bytes: the host (a tone) speaks over [0.5, 3),
// the guest, 15 dB quieter, over [5, 7.5), each on its own audio stream
// (an MKV, as OBS records), or, with channels, on its own channel of a
// stereo WAV. Nobody speaks between 3 and 5 s nor after 7.5 s.
func genTwoMics(t *testing.T, name string, channels bool) []byte {
	return genTwoMicsVideo(t, name, channels, false)
}

// genTwoMicsVideo is genTwoMics, with a 25 fps picture first when video.
func genTwoMicsVideo(t *testing.T, name string, channels, video bool) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	args := []string{"-v", "error", "-y",
		"-f", "lavfi", "-i", "sine=f=440:d=10:sample_rate=44100,volume='if(between(t,0.5,3),0.3,0.0003)':eval=frame",
		"-f", "lavfi", "-i", "sine=f=660:d=10:sample_rate=44100,volume='if(between(t,5,7.5),0.053,0.0003)':eval=frame"}
	if video {
		args = append(args, "-f", "lavfi", "-i", "testsrc=size=64x36:rate=25:d=10", "-map", "2:v", "-c:v", "libx264", "-preset", "ultrafast")
	}
	if channels {
		args = append(args, "-filter_complex", "[0:a][1:a]join=inputs=2:channel_layout=stereo[a]", "-map", "[a]")
	} else {
		args = append(args, "-map", "0:a", "-map", "1:a")
	}
	args = append(args, "-c:a", "pcm_s16le", p)
	if b, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// probeSeconds is the duration ffprobe reads of a file's bytes.
func probeSeconds(t *testing.T, body []byte, name string) float64 {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, body, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1", f).Output()
	if err != nil {
		t.Fatalf("ffprobe of the download: %v", err)
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	if err != nil {
		t.Fatalf("ffprobe duration %q: %v", out, err)
	}
	return d
}

// TestTracksEndToEnd uploads recordings of two microphones in one file
// with options.tracks over HTTP to the real job layer and media engine:
// the job lists both tracks, its plan cuts only where nobody speaks (the
// rendered mix keeps both speakers' turns, which the host's track alone
// would not), and the preview and envelope answer for it.
func TestTracksEndToEnd(t *testing.T) {
	e := managerEnv(t, func(c *jobs.Config) { c.Engine = nil; c.MaxInputBytes = 64 << 20 })
	for _, tc := range []struct {
		name, file, mode, format string
		channels, video          bool
	}{
		{"mkv streams", "show.mkv", apiv1.TracksStreams, "wav", false, false},
		{"mkv streams to mp3", "show.mkv", apiv1.TracksStreams, "mp3", false, false},
		{"wav channels", "show.wav", apiv1.TracksChannels, "wav", true, false},
		{"obs mkv with video to mp4", "obs.mkv", apiv1.TracksStreams, "mp4", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := genTwoMicsVideo(t, tc.file, tc.channels, tc.video)
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(string(body)),
				map[string]string{"X-Filename": tc.file, "X-Options": `{"preset":"podcast","tracks":"` + tc.mode + `","export":{"format":"` + tc.format + `","normalize":"none"}}`})
			var v apiv1.Job
			if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			if v.TracksMode != tc.mode {
				t.Errorf("tracksMode %q, want %q", v.TracksMode, tc.mode)
			}
			v, b = waitDone(t, e, v, 2*time.Minute)
			if v.Status != apiv1.StatusDone || v.Output == nil || v.Plan == nil {
				t.Fatalf("job: %s", b)
			}
			if len(v.Tracks) != 2 {
				t.Fatalf("tracks %+v, want 2: %s", v.Tracks, b)
			}
			for k, tr := range v.Tracks {
				wantStream, wantChannel := k, (*int)(nil)
				if tc.channels {
					wantStream, wantChannel = 0, &k
				}
				if tr.Index != k || tr.Stream != wantStream || (wantChannel == nil) != (tr.Channel == nil) ||
					(wantChannel != nil && *tr.Channel != *wantChannel) || tr.Channels != 1 || tr.SampleRate != 44100 ||
					tr.Duration < 9.9 || tr.Duration > 10.1 || tr.Loudness == nil {
					t.Errorf("track %d: %+v", k, tr)
				}
			}
			resp, out := e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/download", proKey, nil, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("download: %d", resp.StatusCode)
			}
			d := probeSeconds(t, out, "out."+tc.format)
			if tc.video {
				f := filepath.Join(t.TempDir(), "out.mp4")
				if err := os.WriteFile(f, out, 0o600); err != nil {
					t.Fatal(err)
				}
				streams, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", f).Output()
				if err != nil {
					t.Fatalf("ffprobe: %v", err)
				}
				if got := strings.Fields(string(streams)); !slices.Contains(got, "video") || !slices.Contains(got, "audio") || v.Input.Type != "video" {
					t.Errorf("the mp4 of a video holds %v, input.type %q: want its picture and the mix", got, v.Input.Type)
				}
			}
			// Host 2.5 s + guest 2.5 s, with the preset's pauses kept
			// around them; planned on the host alone it would be 3 s.
			if d < 4.8 || d > 7 {
				t.Errorf("the mix lasts %.3f s, want 4.8..7 (both speakers' turns, not the pauses where nobody speaks)", d)
			}
			if diff := d - v.Output.Duration; diff < -0.06 || diff > 0.06 {
				t.Errorf("ffprobe %.3f s, output.duration %.3f s", d, v.Output.Duration)
			}
			keepsGuest := false
			for _, k := range v.Plan.Keep {
				if k.Start <= 5.5 && k.End >= 7 {
					keepsGuest = true
				}
			}
			if !keepsGuest {
				t.Errorf("the plan's keep %v does not hold the guest's turn [5, 7.5)", v.Plan.Keep)
			}
			t.Logf("%s: plan %.3f s of %.3f (%d cuts), mix %.3f s", tc.name, v.Plan.Stats.FinalSec, v.Plan.Stats.OriginalSec, v.Plan.Stats.CutsCount, d)

			// The preview re-plans over both tracks: the guest's turn stays.
			resp, b = e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/preview?minSilenceSec=1", proKey, nil, nil)
			var pv apiv1.Preview
			if resp.StatusCode != 200 || json.Unmarshal(b, &pv) != nil {
				t.Fatalf("preview: %d %s", resp.StatusCode, b)
			}
			if pv.Plan.Stats.FinalSec < 4.8 {
				t.Errorf("preview keeps %.3f s: the guest's turn is gone (%s)", pv.Plan.Stats.FinalSec, b)
			}
			// A PATCH re-plans over both tracks and renders the mix again.
			resp, b = e.call(t, "PATCH", "/api/v1/jobs/"+v.ID, proKey, strings.NewReader(`{"params":{"keepSilenceMs":100}}`),
				map[string]string{"Content-Type": "application/json"})
			if resp.StatusCode != 202 && resp.StatusCode != 200 {
				t.Fatalf("patch: %d %s", resp.StatusCode, b)
			}
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			v, b = waitDone(t, e, v, 2*time.Minute)
			if v.Status != apiv1.StatusDone || v.Output == nil || v.Plan == nil || len(v.Tracks) != 2 {
				t.Fatalf("patched job: %s", b)
			}
			if f := v.Plan.Stats.FinalSec; f < 4.8 || f > 6.5 || v.Output.Duration < 4.8 {
				t.Errorf("patched: plan keeps %.3f s, output %.3f s: want both turns (4.8..6.5 s)", f, v.Output.Duration)
			}
			t.Logf("%s patched (keepSilenceMs 100): plan %.3f s, output %.3f s", tc.name, v.Plan.Stats.FinalSec, v.Output.Duration)

			// Each track alone (download ?track=N): as long as the mix,
			// the host's tone loudest on track 0, the guest's on track 1;
			// a track the job lacks is refused.
			if tc.format == "wav" {
				var peaks [2]float64
				for k := range 2 {
					resp, b := e.call(t, "GET", fmt.Sprintf("/api/v1/jobs/%s/download?track=%d", v.ID, k), proKey, nil, nil)
					if resp.StatusCode != 200 {
						t.Fatalf("track %d: %d %s", k, resp.StatusCode, b)
					}
					if d := probeSeconds(t, b, "track.wav"); math.Abs(d-v.Output.Duration) > 0.05 {
						t.Errorf("track %d: %.3f s, the mix %.3f s", k, d, v.Output.Duration)
					}
					peaks[k] = peakDb(t, b)
				}
				t.Logf("%s: tracks alone peak at %.1f and %.1f dBFS", tc.name, peaks[0], peaks[1])
				if peaks[0] < peaks[1]+10 {
					t.Errorf("tracks alone peak at %.1f and %.1f dBFS: want the host's track 10 dB over the guest's (0.3 against 0.053)", peaks[0], peaks[1])
				}
				for _, q := range []string{"2", "-1", "x"} {
					if resp, b := e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/download?track="+q, proKey, nil, nil); resp.StatusCode != 400 {
						t.Errorf("track=%s: %d %s, want 400", q, resp.StatusCode, b)
					}
				}
			}

			// The envelope is the loudest track's per frame: the guest's
			// turn stands above the pause where nobody speaks (on the
			// host's track alone both are its floor).
			guest, pause := e.envelopeMin(t, v.ID, 5.5, 7), e.envelopeMax(t, v.ID, 3.5, 4.5)
			if guest < pause+30 {
				t.Errorf("envelope: the guest's turn at %.1f dB or more, the pause up to %.1f dB: want the turn 30 dB above", guest, pause)
			}
			// Each track's own levels come beside them, over the same
			// frames: the host's turn on track 0 only, the guest's on
			// track 1 only (each 30 dB over the other track there).
			all, tracks := e.envelope(t, v.ID, 0, 0)
			if len(tracks) != 2 || len(tracks[0]) != len(all) || len(tracks[1]) != len(all) {
				t.Fatalf("envelope tracks: %d of lengths %v, want 2 of %d", len(tracks), lens(tracks), len(all))
			}
			for i := range all {
				if m := max(tracks[0][i], tracks[1][i]); m != all[i] {
					t.Fatalf("envelope level %d: %.2f, want the louder track's %.2f", i, all[i], m)
				}
			}
			_, host := e.envelope(t, v.ID, 1, 2.5)
			_, guestTurn := e.envelope(t, v.ID, 5.5, 7)
			if h, g := slices.Min(host[0]), slices.Max(host[1]); h < g+30 {
				t.Errorf("envelope tracks, host's turn: host at %.1f dB or more, guest up to %.1f: want 30 dB apart", h, g)
			}
			if g, h := slices.Min(guestTurn[1]), slices.Max(guestTurn[0]); g < h+30 {
				t.Errorf("envelope tracks, guest's turn: guest at %.1f dB or more, host up to %.1f: want 30 dB apart", g, h)
			}
		})
	}
}

// TestTracksRefused: a tracks value other than streams and channels is
// refused before the upload is read (400 invalid_parameter); a file with
// fewer than 2 of what tracks asks for, or more than 16, fails the job
// with a message that says so (a stream of more than 8 channels, which
// the decoders refuse, with unsupported_format); a job of one track has
// no tracks in its view.
func TestTracksRefused(t *testing.T) {
	e := managerEnv(t, func(c *jobs.Config) { c.Engine = nil; c.MaxInputBytes = 64 << 20 })
	// Refused on its headers, before a byte of the body is read: a body of a
	// few bytes, so that the client has sent it all when the answer closes
	// the connection (a client still sending a large one may get a reset
	// in place of the answer, as documented for drainUpload).
	for _, bad := range []string{"files", "stream", "Streams", "2"} {
		resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF...."),
			map[string]string{"X-Filename": "talk.wav", "X-Options": `{"tracks":"` + bad + `"}`})
		var eb apiv1.ErrorBody
		if resp.StatusCode != 400 || json.Unmarshal(b, &eb) != nil || eb.Code != apiv1.CodeInvalidParameter || !strings.Contains(eb.Error, "tracks") {
			t.Errorf("tracks %q: %d %s, want 400 invalid_parameter naming tracks", bad, resp.StatusCode, b)
		}
	}
	resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(`{"url":"http://127.0.0.1:1/x.wav","tracks":"bogus"}`),
		map[string]string{"Content-Type": "application/json"})
	if resp.StatusCode != 400 || !strings.Contains(string(b), string(apiv1.CodeInvalidParameter)) {
		t.Errorf("url job with tracks bogus: %d %s, want 400 invalid_parameter", resp.StatusCode, b)
	}

	oneStream := genTwoMics(t, "one.mkv", true) // one stereo stream
	for _, tc := range []struct {
		name, file, mode, say string
		body                  []byte
		code                  apiv1.ErrorCode
	}{
		{"one channel", "mono.wav", apiv1.TracksChannels, `the file has 1 channel`, monoWAV(t), apiv1.CodeInvalidParameter},
		{"one stream", "one.mkv", apiv1.TracksStreams, `the file has 1 audio stream`, oneStream, apiv1.CodeInvalidParameter},
		{"17 streams", "s17.mkv", apiv1.TracksStreams, `at most 16 tracks`, streamsMKV(t, 17), apiv1.CodeInvalidParameter},
		{"10 channels", "c10.wav", apiv1.TracksChannels, `unsupported format`, channelsWAV(t, 10), apiv1.CodeUnsupportedFormat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(string(tc.body)),
				map[string]string{"X-Filename": tc.file, "X-Options": `{"tracks":"` + tc.mode + `"}`})
			var v apiv1.Job
			if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			v, b = waitDone(t, e, v, time.Minute)
			if v.Status != apiv1.StatusFailed || v.Error == nil || v.Error.Code != tc.code || !strings.Contains(v.Error.Message, tc.say) {
				t.Fatalf("job: %s, want failed %s saying %q", b, tc.code, tc.say)
			}
			if len(v.Tracks) != 0 {
				t.Errorf("a failed job lists tracks %+v", v.Tracks)
			}
		})
	}

	// One track: the view is v1's, without tracks.
	mono := genMedia(t, "talk.wav", false)
	resp, b = e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(string(mono)),
		map[string]string{"X-Filename": "talk.wav", "X-Options": `{"export":{"format":"wav"}}`})
	var v apiv1.Job
	if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil {
		t.Fatalf("create: %d %s", resp.StatusCode, b)
	}
	v, b = waitDone(t, e, v, time.Minute)
	if v.Status != apiv1.StatusDone || strings.Contains(string(b), `"tracks"`) || strings.Contains(string(b), `"tracksMode"`) {
		t.Errorf("a job of one track: %s", b)
	}
	// ... and it has no track to download alone.
	resp, b = e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/download?track=0", proKey, nil, nil)
	if resp.StatusCode != 400 || !strings.Contains(string(b), "invalid_parameter") {
		t.Errorf("a job of one track, download?track=0: %d %s, want 400 invalid_parameter", resp.StatusCode, b)
	}
}

// monoWAV is a 3 s mono WAV of a tone with a pause.
func monoWAV(t *testing.T) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "mono.wav")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
		"sine=f=440:d=3:sample_rate=16000,volume='if(between(t,1,2),0.001,0.3)':eval=frame", "-c:a", "pcm_s16le", p).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// envelopeLevels GETs a job's envelope levels over [from, to] s.
func (e *testEnv) envelopeLevels(t *testing.T, id string, from, to float64) []float64 {
	t.Helper()
	lv, _ := e.envelope(t, id, from, to)
	return lv
}

// envelope GETs a job's envelope over [from, to] s (the whole file when to
// is 0): its levels and its tracks' levels.
func (e *testEnv) envelope(t *testing.T, id string, from, to float64) ([]float64, [][]float64) {
	t.Helper()
	path := fmt.Sprintf("/api/v1/jobs/%s/envelope", id)
	if to > 0 {
		path += fmt.Sprintf("?from=%g&to=%g", from, to)
	}
	resp, b := e.call(t, "GET", path, proKey, nil, nil)
	var env apiv1.Envelope
	if resp.StatusCode != 200 || json.Unmarshal(b, &env) != nil || len(env.Levels) == 0 {
		t.Fatalf("envelope: %d %s", resp.StatusCode, b)
	}
	return env.Levels, env.Tracks
}

func lens(x [][]float64) []int {
	out := make([]int, len(x))
	for i, v := range x {
		out[i] = len(v)
	}
	return out
}

func (e *testEnv) envelopeMin(t *testing.T, id string, from, to float64) float64 {
	return slices.Min(e.envelopeLevels(t, id, from, to))
}

func (e *testEnv) envelopeMax(t *testing.T, id string, from, to float64) float64 {
	return slices.Max(e.envelopeLevels(t, id, from, to))
}

// streamsMKV is a 1 s MKV of n audio streams, each the same tone.
func streamsMKV(t *testing.T, n int) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "many.mkv")
	args := []string{"-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=1:sample_rate=8000"}
	for range n {
		args = append(args, "-map", "0:a")
	}
	if b, err := exec.Command("ffmpeg", append(args, "-c:a", "pcm_s16le", p)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// channelsWAV is a 1 s WAV of n channels, each the same tone.
func channelsWAV(t *testing.T, n int) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "many.wav")
	var labels strings.Builder
	for i := range n {
		fmt.Fprintf(&labels, "[a%d]", i)
	}
	graph := fmt.Sprintf("[0:a]asplit=%d%s;%samerge=inputs=%d[o]", n, labels.String(), labels.String(), n)
	if b, err := exec.Command("ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=d=1:sample_rate=8000",
		"-filter_complex", graph, "-map", "[o]", "-c:a", "pcm_s16le", p).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTracksGateBleed: with export.gateBleed each track of the mix is
// turned down outside its own voice. What the gate takes out of the mix
// (the mix without it less the mix with it) is the bleed: in each
// speaker's turn it stands about 15 dB under the mix (the bleed's level),
// never at the mix's own level, which it would if a voice were gated.
func TestTracksGateBleed(t *testing.T) {
	e := managerEnv(t, func(c *jobs.Config) { c.Engine = nil; c.MaxInputBytes = 64 << 20 })
	body := bleedMics(t)
	render := func(gate bool) []float32 {
		t.Helper()
		opts := fmt.Sprintf(`{"preset":"podcast","tracks":"streams","export":{"format":"wav","normalize":"none","gateBleed":%v}}`, gate)
		resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(string(body)), map[string]string{"X-Filename": "show.mkv", "X-Options": opts})
		var v apiv1.Job
		if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil {
			t.Fatalf("create: %d %s", resp.StatusCode, b)
		}
		v, b = waitDone(t, e, v, 2*time.Minute)
		if v.Status != apiv1.StatusDone || v.Export.GateBleed != gate {
			t.Fatalf("job (gateBleed %v): %s", gate, b)
		}
		resp, out := e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/download", proKey, nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("download: %d", resp.StatusCode)
		}
		return monoSamples(t, out)
	}
	// On a job of one track there is nothing to gate: refused before the
	// body is read (so a body of a few bytes, see TestTracksRefused).
	resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF...."),
		map[string]string{"X-Filename": "show.mkv", "X-Options": `{"export":{"gateBleed":true}}`})
	if resp.StatusCode != 400 || !strings.Contains(string(b), "invalid_parameter") || !strings.Contains(string(b), "gateBleed") {
		t.Errorf("gateBleed without tracks: %d %s, want 400 invalid_parameter", resp.StatusCode, b)
	}
	plain, gated := render(false), render(true)
	if len(plain) != len(gated) {
		t.Fatalf("the mixes last %d and %d samples: the gate must not move a cut", len(plain), len(gated))
	}
	const win = 2205 // 50 ms at 44.1 kHz
	var ratios []float64
	worst := math.Inf(-1)
	for i := 0; i+win <= len(plain); i += win {
		var pe, de float64
		for _, x := range plain[i : i+win] {
			pe += float64(x) * float64(x)
		}
		for j := i; j < i+win; j++ {
			d := float64(plain[j] - gated[j])
			de += d * d
		}
		if 10*math.Log10(pe/win+1e-20) < -40 {
			continue // nobody speaks: nothing to compare
		}
		r := 10 * math.Log10((de+1e-20)/pe)
		ratios = append(ratios, r)
		worst = max(worst, r)
	}
	if len(ratios) < 40 {
		t.Fatalf("%d windows of speech in the mix, want both turns (2 x 2.5 s)", len(ratios))
	}
	slices.Sort(ratios)
	median := ratios[len(ratios)/2]
	t.Logf("what the gate took out, against the mix, over %d windows of 50 ms: median %.1f dB, worst %.1f dB", len(ratios), median, worst)
	if median < -19 || median > -11 {
		t.Errorf("the gate took out %.1f dB under the mix at the median, want the bleed's -15 dB (±4)", median)
	}
	if worst > -6 {
		t.Errorf("in one 50 ms window the gate took out %.1f dB against the mix: a voice was turned down", worst)
	}
}

// bleedMics is a 10 s recording of two microphones, one per stream: the
// host (440 Hz) over [0.5, 3), the guest (660 Hz) over [5, 7.5), each as
// loud on its own track and heard on the other's 15 dB down.
func bleedMics(t *testing.T) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "show.mkv")
	track := func(own, other string) string {
		return fmt.Sprintf("aevalsrc=exprs='0.3*%s+0.0534*%s+0.0003*sin(2*PI*550*t)':s=44100:d=10", own, other)
	}
	host, guest := "between(t,0.5,3)*sin(2*PI*440*t)", "between(t,5,7.5)*sin(2*PI*660*t)"
	args := []string{"-v", "error", "-y", "-f", "lavfi", "-i", track(host, guest), "-f", "lavfi", "-i", track(guest, host),
		"-map", "0:a", "-map", "1:a", "-c:a", "pcm_s16le", p}
	if b, err := exec.Command("ffmpeg", args...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// monoSamples decodes a file's bytes to mono float samples with ffmpeg.
func monoSamples(t *testing.T, body []byte) []float32 {
	t.Helper()
	f := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(f, body, 0o600); err != nil {
		t.Fatal(err)
	}
	raw, err := exec.Command("ffmpeg", "-v", "error", "-i", f, "-f", "f32le", "-ac", "1", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg: %v", err)
	}
	out := make([]float32, len(raw)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}

// peakDb is the sample peak (dBFS) ffmpeg's volumedetect reads of a file's bytes.
func peakDb(t *testing.T, b []byte) float64 {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.wav")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ffmpeg", "-v", "info", "-i", p, "-af", "volumedetect", "-f", "null", "-").CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	_, rest, ok := strings.Cut(string(out), "max_volume: ")
	db, _, _ := strings.Cut(rest, " dB")
	v, err := strconv.ParseFloat(strings.TrimSpace(db), 64)
	if !ok || err != nil {
		t.Fatalf("volumedetect: no max_volume: %s", out)
	}
	return v
}
