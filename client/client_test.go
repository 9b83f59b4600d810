package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/httpapi"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/jobs/store/sqlitestore"
)

// server starts the real job layer and HTTP adapter on 127.0.0.1.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	m, err := jobs.Open(ctx, jobs.Config{DataDir: t.TempDir(), Store: openStore(t), Workers: 2, PollInterval: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		m.Stop(ctx)
	})
	keys := httpapi.NewKeyStore()
	if err := keys.ParseKeys("pro1:pro,pro2:pro,free1:free"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Service: m, Keys: keys, AllowPrivateURLs: true, URLPorts: anyPort(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	return srv
}

func media(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "talk.wav")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=4:amplitude=0.4:d=10",
		"-af", "volume='if(lt(mod(t,4),2.5),1,0.001)':eval=frame", p).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	return p
}

func TestClientAgainstServer(t *testing.T) {
	srv := server(t)
	// Generous: scripts/test.sh runs this under -race too, which makes the
	// real media pipeline several times slower on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := New(srv.URL, "pro1")
	c.PollInterval = 50 * time.Millisecond
	path := media(t)
	format := "wav"

	j, err := c.CreateFromFile(ctx, path, apiv1.Options{Preset: "youtube", Export: &apiv1.ExportInput{Format: &format}})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != apiv1.StatusAnalyzing || j.Input.Name != "talk.wav" {
		t.Fatalf("created %+v", j)
	}
	done, err := c.Wait(ctx, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if done.Output == nil || done.Plan == nil || done.Output.Format != "wav" {
		t.Fatalf("done job %+v", done)
	}
	var buf bytes.Buffer
	name, err := c.Download(ctx, j.ID, &buf)
	if err != nil || name != "talk-autocut.wav" || !bytes.HasPrefix(buf.Bytes(), []byte("RIFF")) {
		t.Fatalf("download: %q %v %.8q", name, err, buf.Bytes())
	}

	// URL form, from a local file server.
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, path) }))
	defer files.Close()
	j2, err := c.CreateFromURL(ctx, files.URL+"/talk.wav", apiv1.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctx, j2.ID); err != nil {
		t.Fatal(err)
	}

	// Preview and envelope re-plan from the stored analysis.
	ms := 2.0
	pv, err := c.Preview(ctx, j.ID, apiv1.ParamsInput{MinSilenceSec: &ms})
	if err != nil || pv.Params.MinSilenceSec != ms || pv.Warnings == nil {
		t.Fatalf("preview: %v %+v", err, pv)
	}
	env, err := c.Envelope(ctx, j.ID, 100)
	if err != nil || len(env.Levels) == 0 {
		t.Fatalf("envelope: %v %+v", err, env)
	}
	part, err := c.EnvelopeRange(ctx, j.ID, 1000, 0.5, 0.6)
	if err != nil || len(part.Levels) != 10 || part.Start != 0.5 || part.FrameSec != 0.01 {
		t.Fatalf("envelope of 0.5..0.6 s: %v %+v", err, part)
	}

	// Patch and re-run.
	ks := 0.0
	if _, err := c.Patch(ctx, j.ID, apiv1.Patch{Params: &apiv1.ParamsInput{KeepSilenceMs: &ks}, Action: apiv1.ActionExport}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctx, j.ID); err != nil {
		t.Fatal(err)
	}

	// List with paging.
	page, next, err := c.List(ctx, 1, "")
	if err != nil || len(page) != 1 || next == "" || page[0].ID != j2.ID {
		t.Fatalf("list page 1: %v %d %q", err, len(page), next)
	}
	page, next, err = c.List(ctx, 1, next)
	if err != nil || len(page) != 1 || page[0].ID != j.ID || next != "" {
		t.Fatalf("list page 2: %v %+v %q", err, page, next)
	}

	// Typed errors.
	if _, err := c.Get(ctx, "job_nope"); !IsStatus(err, 404) || !errors.Is(err, apiv1.ErrNotFound) {
		t.Errorf("unknown job: %v", err)
	}
	if _, err := New(srv.URL, "pro2").Get(ctx, j.ID); !IsStatus(err, 404) {
		t.Errorf("other key's job: %v", err)
	}
	if _, err := New(srv.URL, "nope").Get(ctx, j.ID); !IsStatus(err, 401) || !errors.Is(err, apiv1.ErrUnauthorized) {
		t.Errorf("bad key: %v", err)
	}
	if _, _, err := New(srv.URL, "free1").List(ctx, 0, ""); !IsStatus(err, 402) {
		t.Errorf("free key: %v", err)
	}
	_, err = c.Create(ctx, "notes.txt", strings.NewReader("just some text, not media"), -1, apiv1.Options{})
	var ae *apiv1.Error
	if !errors.As(err, &ae) || ae.Status != 415 || ae.Code != apiv1.CodeUnsupportedFormat || ae.Message == "" {
		t.Errorf("text upload: %v", err)
	}
	bad := 99.0
	if _, err := c.Create(ctx, "x.wav", strings.NewReader("RIFF"), -1, apiv1.Options{Params: &apiv1.ParamsInput{MinSilenceSec: &bad}}); !IsStatus(err, 400) || !errors.Is(err, apiv1.ErrInvalidParameter) {
		t.Errorf("bad params: %v", err)
	}

	// Delete.
	if err := c.Delete(ctx, j2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, j2.ID); !IsStatus(err, 404) {
		t.Errorf("deleted job: %v", err)
	}
	var tl bytes.Buffer
	if name, err := c.Timeline(ctx, j.ID, "csv", TimelineOptions{Rate: "25"}, &tl); err != nil || name != "talk-autocut.csv" || !strings.Contains(tl.String(), ",25\r\n") {
		t.Errorf("timeline: %q %v %.300s", name, err, tl.String())
	}
	if _, err := c.Timeline(ctx, j.ID, "edl", TimelineOptions{Rate: "25", DropFrame: true}, io.Discard); !IsStatus(err, 400) {
		t.Errorf("drop-frame at 25 fps: %v, want 400", err)
	}
	_ = os.Remove(path)
}

