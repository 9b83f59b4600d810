package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/jobs/store/sqlitestore"
	"github.com/autocut-dev/autocut/plan"
)

// textEngine is a jobs.Engine over text media "RIFF <seconds>": odd seconds
// are silent. It lets the adapter run against the real Manager (River,
// SQLite, fileblob, retention) without depending on codecs.
type textEngine struct{}

func (textEngine) Sniff(head []byte) string {
	switch {
	case strings.HasPrefix(string(head), "RIFF "):
		return "wav"
	case strings.HasPrefix(string(head), "VIDEO "):
		return "mp4"
	}
	return ""
}

func (textEngine) Analyze(ctx context.Context, r io.Reader, name string, maxDuration time.Duration, progress dsp.Progress) (*dsp.Analysis, error) {
	b := make([]byte, 32) // the head only: uploads in the load test are 200 MB
	n, _ := io.ReadFull(r, b)
	b = b[:n]
	var (
		sec  float64
		kind string
	)
	if _, err := fmt.Sscanf(string(b), "%s %g", &kind, &sec); err != nil || sec <= 0 {
		return nil, fmt.Errorf("%w: test media %q", dsp.ErrUnsupportedFormat, b)
	}
	typ := map[string]string{"RIFF": "audio", "VIDEO": "video"}[kind]
	n = int(sec * 100)
	a := &dsp.Analysis{Input: dsp.Info{Name: "in.wav", Type: typ, Format: "wav", Duration: sec, SampleRate: 48000, Channels: 1},
		Envelope: dsp.Envelope{FrameSec: 0.01, RMSDb: make([]float32, n), PeakDb: make([]float32, n)},
		BlockSec: 0.1, Blocks: make([]float64, n/10), ThresholdDb: -40}
	for i := range n {
		a.Envelope.RMSDb[i] = -20
		if (i/100)%2 == 1 {
			a.Envelope.RMSDb[i] = -80
		}
		a.Envelope.PeakDb[i] = a.Envelope.RMSDb[i]
	}
	progress(1)
	return a, nil
}

func (textEngine) Plan(a *dsp.Analysis, p plan.Params, extra []plan.Cut) (*plan.Plan, error) {
	th := a.ThresholdDb
	if p.ThresholdDb != nil {
		th = *p.ThresholdDb
	}
	out := &plan.Plan{ThresholdDb: th, Params: p}
	lv := a.Envelope.RMSDb
	for i := 0; i < len(lv); {
		quiet := float64(lv[i]) < th
		j := i
		for j < len(lv) && (float64(lv[j]) < th) == quiet {
			j++
		}
		r := plan.Range{Start: float64(i) / 100, End: float64(j) / 100}
		if quiet {
			out.Cuts = append(out.Cuts, plan.Cut{Start: r.Start, End: r.End, Reason: "silence"})
		} else {
			out.Keep = append(out.Keep, r)
			out.Stats.FinalSec += r.Len()
		}
		i = j
	}
	if len(out.Keep) == 0 {
		return nil, fmt.Errorf("%w: everything is under %g dB", plan.ErrNothingToKeep, th)
	}
	out.Stats.OriginalSec = a.Input.Duration
	out.Stats.SavedSec = out.Stats.OriginalSec - out.Stats.FinalSec
	out.Stats.CutsCount = len(out.Cuts)
	return out, nil
}

func (textEngine) Preset(name string) (plan.Params, apiv1.Export, error) {
	switch name {
	case "", "podcast", "youtube", "cours", "interview", "radical":
		return plan.Params{MinSilenceSec: 0.5, KeepSilenceMs: 200, MinSpeechMs: 100}, apiv1.Export{Normalize: "none"}, nil
	}
	return plan.Params{}, apiv1.Export{}, fmt.Errorf("%w: preset %q", plan.ErrInvalidParams, name)
}

func (textEngine) Validate(p plan.Params) error { return nil }

