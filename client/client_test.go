package client

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/httpapi"
	"github.com/autocut-dev/autocut/jobs"
)

// server starts the real job layer and HTTP adapter on 127.0.0.1.
func server(t *testing.T) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	m, err := jobs.Open(ctx, jobs.Config{DataDir: t.TempDir(), Workers: 2, PollInterval: 20 * time.Millisecond,
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
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Service: m, Keys: keys, AllowPrivateURLs: true,
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
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := New(srv.URL, "pro1")
	c.PollInterval = 50 * time.Millisecond
	path := media(t)
	format := "wav"

	j, err := c.CreateFromFile(ctx, path, Options{Preset: "youtube", Export: &jobs.ExportInput{Format: &format}})
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != jobs.StatusAnalyzing || j.Input.Name != "talk.wav" {
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
	j2, err := c.CreateFromURL(ctx, files.URL+"/talk.wav", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctx, j2.ID); err != nil {
		t.Fatal(err)
	}

	// Preview and envelope re-plan from the stored analysis.
	ms := 2.0
	pl, err := c.Preview(ctx, j.ID, jobs.ParamsInput{MinSilenceSec: &ms})
	if err != nil || pl == nil {
		t.Fatalf("preview: %v", err)
	}
	env, err := c.Envelope(ctx, j.ID, 100)
	if err != nil || len(env.Levels) == 0 {
		t.Fatalf("envelope: %v %+v", err, env)
	}

	// Patch and re-run.
	ks := 0.0
	if _, err := c.Patch(ctx, j.ID, Patch{Params: &jobs.ParamsInput{KeepSilenceMs: &ks}, Action: "export"}); err != nil {
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
	if _, err := c.Get(ctx, "job_nope"); !IsStatus(err, 404) {
		t.Errorf("unknown job: %v", err)
	}
	if _, err := New(srv.URL, "pro2").Get(ctx, j.ID); !IsStatus(err, 404) {
		t.Errorf("other key's job: %v", err)
	}
	if _, err := New(srv.URL, "nope").Get(ctx, j.ID); !IsStatus(err, 401) {
		t.Errorf("bad key: %v", err)
	}
	if _, _, err := New(srv.URL, "free1").List(ctx, 0, ""); !IsStatus(err, 402) {
		t.Errorf("free key: %v", err)
	}
	_, err = c.Create(ctx, "notes.txt", strings.NewReader("just some text, not media"), -1, Options{})
	var ae *Error
	if !errors.As(err, &ae) || ae.Status != 415 || ae.Code == "" || ae.Message == "" {
		t.Errorf("text upload: %v", err)
	}
	bad := 99.0
	if _, err := c.Create(ctx, "x.wav", strings.NewReader("RIFF"), -1, Options{Params: &jobs.ParamsInput{MinSilenceSec: &bad}}); !IsStatus(err, 400) {
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
