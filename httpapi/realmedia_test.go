package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/internal/testtier"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/transcribe"
)

// genMedia makes a test file with ffmpeg: tone bursts with pauses (speech-like
// for the planner), optionally with a 29.97 fps video track.
func genMedia(t *testing.T, name string, video bool) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	args := []string{"-v", "error", "-y"}
	if video {
		args = append(args, "-f", "lavfi", "-i", "testsrc2=size=96x54:rate=30000/1001:duration=12")
	}
	args = append(args, "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=4:amplitude=0.4:d=12:r=44100",
		"-af", "volume='if(lt(mod(t,4),2.5),1,0.001)':eval=frame")
	if video {
		args = append(args, "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest")
	} else {
		args = append(args, "-ac", "2")
	}
	if b, err := exec.Command("ffmpeg", append(args, p)...).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRealMediaEndToEnd runs the spec's three steps over HTTP with the
// default media engine (real decoding, planning, rendering with ffmpeg):
// every export format, including mp4/mp4_hq from a video input, and checks
// the downloaded file with ffprobe against output.duration and the plan.
func TestRealMediaEndToEnd(t *testing.T) {
	e := managerEnv(t, func(c *jobs.Config) { c.Engine = nil; c.MaxInputBytes = 64 << 20 })
	audio := genMedia(t, "talk.wav", false)
	video := genMedia(t, "clip.mp4", true)
	for _, tc := range []struct {
		format, container, name string
		body                    []byte
	}{
		{"mp3", "mp3", "talk.wav", audio}, {"mp3_320", "mp3", "talk.wav", audio}, {"wav", "wav", "talk.wav", audio},
		{"m4a", "m4a", "talk.wav", audio}, {"mp4", "mp4", "clip.mp4", video}, {"mp4_hq", "mp4", "clip.mp4", video},
	} {
		t.Run(tc.format, func(t *testing.T) {
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(string(tc.body)),
				map[string]string{"X-Filename": tc.name, "X-Options": fmt.Sprintf(`{"preset":"youtube","export":{"format":%q}}`, tc.format)})
			var v apiv1.Job
			if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			v, b = waitDone(t, e, v, 2*time.Minute)
			if v.Status != apiv1.StatusDone || v.Output == nil || v.Plan == nil {
				t.Fatalf("job: %s", b)
			}
			if v.Output.Format != tc.container || !strings.HasSuffix(v.Output.Name, "-autocut."+map[string]string{"mp3": "mp3", "wav": "wav", "m4a": "m4a", "mp4": "mp4"}[tc.container]) {
				t.Errorf("output %+v", v.Output)
			}
			resp, body := e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/download", proKey, nil, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("download: %d", resp.StatusCode)
			}
			f := filepath.Join(t.TempDir(), v.Output.Name)
			os.WriteFile(f, body, 0o600)
			out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration,format_name", "-of", "default=nw=1", f).Output()
			if err != nil {
				t.Fatalf("ffprobe of the download: %v", err)
			}
			var dur float64
			for _, l := range strings.Split(string(out), "\n") {
				if d, ok := strings.CutPrefix(l, "duration="); ok {
					dur, _ = strconv.ParseFloat(d, 64)
				}
			}
			t.Logf("%s: plan %.3f s (%d cuts), output.duration %.3f s, ffprobe %.3f s, %d bytes",
				tc.format, v.Plan.Stats.FinalSec, v.Plan.Stats.CutsCount, v.Output.Duration, dur, len(body))
			for kind, ct := range map[string]string{"fcpxml": "application/xml", "premiere": "application/xml", "edl": "text/plain", "otio": "application/json", "csv": "text/csv"} {
				resp, tb := e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/timelines/"+kind+"?dropFrame="+strconv.FormatBool(tc.container == "mp4"), proKey, nil, nil)
				if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), ct) || len(tb) < 100 {
					t.Errorf("timeline %s: %d %s %.200s", kind, resp.StatusCode, resp.Header.Get("Content-Type"), tb)
				}
				if kind == "edl" && tc.container == "mp4" && !strings.Contains(string(tb), "FCM: DROP FRAME") {
					t.Errorf("video EDL at 29.97 with dropFrame: %.200s", tb)
				}
			}
			if v.Plan.Stats.CutsCount == 0 || math.Abs(v.Output.Duration-v.Plan.Stats.FinalSec) > 0.1 || math.Abs(dur-v.Output.Duration) > 0.1 {
				t.Errorf("durations disagree")
			}
		})
	}
	// An audio input cannot become mp4: the job is refused with 400 up front
	// or fails with a clear error, never renders.
	resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(string(audio)),
		map[string]string{"X-Filename": "talk.wav", "X-Options": `{"export":{"format":"mp4"}}`})
	if resp.StatusCode == 202 {
		var v apiv1.Job
		json.Unmarshal(b, &v)
		v, b = waitDone(t, e, v, time.Minute)
		if v.Status != apiv1.StatusFailed || v.Error == nil {
			t.Errorf("mp4 from audio: %s", b)
		}
	} else if resp.StatusCode != 400 {
		t.Errorf("mp4 from audio: %d %s", resp.StatusCode, b)
	}
}