// TestClientSetCuts: an explicit cut list through the client, on real
// media rendered to WAV: the plan holds exactly those cuts (a detected one
// sent as it is keeps its reason, the others are manual) and the
// downloaded file is shorter than the original by their total, measured
// with ffprobe; the original downloads as uploaded.
func TestClientSetCuts(t *testing.T) {
	srv := server(t)
	// Generous: scripts/test.sh runs this under -race too, which makes the
	// real media pipeline several times slower on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := New(srv.URL, "pro1")
	c.PollInterval = 50 * time.Millisecond
	path := media(t)
	format := "wav"
	j, err := c.CreateFromFile(ctx, path, apiv1.Options{Export: &apiv1.ExportInput{Format: &format}})
	if err != nil {
		t.Fatal(err)
	}
	j, err = c.Wait(ctx, j.ID)
	if err != nil || j.Plan == nil || len(j.Plan.Cuts) < 2 {
		t.Fatalf("job %+v: %v", j, err)
	}
	dur := j.Plan.Stats.OriginalSec
	// The second detected cut as it is, one of the user's inside the first
	// kept stretch, and one at the very end.
	second := j.Plan.Cuts[1]
	cuts := []apiv1.Range{{Start: 0.5, End: 0.9}, {Start: second.Start, End: second.End}, {Start: dur - 0.25, End: dur}}
	if second.End >= dur-0.25 || j.Plan.Cuts[0].Start <= 0.9 {
		t.Fatalf("the detected cuts %+v leave no room for the test's own", j.Plan.Cuts)
	}
	if _, err := c.SetCuts(ctx, j.ID, cuts); err != nil {
		t.Fatal(err)
	}
	j, err = c.Wait(ctx, j.ID)
	if err != nil || j.Status != apiv1.StatusDone {
		t.Fatalf("after SetCuts: %+v %v", j, err)
	}
	want := []apiv1.Cut{{Start: 0.5, End: 0.9, Reason: jobs.ReasonManual}, {Start: second.Start, End: second.End, Reason: second.Reason},
		{Start: cuts[2].Start, End: dur, Reason: jobs.ReasonManual}}
	if diff := cmp.Diff(want, j.Plan.Cuts, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
		t.Errorf("plan cuts (-want +got):\n%s", diff)
	}
	total := 0.0
	for _, c := range cuts {
		total += c.End - c.Start
	}
	if math.Abs(j.Plan.Stats.FinalSec-(dur-total)) > 1e-6 {
		t.Errorf("plan final %.6f s, want %.6f", j.Plan.Stats.FinalSec, dur-total)
	}
	out := filepath.Join(t.TempDir(), "out.wav")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Download(ctx, j.ID, f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	t.Logf("original %.4f s, cuts %.4f s, output %.4f s (want %.4f)", dur, total, got, dur-total)
	if math.Abs(got-(dur-total)) > 0.002 {
		t.Errorf("output lasts %.4f s, want %.4f (the original less the cuts)", got, dur-total)
	}
	var orig bytes.Buffer
	if name, err := c.Original(ctx, j.ID, &orig); err != nil || name != "talk.wav" {
		t.Errorf("original: %q %v", name, err)
	}
	if in, _ := os.ReadFile(path); !bytes.Equal(in, orig.Bytes()) {
		t.Errorf("the original differs from the upload (%d bytes, want %d)", orig.Len(), len(in))
	}
	bad := []apiv1.Range{{Start: 2, End: 3}, {Start: 1, End: 1.5}}
	if _, err := c.SetCuts(ctx, j.ID, bad); !IsStatus(err, 400) {
		t.Errorf("unsorted cuts: %v, want 400", err)
	}
}

// TestFileName checks the names of Content-Disposition headers, ASCII and
// not (the server sends those as filename*, RFC 2231).
func TestFileName(t *testing.T) {
	for _, tc := range []struct{ header, want string }{
		{`attachment; filename="talk-autocut.mp3"`, "talk-autocut.mp3"},
		{`attachment; filename=plain.csv`, "plain.csv"},
		{`attachment; filename="semi;colon.edl"`, "semi;colon.edl"},
		{mime.FormatMediaType("attachment", map[string]string{"filename": "café é-autocut.mp3"}), "café é-autocut.mp3"},
		{mime.FormatMediaType("attachment", map[string]string{"filename": "会議-autocut.wav"}), "会議-autocut.wav"},
		{``, ""},
		{`attachment`, ""},
		{`attachment; filename=`, ""},
	} {
		resp := &http.Response{Header: http.Header{"Content-Disposition": {tc.header}}}
		if got := fileName(resp); got != tc.want {
			t.Errorf("fileName(%q) = %q, want %q", tc.header, got, tc.want)
		}
	}
}

// TestNonASCIIName uploads a file whose name is not ASCII and downloads
// its output under the name the server gives it.
func TestNonASCIIName(t *testing.T) {
	var gotName string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			gotName, _ = url.PathUnescape(r.Header.Get("X-Filename"))
			w.WriteHeader(http.StatusAccepted)
			fmt.Fprint(w, `{"id":"job_1","status":"analyzing"}`)
		default:
			w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "réunion 50%-autocut.mp3"}))
			fmt.Fprint(w, "ID3")
		}
	}))
	defer srv.Close()
	c := New(srv.URL, "k")
	ctx := context.Background()
	if _, err := c.Create(ctx, "réunion 50%.wav", strings.NewReader("RIFF"), 4, apiv1.Options{}); err != nil {
		t.Fatal(err)
	}
	if gotName != "réunion 50%.wav" {
		t.Errorf("server read X-Filename %q", gotName)
	}
	name, err := c.Download(ctx, "job_1", io.Discard)
	if err != nil || name != "réunion 50%-autocut.mp3" {
		t.Errorf("Download name %q, %v", name, err)
	}
}