func (textEngine) Render(ctx context.Context, path string, a *dsp.Analysis, p *plan.Plan, e apiv1.Export, w io.Writer, dir string, progress dsp.Progress) (*jobs.Rendered, error) {
	body := fmt.Sprintf("rendered %s %.2f %s", e.Format, p.Stats.FinalSec, strings.Repeat("x", 1000))
	if _, err := io.WriteString(w, body); err != nil {
		return nil, err
	}
	container := map[string]string{"mp3_320": "mp3", "mp4_hq": "mp4"}[e.Format]
	if container == "" {
		container = e.Format
	}
	return &jobs.Rendered{Format: container, Duration: p.Stats.FinalSec, Size: int64(len(body))}, nil
}

func (textEngine) OutputName(in, format string) string {
	return strings.TrimSuffix(in, ".wav") + "-autocut." + format
}

// managerEnv serves the adapter over a real jobs.Manager on a temp dir.
func managerEnv(t testing.TB, mod func(*jobs.Config)) *testEnv {
	return managerEnvLog(t, mod, nil)
}

// managerEnvLog is managerEnv with the adapter's request log going to
// logTo (nil: a buffer the test can read).
func managerEnvLog(t testing.TB, mod func(*jobs.Config), logTo io.Writer) *testEnv {
	t.Helper()
	cfg := jobs.Config{DataDir: t.TempDir(), Workers: 2, Engine: textEngine{}, PollInterval: 20 * time.Millisecond,
		RetentionInterval: time.Hour, MaxInputBytes: 1 << 20,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if mod != nil {
		mod(&cfg)
	}
	ctx := context.Background()
	if cfg.Store == nil {
		st, err := sqlitestore.Open(ctx, filepath.Join(cfg.DataDir, "autocut.db"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Store = st
	}
	m, err := jobs.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := m.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	e := newTestEnv(t, func(c *Config) {
		c.Service, c.Ready, c.Collectors, c.AllowPrivateURLs, c.URLPorts = m, m.Ready, m.Collectors(), true, anyPort()
		if cfg.Engine == nil { // the real media engine: the real timeline writers too
			c.Timelines = nil
		}
		if logTo != nil {
			c.Logger = slog.New(slog.NewTextHandler(logTo, nil))
		}
	})
	e.fake = nil
	return e
}

// poll GETs the job until cond holds.
func (e *testEnv) poll(t testing.TB, key, id string, cond func(apiv1.Job) bool) apiv1.Job {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, b := e.call(t, "GET", "/api/v1/jobs/"+id, key, nil, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("GET job: %d %s", resp.StatusCode, b)
		}
		var v apiv1.Job
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s stuck: %s", id, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isDone(v apiv1.Job) bool { return v.Status == apiv1.StatusDone || v.Status == apiv1.StatusFailed }

// TestManagerEndToEnd runs the spec's three steps against the real job
// layer: both creation forms, each export format, each preset, autoExport
// false, PATCH re-export, list paging, delete, the typed failures.
func TestManagerEndToEnd(t *testing.T) {
	e := managerEnv(t, nil)
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "RIFF 6")
	}))
	defer files.Close()

	check := func(t *testing.T, v apiv1.Job, format, container string) {
		t.Helper()
		v = e.poll(t, proKey, v.ID, isDone)
		if v.Status != apiv1.StatusDone || v.Output == nil || v.Plan == nil || v.Timelines == nil || v.Progress != 100 {
			t.Fatalf("job not done properly: %+v", v)
		}
		if v.Output.Format != container || v.Export.Format != format || v.Plan.Stats.OriginalSec != 6 || v.Plan.Stats.FinalSec != 3 {
			t.Errorf("output %+v export %+v stats %+v", v.Output, v.Export, v.Plan.Stats)
		}
		if d := v.Input.Duration; d == nil || *d != 6 {
			t.Errorf("input.duration %v", d)
		}
		if !strings.HasPrefix(v.Output.URL, e.srv.URL+"/api/v1/jobs/"+v.ID+"/download") {
			t.Errorf("output.url %q", v.Output.URL)
		}
		resp, b := e.call(t, "GET", strings.TrimPrefix(v.Output.URL, e.srv.URL), proKey, nil, nil)
		if resp.StatusCode != 200 || !strings.HasPrefix(string(b), fmt.Sprintf("rendered %s 3.00", format)) ||
			!strings.Contains(resp.Header.Get("Content-Disposition"), v.Output.Name) || resp.Header.Get("ETag") == "" {
			t.Errorf("download: %d %.40q %v", resp.StatusCode, b, resp.Header)
		}
		resp, b = e.call(t, "GET", strings.TrimPrefix(v.Output.URL, e.srv.URL), proKey, nil, map[string]string{"Range": "bytes=0-7"})
		if resp.StatusCode != 206 || string(b) != "rendered" {
			t.Errorf("range: %d %q", resp.StatusCode, b)
		}
		resp, b = e.call(t, "GET", strings.TrimPrefix(v.Timelines.EDL, e.srv.URL), proKey, nil, nil)
		if resp.StatusCode != 200 || !strings.Contains(string(b), "keep=[{0 1} {2 3} {4 5}]") {
			t.Errorf("timeline: %d %s", resp.StatusCode, b)
		}
	}
	for _, tc := range []struct{ format, container string }{
		{"mp3", "mp3"}, {"mp3_320", "mp3"}, {"wav", "wav"}, {"m4a", "m4a"},
	} {
		t.Run("formB/"+tc.format, func(t *testing.T) {
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF 6"),
				map[string]string{"X-Filename": "talk.wav", "X-Options": fmt.Sprintf(`{"export":{"format":%q}}`, tc.format)})
			var v apiv1.Job
			if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil || v.Status != apiv1.StatusAnalyzing || v.Output != nil || v.Progress != 0 || v.Input.Duration != nil {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			check(t, v, tc.format, tc.container)
		})
		t.Run("formA/"+tc.format, func(t *testing.T) {
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader(fmt.Sprintf(`{"url":%q,"export":{"format":%q}}`, files.URL+"/talk.wav", tc.format)),
				map[string]string{"Content-Type": "application/json"})
			var v apiv1.Job
			if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil || v.Input.Name != "talk.wav" {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			check(t, v, tc.format, tc.container)
		})
	}
	for _, preset := range plan.PresetNames() {
		t.Run("preset/"+preset, func(t *testing.T) {
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF 6"),
				map[string]string{"X-Filename": "p.wav", "X-Options": fmt.Sprintf(`{"preset":%q}`, preset)})
			var v apiv1.Job
			if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil || v.Preset != preset {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			check(t, v, "mp3", "mp3")
		})
	}
	for _, tc := range []struct{ format, container string }{{"mp4", "mp4"}, {"mp4_hq", "mp4"}, {"mp3", "mp3"}} {
		t.Run("video/"+tc.format, func(t *testing.T) {
			resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("VIDEO 6"),
				map[string]string{"X-Filename": "clip.mp4", "X-Options": fmt.Sprintf(`{"export":{"format":%q}}`, tc.format)})
			var v apiv1.Job
			if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil {
				t.Fatalf("create: %d %s", resp.StatusCode, b)
			}
			check(t, v, tc.format, tc.container)
			if v = e.poll(t, proKey, v.ID, isDone); v.Input.Type != "video" {
				t.Errorf("input.type %q", v.Input.Type)
			}
		})
	}
	t.Run("too long", func(t *testing.T) {
		v := e.upload(t, proKey, "long.wav", "RIFF 10801")
		v = e.poll(t, proKey, v.ID, isDone)
		if v.Status != apiv1.StatusFailed || v.Error == nil || v.Error.Code != "too_long" {
			t.Errorf("3 h + 1 s: %+v %+v", v.Status, v.Error)
		}
	})
	// mp4 of an audio input is refused synchronously.
	resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF 6"), map[string]string{"X-Options": `{"export":{"format":"mp4"}}`})
	if resp.StatusCode/100 != 4 {
		t.Errorf("mp4 for audio: %d %s", resp.StatusCode, b)
	}

	t.Run("autoExport false then PATCH export", func(t *testing.T) {
		resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF 4"), map[string]string{"X-Options": `{"autoExport":false}`})
		var v apiv1.Job
		if resp.StatusCode != 202 || json.Unmarshal(b, &v) != nil {
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		v = e.poll(t, proKey, v.ID, isDone)
		if v.Status != apiv1.StatusDone || v.Output != nil || v.Plan == nil || v.Timelines == nil {
			t.Fatalf("autoExport false: %+v", v)
		}
		if resp, b := e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/download", proKey, nil, nil); resp.StatusCode != 409 || decodeErr(t, b).Code != "not_rendered" {
			t.Errorf("download without output: %d %s", resp.StatusCode, b)
		}
		resp, b = e.call(t, "PATCH", "/api/v1/jobs/"+v.ID, proKey, strings.NewReader(`{"params":{"thresholdDb":-50},"export":{"format":"wav"},"action":"export"}`), nil)
		if resp.StatusCode != 202 {
			t.Fatalf("patch: %d %s", resp.StatusCode, b)
		}
		v = e.poll(t, proKey, v.ID, func(v apiv1.Job) bool { return isDone(v) && v.Output != nil })
		if v.Output.Format != "wav" || v.Plan.Stats.FinalSec != 2 || *v.Params.ThresholdDb != -50 || v.Plan.ThresholdDb != -50 {
			t.Errorf("re-export: output %+v stats %+v", v.Output, v.Plan.Stats)
		}
		// Preview and envelope of the stored analysis.
		_, b = e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/preview?thresholdDb=-30", proKey, nil, nil)
		var p apiv1.Preview
		if json.Unmarshal(b, &p) != nil || p.Stats.FinalSec != 2 || len(p.Keep) == 0 {
			t.Errorf("preview: %s", b)
		}
		_, b = e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/envelope?points=40", proKey, nil, nil)
		var env apiv1.Envelope
		if json.Unmarshal(b, &env) != nil || len(env.Levels) != 40 || env.Levels[0] != -20 || env.Levels[15] != -80 {
			t.Errorf("envelope: %s", b)
		}
		// Nothing to keep: a failed job whose error maps to 422.
		resp, b = e.call(t, "PATCH", "/api/v1/jobs/"+v.ID, proKey, strings.NewReader(`{"params":{"thresholdDb":-10},"action":"export"}`), nil)
		if resp.StatusCode != 202 && resp.StatusCode != 422 {
			t.Fatalf("patch nothing to keep: %d %s", resp.StatusCode, b)
		}
		if resp.StatusCode == 202 {
			v = e.poll(t, proKey, v.ID, func(v apiv1.Job) bool { return v.Status == apiv1.StatusFailed })
			if v.Error == nil || v.Error.Code != "nothing_to_keep" {
				t.Errorf("failed job error %+v", v.Error)
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		resp, b := e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("%PDF-1.7 not media"), nil)
		if resp.StatusCode != 415 {
			t.Errorf("pdf: %d %s", resp.StatusCode, b)
		}
		resp, b = e.call(t, "POST", "/api/v1/jobs", proKey, io.MultiReader(strings.NewReader("RIFF 6 "), io.LimitReader(zeroReader{}, 2<<20)), nil)
		if resp.StatusCode != 413 {
			t.Errorf("over the manager's limit: %d %s", resp.StatusCode, b)
		}
		resp, b = e.call(t, "POST", "/api/v1/jobs", proKey, strings.NewReader("RIFF 6"), map[string]string{"X-Options": `{"transcribe":true}`})
		if resp.StatusCode != 501 || decodeErr(t, b).Code != "transcription_unavailable" {
			t.Errorf("transcribe without engine: %d %s", resp.StatusCode, b)
		}
		resp, _ = e.call(t, "GET", "/api/v1/jobs/job_doesnotexist", proKey, nil, nil)
		if resp.StatusCode != 404 {
			t.Errorf("unknown: %d", resp.StatusCode)
		}
	})

	t.Run("list paging, other key, delete", func(t *testing.T) {
		var ids []string
		for range 5 {
			ids = append(ids, e.upload(t, proKey2, "l.wav", "RIFF 2").ID)
		}
		var got []string
		cursor := ""
		for range 10 {
			_, b := e.call(t, "GET", "/api/v1/jobs?limit=2&cursor="+cursor, proKey2, nil, nil)
			var page apiv1.JobList
			if err := json.Unmarshal(b, &page); err != nil {
				t.Fatal(err)
			}
			for _, j := range page.Jobs {
				got = append(got, j.ID)
			}
			if page.NextCursor == nil {
				break
			}
			cursor = *page.NextCursor
		}
		if fmt.Sprint(got) != fmt.Sprint([]string{ids[4], ids[3], ids[2], ids[1], ids[0]}) {
			t.Errorf("pages %v, want newest first of %v", got, ids)
		}
		if resp, _ := e.call(t, "GET", "/api/v1/jobs/"+ids[0], proKey, nil, nil); resp.StatusCode != 404 {
			t.Errorf("other key sees job: %d", resp.StatusCode)
		}
		e.poll(t, proKey2, ids[0], isDone)
		if resp, _ := e.call(t, "DELETE", "/api/v1/jobs/"+ids[0], proKey, nil, nil); resp.StatusCode != 404 {
			t.Errorf("other key deletes job: %d", resp.StatusCode)
		}
		if resp, _ := e.call(t, "DELETE", "/api/v1/jobs/"+ids[0], proKey2, nil, nil); resp.StatusCode != 204 {
			t.Errorf("delete: %d", resp.StatusCode)
		}
		if resp, _ := e.call(t, "GET", "/api/v1/jobs/"+ids[0], proKey2, nil, nil); resp.StatusCode != 404 {
			t.Errorf("deleted job: %d", resp.StatusCode)
		}
		if resp, _ := e.call(t, "DELETE", "/api/v1/jobs/"+ids[1], proKey2, nil, nil); resp.StatusCode != 204 {
			t.Errorf("delete while running or done: %d", resp.StatusCode)
		}
	})

	resp, b = e.call(t, "GET", "/metrics", "", nil, nil)
	if !strings.Contains(string(b), "autocut_jobs{") {
		t.Errorf("manager collectors not on /metrics: %d", resp.StatusCode)
	}
	if resp, b := e.call(t, "GET", "/readyz", "", nil, nil); resp.StatusCode != 200 {
		t.Errorf("readyz: %d %s", resp.StatusCode, b)
	}
}