// TestRealTranscriptionSuggestsFillers: a job with transcribe true runs
// the pocketsphinx engine; its "um" is listed as a suggestion (kind,
// confidence, cut false: pocketsphinx's fillers do not reach precision 0.9
// on the labelled speech, see transcribe.PocketsphinxAutoCut) and not cut;
// accepting it by PATCH cuts it.
func TestRealTranscriptionSuggestsFillers(t *testing.T) {
	tr, err := transcribe.New(context.Background(), transcribe.Config{Order: []string{"pocketsphinx"}})
	if err != nil {
		t.Fatal(err)
	}
	e := managerEnv(t, func(c *jobs.Config) { c.Engine = nil; c.MaxInputBytes = 64 << 20; c.Transcriber = tr })
	dir := t.TempDir()
	var parts []string
	for i, text := range []string{"So I think we should go to the market today.", "um", "The quarterly numbers came in higher than anyone expected."} {
		f := filepath.Join(dir, strconv.Itoa(i)+".wav")
		if b, err := exec.Command("flite", "-voice", "rms", "-t", text, "-o", f).CombinedOutput(); err != nil {
			t.Fatalf("flite: %v %s", err, b)
		}
		parts = append(parts, f)
	}
	speech := filepath.Join(dir, "talk.wav")
	if b, err := exec.Command("sox", append(parts, speech, "pad", "0.3", "0.3")...).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, b)
	}
	body, _ := os.ReadFile(speech)
	resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(string(body)),
		map[string]string{"X-Filename": "talk.wav", "X-Options": `{"transcribe":true,"language":"en","autoExport":false}`})
	var v apiv1.Job
	if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil {
		t.Fatalf("create: %d %s", resp.StatusCode, b)
	}
	v, b = waitDone(t, e, v, 2*time.Minute)
	if v.Status != apiv1.StatusDone || v.Plan == nil || v.Transcript == nil || v.Language != "en" {
		t.Fatalf("job: %s", b)
	}
	t.Logf("transcript: %d words, fillers %+v; plan cuts %+v", len(v.Transcript.Words), v.Transcript.Fillers, v.Plan.Cuts)
	if n := countFillerCuts(v); n != 0 || !v.Export.CutFillers {
		t.Errorf("%d filler cuts of suggestions (cutFillers %v)", n, v.Export.CutFillers)
	}
	id := -1
	for _, f := range v.Transcript.Fillers {
		if f.Cut {
			t.Errorf("filler %+v cut: pocketsphinx only suggests", f)
		}
		if f.Kind != "filler" || f.Confidence <= 0 {
			t.Errorf("filler %+v: kind and confidence", f)
		}
		if f.Word == "um" && id < 0 {
			id = f.ID
		}
	}
	if id < 0 {
		t.Fatalf("the um is not listed: %+v", v.Transcript.Fillers)
	}
	resp, b = e.call(t, "PATCH", "/api/v1/jobs/"+v.ID, proKey, strings.NewReader(fmt.Sprintf(`{"fillers":{"accept":[%d]}}`, id)), nil)
	if resp.StatusCode/100 != 2 || json.Unmarshal(b, &v) != nil {
		t.Fatalf("PATCH fillers: %d %s", resp.StatusCode, b)
	}
	if n := countFillerCuts(v); n != 1 || !v.Transcript.Fillers[id].Cut || v.Transcript.Fillers[id].Review != "accept" {
		t.Errorf("after accepting filler %d: %d filler cuts, %+v", id, n, v.Transcript.Fillers[id])
	}
	resp, b = e.call(t, "PATCH", "/api/v1/jobs/"+v.ID, proKey, strings.NewReader(`{"fillers":{"accept":[999]}}`), nil)
	if resp.StatusCode != 400 || !strings.Contains(string(b), "no filler 999") {
		t.Errorf("PATCH an unknown filler: %d %s", resp.StatusCode, b)
	}
}