// openStore opens a SQLite jobs database in a temporary directory.
func openStore(t *testing.T) *sqlitestore.DB {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "autocut.db"))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// anyPort lists every TCP port: the test's file servers listen on loopback
// ports the guard would otherwise refuse.
func anyPort() []uint16 {
	ps := make([]uint16, 0, 65535)
	for p := 1; p <= 65535; p++ {
		ps = append(ps, uint16(p))
	}
	return ps
}

// TestNoValueWithError: a method the API answers with an error returns no
// job, plan or envelope with it (they returned an empty one, which a
// caller could take for the server's answer, as Wait's failed job is).
func TestNoValueWithError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":"job not found: x","code":"not_found"}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	c := New(srv.URL, "k")
	for _, tc := range []struct {
		name string
		call func() (any, error)
	}{
		{"Create", func() (any, error) { return c.Create(ctx, "a.wav", strings.NewReader("RIFF"), 4, apiv1.Options{}) }},
		{"CreateFromURL", func() (any, error) { return c.CreateFromURL(ctx, "http://example.com/a.wav", apiv1.Options{}) }},
		{"Get", func() (any, error) { return c.Get(ctx, "x") }},
		{"Wait", func() (any, error) { return c.Wait(ctx, "x") }},
		{"Patch", func() (any, error) { return c.Patch(ctx, "x", apiv1.Patch{Action: apiv1.ActionExport}) }},
		{"SetCuts", func() (any, error) { return c.SetCuts(ctx, "x", nil) }},
		{"Preview", func() (any, error) { return c.Preview(ctx, "x", apiv1.ParamsInput{}) }},
		{"Envelope", func() (any, error) { return c.Envelope(ctx, "x", 100) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.call()
			if !errors.Is(err, apiv1.ErrNotFound) {
				t.Errorf("err %v, want ErrNotFound", err)
			}
			switch v := v.(type) {
			case *apiv1.Job:
				if v != nil {
					t.Errorf("job %+v with the error, want nil", *v)
				}
			case *apiv1.Preview:
				if v != nil {
					t.Errorf("preview %+v with the error, want nil", *v)
				}
			case *apiv1.Envelope:
				if v != nil {
					t.Errorf("envelope %+v with the error, want nil", *v)
				}
			default:
				t.Fatalf("unexpected %T", v)
			}
		})
	}
}