// TestRetentionExpiry: after the outputs TTL the job keeps its record, its
// output becomes null and download answers 404 output_expired.
func TestRetentionExpiry(t *testing.T) {
	e := managerEnv(t, func(c *jobs.Config) {
		c.OutputsTTL, c.OriginalsTTL, c.RetentionInterval = 1500*time.Millisecond, time.Hour, 300*time.Millisecond
	})
	v := e.upload(t, proKey, "r.wav", "RIFF 4")
	v = e.poll(t, proKey, v.ID, isDone)
	if v.Output == nil {
		t.Fatalf("no output: %+v", v)
	}
	if resp, _ := e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/download", proKey, nil, nil); resp.StatusCode != 200 {
		t.Fatalf("download before expiry: %d", resp.StatusCode)
	}
	v = e.poll(t, proKey, v.ID, func(v apiv1.Job) bool { return v.Output == nil })
	if v.Status != apiv1.StatusDone || v.Plan == nil {
		t.Errorf("record after expiry: %+v", v)
	}
	resp, b := e.call(t, "GET", "/api/v1/jobs/"+v.ID+"/download", proKey, nil, nil)
	if got := decodeErr(t, b); resp.StatusCode != 404 || got.Code != "output_expired" {
		t.Errorf("download after expiry: %d %s", resp.StatusCode, b)
	}
}