func countFillerCuts(v apiv1.Job) int {
	n := 0
	for _, c := range v.Plan.Cuts {
		if c.Reason == "filler" {
			n++
		}
	}
	return n
}

// TestRealFrenchGetsNoEnglishFillers: French speech (an Asterisk French
// prompt) on a server whose one engine is pocketsphinx's English model.
// With language fr, the engine is not used: the transcript says no engine
// hears French, lists no filler, and nothing is cut as a filler. With no
// language given (slow tier: pocketsphinx runs over 71 s) it is heard as
// English, says so, and cuts no filler.
func TestRealFrenchGetsNoEnglishFillers(t *testing.T) {
	tr, err := transcribe.New(context.Background(), transcribe.Config{Order: []string{"pocketsphinx"}})
	if err != nil {
		t.Fatal(err)
	}
	e := managerEnv(t, func(c *jobs.Config) { c.Engine = nil; c.MaxInputBytes = 64 << 20; c.Transcriber = tr })
	body, err := os.ReadFile("../testdata/recordings/fr_asterisk_june_demo-instruct_71s.wav")
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"fr", ""} {
		t.Run("language "+strconv.Quote(lang), func(t *testing.T) {
			if lang == "" {
				testtier.Slow(t, "pocketsphinx over 71 s of French")
			}
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(string(body)),
				map[string]string{"X-Filename": "fr.wav", "X-Options": fmt.Sprintf(`{"transcribe":true,"language":%q,"autoExport":false}`, lang)})
			var v apiv1.Job
			if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			v, b = waitDone(t, e, v, 3*time.Minute)
			if v.Status != apiv1.StatusDone || v.Plan == nil || v.Transcript == nil || v.Language != lang {
				t.Fatalf("job: %.600s", b)
			}
			ts := v.Transcript
			t.Logf("transcript: language %q engine %q warning %q, %d words, %d fillers", ts.Language, ts.Engine, ts.Warning, len(ts.Words), len(ts.Fillers))
			if n := countFillerCuts(v); n != 0 {
				t.Errorf("%d fillers cut from French speech", n)
			}
			for _, f := range ts.Fillers {
				if f.Cut {
					t.Errorf("filler %+v cut", f)
				}
			}
			switch lang {
			case "fr":
				if ts.Engine != "" || len(ts.Words) != 0 || len(ts.Fillers) != 0 || !strings.Contains(ts.Warning, `hears "fr"`) || !strings.Contains(ts.Warning, "English") {
					t.Errorf("French given to the English model, or no warning: %+v", ts)
				}
			default:
				if ts.Language != "en" || ts.Warning != transcribe.WarnLanguageAssumed {
					t.Errorf("language not given: %q, warning %q", ts.Language, ts.Warning)
				}
			}
		})
	}
}

// waitDone polls a job (real media takes seconds) until done or failed,
// returning its last view and body.
func waitDone(t *testing.T, e *testEnv, v apiv1.Job, limit time.Duration) (apiv1.Job, []byte) {
	t.Helper()
	deadline := time.Now().Add(limit)
	var b []byte
	for !isDone(v) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		_, b = e.call(t, "GET", "/api/v1/jobs/"+v.ID, proKey, nil, nil)
		v = apiv1.Job{}
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("job %s: %v %s", v.ID, err, b)
		}
	}
	return v, b
}