// TestWaitRidesOutOutage: Wait asks again after a 503's Retry-After (the
// server's database or storage away), and returns any other error at once.
func TestWaitRidesOutOutage(t *testing.T) {
	var polls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := polls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/api/v1/jobs/job_broken":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":"internal server error","code":"internal"}`)
		case n <= 2:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":"not ready: the database or the media storage is not answering; retry in a few seconds","code":"not_ready"}`)
		default:
			fmt.Fprint(w, `{"id":"job_a","status":"done","progress":100}`)
		}
	}))
	defer srv.Close()
	c := New(srv.URL, "k")
	c.PollInterval = 10 * time.Millisecond
	start := time.Now()
	j, err := c.Wait(context.Background(), "job_a")
	if err != nil || j.Status != apiv1.StatusDone {
		t.Fatalf("Wait through two 503s: %+v, %v", j, err)
	}
	if took := time.Since(start); polls.Load() != 3 || took < 1900*time.Millisecond {
		t.Errorf("Wait polled %d times in %v, want 3 polls, a Retry-After (1 s) apart", polls.Load(), took)
	}
	_, err = c.Get(context.Background(), "job_broken")
	if e, ok := errors.AsType[*apiv1.Error](err); !ok || e.Status != 500 || e.RetryAfter != 0 {
		t.Errorf("Get of a 500: %v", err)
	}
	polls.Store(0)
	if _, err := c.Wait(context.Background(), "job_broken"); !IsStatus(err, 500) || polls.Load() != 1 {
		t.Errorf("Wait on a 500: %v after %d polls, want it returned at once", err, polls.Load())
	}
	// An outage that outlasts ctx: ctx's error.
	polls.Store(-100)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := c.Wait(ctx, "job_a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait through an outage longer than ctx: %v", err)
	}
}
