package jobs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcribe"
)

// fakeMedia is a gateEngine input of sec seconds.
func fakeMedia(sec float64) *strings.Reader {
	return strings.NewReader(fmt.Sprintf("RIFF %g fake media\n", sec))
}

func TestFlowCreateDone(t *testing.T) {
	eng := &gateEngine{}
	m := testManager(t, t.TempDir(), eng, nil)
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o1", Name: "talk.wav"}, fakeMedia(10))
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != apiv1.StatusAnalyzing || j.Progress != 0 || j.Output != nil || j.Input.Duration != nil {
		t.Fatalf("fresh job = %+v", j)
	}
	j = waitJob(t, m, "o1", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	if j.Output == nil || j.Output.Name != "talk.wav-autocut.mp3" || j.Progress != 100 || j.Plan == nil {
		t.Fatalf("done job = %+v output %+v", j, j.Output)
	}
	d, err := m.OpenOutput(ctx, "o1", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := m.Get(ctx, "o2", j.ID); !errors.Is(err, apiv1.ErrNotFound) {
		t.Fatalf("other owner: %v", err)
	}
	// The original is served as uploaded, to its owner.
	o, err := m.OpenOriginal(ctx, "o1", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(o)
	o.Close()
	if string(b) != "RIFF 10 fake media\n" || o.Name != "talk.wav" || o.ContentType != "audio/wav" || o.Size != int64(len(b)) {
		t.Errorf("original %q %q %q size %d", b, o.Name, o.ContentType, o.Size)
	}
	if _, err := m.OpenOriginal(ctx, "o2", j.ID); !errors.Is(err, apiv1.ErrNotFound) {
		t.Errorf("another owner's original: %v", err)
	}
}

// TestFlowWarnings: a job shows the analysis's warnings as they hold for
// its plan (dsp.WarnNoPauses is left out where the plan cuts pauses), and
// none where there are none.
func TestFlowWarnings(t *testing.T) {
	m := testManager(t, t.TempDir(), &gateEngine{}, nil)
	ctx := context.Background()
	truncated, noPauses := dsp.WarnTruncated+": the header gives more", dsp.WarnNoPauses+": the level never stays under"
	for _, tc := range []struct {
		media string
		want  []string
		// uncut: a preview that cuts nothing (a threshold under every
		// level) keeps the warning about pauses too.
		uncut []string
	}{
		{"RIFF 10 fake media with warnings\n", []string{truncated}, []string{truncated, noPauses}},
		{"RIFF 10 fake media\n", nil, nil},
	} {
		j, err := m.Create(ctx, CreateRequest{Owner: "o1", Name: "talk.wav"}, strings.NewReader(tc.media))
		if err != nil {
			t.Fatal(err)
		}
		if j.Warnings != nil {
			t.Errorf("%q: warnings %q before the plan", tc.media, j.Warnings)
		}
		j = waitJob(t, m, "o1", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
		if d := cmp.Diff(tc.want, j.Warnings); d != "" {
			t.Errorf("%q: warnings (-want +got):\n%s", tc.media, d)
		}
		// A preview says the warnings that hold for its own plan.
		for _, pv := range []struct {
			th   *float64
			want []string
		}{{nil, tc.want}, {ptr(-90.0), tc.uncut}} {
			p, err := m.Preview(ctx, "o1", j.ID, apiv1.ParamsInput{ThresholdDb: pv.th})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(pv.want, p.Warnings); d != "" {
				t.Errorf("%q: preview with threshold %v: warnings (-want +got):\n%s", tc.media, pv.th, d)
			}
		}
	}
}

func TestFlowConflictAndDeleteWhileRunning(t *testing.T) {
	eng := &gateEngine{analyzeGate: make(chan struct{}), inAnalyze: make(chan string, 1)}
	dir := t.TempDir()
	m := testManager(t, dir, eng, nil)
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(5))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-eng.inAnalyze:
	case <-time.After(10 * time.Second):
		t.Fatal("analysis did not start")
	}
	waitJob(t, m, "o", j.ID, 5*time.Second, func(j *apiv1.Job) bool { return j.Progress > 0 })
	for _, p := range []apiv1.Patch{{Action: "export"}, {Params: &apiv1.ParamsInput{MinSilenceSec: ptr(1.0)}}} {
		if _, err := m.Update(ctx, "o", j.ID, p); !errors.Is(err, apiv1.ErrProcessing) {
			t.Fatalf("Update %+v while analysing: err = %v, want apiv1.ErrProcessing", p, err)
		}
	}
	if _, err := m.TimelineSource(ctx, "o", j.ID); !errors.Is(err, apiv1.ErrProcessing) {
		t.Fatalf("Media before plan: %v", err)
	}
	if err := m.Delete(ctx, "o2", j.ID); !errors.Is(err, apiv1.ErrNotFound) {
		t.Fatalf("Delete by other owner: %v", err)
	}
	if err := m.Delete(ctx, "o", j.ID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for eng.cancelled.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("running analysis was not cancelled after Delete")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := m.Get(ctx, "o", j.ID); !errors.Is(err, apiv1.ErrNotFound) {
		t.Fatalf("Get after delete: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "media", "originals", j.ID)); !os.IsNotExist(err) {
		t.Fatalf("original still stored after delete: %v", err)
	}
	if err := m.Delete(ctx, "o", j.ID); !errors.Is(err, apiv1.ErrNotFound) {
		t.Fatalf("second Delete: %v", err)
	}
}

func ptr[T any](v T) *T { return &v }

func TestFlowListPaging(t *testing.T) {
	m := testManager(t, t.TempDir(), &gateEngine{}, nil)
	ctx := context.Background()
	var ids []string
	for i := range 7 {
		owner := "o"
		if i == 3 {
			owner = "other"
		}
		j, err := m.Create(ctx, CreateRequest{Owner: owner, Name: "a.wav", Options: apiv1.Options{AutoExport: ptr(false)}}, fakeMedia(2))
		if err != nil {
			t.Fatal(err)
		}
		if owner == "o" {
			ids = append(ids, j.ID)
		}
	}
	slices.Reverse(ids) // newest first
	var got []string
	cursor := ""
	var pages []int
	for {
		jobs, next, err := m.List(ctx, "o", 4, cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, len(jobs))
		for _, j := range jobs {
			got = append(got, j.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("listing (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{4, 2}, pages); diff != "" {
		t.Errorf("page sizes (-want +got):\n%s", diff)
	}
	all, next, err := m.List(ctx, "o", 500, "")
	if err != nil || len(all) != 6 || next != "" {
		t.Fatalf("List limit 500: %d jobs, next %q, err %v", len(all), next, err)
	}
	// A cursor is a query value the server made, not a parameter with a
	// range: one it did not make is bad_request, as a bad limit is.
	if _, _, err := m.List(ctx, "o", 2, "not-a-cursor"); !errors.Is(err, apiv1.ErrBadRequest) || ErrorCode(err) != apiv1.CodeBadRequest {
		t.Fatalf("bad cursor: %v (code %s), want bad_request", err, ErrorCode(err))
	}
}

func TestFlowPatchReplansWithoutDecoding(t *testing.T) {
	eng := &gateEngine{}
	dir := t.TempDir()
	m := testManager(t, dir, eng, nil)
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav", Options: apiv1.Options{Preset: "podcast"}}, fakeMedia(10))
	if err != nil {
		t.Fatal(err)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	first := *j.Output
	up, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Params: &apiv1.ParamsInput{ThresholdDb: ptr(-90.0)}, Export: &apiv1.ExportInput{Format: ptr("wav")}, Action: "export"})
	if err != nil {
		t.Fatal(err)
	}
	if up.Status != apiv1.StatusRendering || up.Output != nil {
		t.Fatalf("after PATCH: status %s output %+v", up.Status, up.Output)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	if got := eng.analyses.Load(); got != 1 {
		t.Errorf("decodes = %d, want 1 (PATCH must re-plan from the stored analysis)", got)
	}
	if got := eng.renders.Load(); got != 2 {
		t.Errorf("renders = %d, want 2", got)
	}
	if j.Output == nil || j.Output.Format != "wav" || j.Output.Duration <= first.Duration {
		t.Errorf("re-export output %+v, first %+v (a -90 dB threshold keeps more)", j.Output, first)
	}
	if *j.Params.ThresholdDb != -90 || j.Plan.ThresholdDb != -90 {
		t.Errorf("params %+v plan threshold %v", j.Params, j.Plan.ThresholdDb)
	}
	// The old rendered file is gone, the new one downloads.
	outs, _ := filepath.Glob(filepath.Join(dir, "media", "outputs", j.ID, "*", "*"))
	var files []string
	for _, o := range outs {
		if !strings.HasSuffix(o, ".attrs") {
			files = append(files, filepath.Base(o))
		}
	}
	if diff := cmp.Diff([]string{"a.wav-autocut.wav"}, files); diff != "" {
		t.Errorf("stored outputs (-want +got):\n%s", diff)
	}
	// Synchronous judgements: nothing to keep (422) and bad params (400) leave the job alone.
	if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Params: &apiv1.ParamsInput{ThresholdDb: ptr(-10.0)}, Action: "export"}); !errors.Is(err, plan.ErrNothingToKeep) {
		t.Errorf("PATCH to an all-silent plan: %v, want ErrNothingToKeep", err)
	}
	if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Params: &apiv1.ParamsInput{MinSilenceSec: ptr(50.0)}}); !errors.Is(err, plan.ErrInvalidParams) {
		t.Errorf("PATCH minSilenceSec 50: %v", err)
	}
	if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Export: &apiv1.ExportInput{Format: ptr("mp4")}}); !errors.Is(err, plan.ErrInvalidParams) {
		t.Errorf("PATCH mp4 for audio: %v", err)
	}
	if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Action: "transcribe"}); !errors.Is(err, transcribe.ErrUnavailable) {
		t.Errorf("PATCH transcribe without engine: %v", err)
	}
	if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Action: "dance"}); !errors.Is(err, plan.ErrInvalidParams) {
		t.Errorf("PATCH unknown action: %v", err)
	}
	j2, _ := m.Get(ctx, "o", j.ID)
	if j2.Status != apiv1.StatusDone || j2.Output == nil || *j2.Params.ThresholdDb != -90 {
		t.Errorf("refused PATCHes changed the job: %+v", j2)
	}
	// Preview and Envelope read the stored analysis.
	p, err := m.Preview(ctx, "o", j.ID, apiv1.ParamsInput{ThresholdDb: ptr(-50.0)})
	if err != nil || p.ThresholdDb != -50 {
		t.Fatalf("Preview: %+v %v", p, err)
	}
	env, err := m.Envelope(ctx, "o", j.ID, EnvelopeQuery{Points: 10})
	// 10 s of 10 ms frames alternating 1 s loud / 1 s quiet, in 10 buckets of 1 s.
	if err != nil || len(env.Levels) != 10 || env.FrameSec != 1 || env.Levels[0] != -20 || env.Levels[1] != -80 {
		t.Fatalf("Envelope: %+v err %v", env, err)
	}
	if env.NoiseFloorDb != -60 || env.SpeechLevelDb != -20 || env.ThresholdDb != -40 {
		t.Errorf("Envelope levels: noise %v speech %v threshold %v, want the analysis's -60, -20, -40", env.NoiseFloorDb, env.SpeechLevelDb, env.ThresholdDb)
	}
	// A stretch at the analysis's own frames: 0.95..1.05 s is the end of
	// the first loud second and the start of the quiet one.
	fine, err := m.Envelope(ctx, "o", j.ID, EnvelopeQuery{Points: 1000, From: 0.95, To: 1.05})
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{-20, -20, -20, -20, -20, -80, -80, -80, -80, -80}
	if d := cmp.Diff(want, fine.Levels); d != "" || math.Abs(fine.Start-0.95) > 1e-9 || fine.FrameSec != 0.01 {
		t.Errorf("Envelope 0.95..1.05 s: start %v frame %v (-want +got levels):\n%s", fine.Start, fine.FrameSec, d)
	}
	if eng.analyses.Load() != 1 {
		t.Errorf("decodes after preview = %d", eng.analyses.Load())
	}
}

func TestFlowRetention(t *testing.T) {
	dir := t.TempDir()
	m := testManager(t, dir, &gateEngine{}, func(c *Config) {
		c.OriginalsTTL, c.OutputsTTL, c.RetentionInterval = 300*time.Millisecond, 700*time.Millisecond, 100*time.Millisecond
	})
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	orig := filepath.Join(dir, "media", "originals", j.ID)
	if _, err := os.Stat(orig); err != nil {
		t.Fatalf("original missing right after done: %v", err)
	}
	d, err := m.OpenOutput(ctx, "o", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	j = waitJob(t, m, "o", j.ID, 10*time.Second, func(j *apiv1.Job) bool { return j.Output == nil })
	// The sweep deletes the files after its transaction commits: when both
	// expire in one sweep (a slow machine), the record may change first.
	deadline := time.Now().Add(5 * time.Second)
	for _, err := os.Stat(orig); !os.IsNotExist(err); _, err = os.Stat(orig) {
		if time.Now().After(deadline) {
			t.Errorf("original still there after its TTL: %v", err)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := m.OpenOriginal(ctx, "o", j.ID); !errors.Is(err, apiv1.ErrOriginalExpired) {
		t.Errorf("OpenOriginal after expiry: %v, want ErrOriginalExpired", err)
	}
	if _, err := m.OpenOutput(ctx, "o", j.ID); !errors.Is(err, apiv1.ErrOutputExpired) {
		t.Errorf("OpenOutput after expiry: %v, want ErrOutputExpired", err)
	} else if msg := ClientMessage(err); strings.Contains(msg, "PATCH") || !strings.Contains(msg, "upload") {
		// The original went first (it is kept for less time): a re-export
		// answers original_expired, so the message must not offer one.
		t.Errorf("OpenOutput after both expired: message %q offers a re-export or does not say to upload again", msg)
	}
	if j.Plan == nil || j.Status != apiv1.StatusDone {
		t.Errorf("record after expiry: %+v", j)
	}
	if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Action: "export"}); !errors.Is(err, apiv1.ErrOriginalExpired) {
		t.Errorf("re-export without original: %v", err)
	}
	if _, err := m.Preview(ctx, "o", j.ID, apiv1.ParamsInput{}); err != nil {
		t.Errorf("Preview after expiry (analysis is kept): %v", err)
	}
}

func TestFlowRestartDurability(t *testing.T) {
	dir := t.TempDir()
	eng := &gateEngine{analyzeGate: make(chan struct{}), inAnalyze: make(chan string, 1)}
	m1 := testManager(t, dir, eng, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil)) // the crash makes River complain
	})
	ctx := context.Background()
	running, err := m1.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(6))
	if err != nil {
		t.Fatal(err)
	}
	<-eng.inAnalyze
	var queued []string
	for range 3 { // Workers is 2: one more runs, two wait in the queue
		j, err := m1.Create(ctx, CreateRequest{Owner: "o", Name: "b.wav"}, fakeMedia(3))
		if err != nil {
			t.Fatal(err)
		}
		queued = append(queued, j.ID)
	}
	crash(t, m1)

	eng2 := &gateEngine{}
	m2 := testManager(t, dir, eng2, nil)
	for _, id := range append([]string{running.ID}, queued...) {
		j := waitJob(t, m2, "o", id, 20*time.Second, isStatus(apiv1.StatusDone))
		if j.Output == nil || j.Plan == nil {
			t.Errorf("job %s after restart: %+v", id, j)
		}
	}
	if got := eng2.analyses.Load(); got != 4 {
		t.Errorf("analyses after restart = %d, want 4", got)
	}
}

// TestFlowTakeoverKeepsProgress checks that a run taken over after its
// worker died (kill -9) does not show its progress going back: it holds
// where the dead run left it until the new run passes it.
func TestFlowTakeoverKeepsProgress(t *testing.T) {
	dir := t.TempDir()
	eng := &gateEngine{renderGate: make(chan struct{})}
	m1 := testManager(t, dir, eng, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	})
	ctx := context.Background()
	j, err := m1.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(6))
	if err != nil {
		t.Fatal(err)
	}
	// Analysis, plan and render: rendering starts at two thirds.
	before := waitJob(t, m1, "o", j.ID, 10*time.Second, func(j *apiv1.Job) bool {
		return j.Status == apiv1.StatusRendering && j.Progress >= 66
	}).Progress
	crash(t, m1)

	// The new run finds the analysis done: plan and render, the render
	// starting at 50 % of its two phases, under the dead run's figure.
	eng2 := &gateEngine{renderGate: make(chan struct{})}
	m2 := testManager(t, dir, eng2, nil)
	deadline := time.Now().Add(20 * time.Second)
	for eng2.renders.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the new run did not reach its render")
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, err := m2.Get(ctx, "o", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Progress < before {
		t.Errorf("progress after takeover %.1f, under the %.1f shown before the kill", got.Progress, before)
	}
	close(eng2.renderGate)
	if done := waitJob(t, m2, "o", j.ID, 20*time.Second, isStatus(apiv1.StatusDone)); done.Progress != 100 || done.Output == nil {
		t.Errorf("job after takeover: %+v", done)
	}
	if n := eng2.analyses.Load(); n != 0 {
		t.Errorf("analyses on the new run = %d, want 0 (the dead run's analysis was saved)", n)
	}
}

// crash stops a Manager the way kill -9 would leave it: the database goes
// away first, so neither River nor the worker records anything.
func crash(t *testing.T, m *Manager) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.stopped, m.stopDone = true, make(chan struct{})
	defer close(m.stopDone) // a later Stop returns at once
	if m.stopRescue != nil {
		m.stopRescue()
	}
	_ = m.db.close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = m.q.StopAndCancel(ctx)
	_ = m.bucket.Close()
}

// TestFlowOpenOutputWithoutFile checks the answers of a download that
// has no rendered file: a job still working is busy (processing), a job
// that finished without one (autoExport false, failed) is not_rendered,
// and only an unknown job is not_found.
func TestFlowOpenOutputWithoutFile(t *testing.T) {
	eng := &gateEngine{analyzeGate: make(chan struct{})}
	m := testManager(t, t.TempDir(), eng, nil)
	ctx := context.Background()
	create := func(media string, autoExport bool) string {
		t.Helper()
		j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav", Options: apiv1.Options{AutoExport: ptr(autoExport)}}, strings.NewReader(media))
		if err != nil {
			t.Fatal(err)
		}
		return j.ID
	}
	busy := create("RIFF 3", true)
	if _, err := m.OpenOutput(ctx, "o", busy); !errors.Is(err, apiv1.ErrProcessing) {
		t.Fatalf("OpenOutput while analysing: %v, want apiv1.ErrProcessing", err)
	}
	close(eng.analyzeGate)
	noExport := create("RIFF 3", false)
	failed := create("RIFF nope", true)
	waitJob(t, m, "o", noExport, 10*time.Second, isStatus(apiv1.StatusDone))
	waitJob(t, m, "o", failed, 10*time.Second, isStatus(apiv1.StatusFailed))
	waitJob(t, m, "o", busy, 10*time.Second, isStatus(apiv1.StatusDone))
	for _, c := range []struct {
		name, owner, id string
		want            error
	}{
		{"autoExport false", "o", noExport, apiv1.ErrNotRendered},
		{"failed", "o", failed, apiv1.ErrNotRendered},
		{"unknown", "o", "job_nope", apiv1.ErrNotFound},
		{"other owner", "o2", noExport, apiv1.ErrNotFound},
	} {
		_, err := m.OpenOutput(ctx, c.owner, c.id)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: OpenOutput = %v, want %v", c.name, err, c.want)
		}
		if c.want == apiv1.ErrNotRendered && strings.Contains(ClientMessage(err), "not found") {
			t.Errorf("%s: message %q says not found", c.name, ClientMessage(err))
		}
	}
	if d, err := m.OpenOutput(ctx, "o", busy); err != nil {
		t.Errorf("OpenOutput of the rendered job: %v", err)
	} else {
		d.Close()
	}
}

// TestFlowInputTypeAtCreation checks input.type right after creation: known
// for audio-only containers and audio MP4 brands, "" for a container that
// may hold video until the analysis says.
func TestFlowInputTypeAtCreation(t *testing.T) {
	m := testManager(t, t.TempDir(), &gateEngine{analyzeGate: make(chan struct{})}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name, head, want string
	}{
		{"wav", "RIFF 3", "audio"},
		{"mp3", "ID3\x04\x00\x00\x00\x00\x00\x00", "audio"},
		{"m4a", "\x00\x00\x00\x20ftypM4A \x00\x00\x02\x00", "audio"},
		{"mp4", "\x00\x00\x00\x20ftypisom\x00\x00\x02\x00", ""},
		{"matroska", "\x1a\x45\xdf\xa3\x00\x00", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a." + tc.name}, strings.NewReader(tc.head+strings.Repeat("\x00", 64)))
			if err != nil {
				t.Fatal(err)
			}
			if j.Input.Type != tc.want {
				t.Errorf("input.type %q, want %q", j.Input.Type, tc.want)
			}
		})
	}
}

// TestFlowAnalysisShownWhileRendering checks that what the analysis found
// shows as soon as it is over: while the job renders, the job carries its
// plan and its input's duration, and the timelines, preview and envelope,
// which need only these, answer (the record was written only at the end
// of the run, so a rendering job showed no plan, duration null and
// timelines answering 409 processing).
func TestFlowAnalysisShownWhileRendering(t *testing.T) {
	eng := &gateEngine{renderGate: make(chan struct{})}
	m := testManager(t, t.TempDir(), eng, nil)
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusRendering))
	if j.Plan == nil || j.Input.Duration == nil || *j.Input.Duration != 4 || j.Output != nil {
		t.Errorf("rendering job: plan %v, input %+v, output %v; want the plan, duration 4 and no output", j.Plan, j.Input, j.Output)
	}
	if _, err := m.TimelineSource(ctx, "o", j.ID); err != nil {
		t.Errorf("TimelineSource while rendering: %v", err)
	}
	if _, err := m.Preview(ctx, "o", j.ID, apiv1.ParamsInput{}); err != nil {
		t.Errorf("Preview while rendering: %v", err)
	}
	if _, err := m.Envelope(ctx, "o", j.ID, EnvelopeQuery{Points: 10}); err != nil {
		t.Errorf("Envelope while rendering: %v", err)
	}
	close(eng.renderGate)
	j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	if j.Output == nil || j.Progress != 100 {
		t.Errorf("done job: output %v progress %v", j.Output, j.Progress)
	}
}

// TestFlowFailedJobIsNotProcessing checks what a failed job that has no
// analysis or plan answers for the timelines, preview, envelope and a cut
// list: not_rendered (it finished without them; a PATCH with an action
// runs it again), never processing, which tells a client to wait for a
// job that will not change (they answered 409 processing: "job is being
// processed ... (status failed)").
func TestFlowFailedJobIsNotProcessing(t *testing.T) {
	m := testManager(t, t.TempDir(), &gateEngine{}, nil)
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, strings.NewReader("RIFF nope"))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusFailed))
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, apiv1.ErrNotRendered) || ErrorCode(err) != apiv1.CodeNotRendered {
			t.Errorf("%s of a failed job: %v (code %s), want not_rendered", what, err, ErrorCode(err))
		}
		if msg := ClientMessage(err); strings.Contains(msg, "is being processed") || !strings.Contains(msg, "failed") {
			t.Errorf("%s of a failed job: message %q", what, msg)
		}
	}
	_, err = m.TimelineSource(ctx, "o", j.ID)
	check("TimelineSource", err)
	_, err = m.Preview(ctx, "o", j.ID, apiv1.ParamsInput{})
	check("Preview", err)
	_, err = m.Envelope(ctx, "o", j.ID, EnvelopeQuery{Points: 10})
	check("Envelope", err)
	_, err = m.Update(ctx, "o", j.ID, apiv1.Patch{Cuts: &[]apiv1.Range{{Start: 0, End: 1}}})
	check("Update with cuts", err)
}

// TestFlowStopLetsRunningWorkFinish: the end of Start's context (SIGTERM
// in autocut serve) does not cancel running work; Stop lets it finish.
func TestFlowStopLetsRunningWorkFinish(t *testing.T) {
	dir := t.TempDir()
	eng := &gateEngine{analyzeGate: make(chan struct{}), inAnalyze: make(chan string, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m, err := Open(ctx, Config{DataDir: dir, Workers: 2, Engine: eng, PollInterval: 50 * time.Millisecond,
		RetentionInterval: time.Hour, Logger: quietLogger(), Store: openStore(t, testDatabase(t, dir), dir)})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	j, err := m.Create(context.Background(), CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	<-eng.inAnalyze
	cancel() // SIGTERM
	stopped := make(chan error, 1)
	go func() {
		sctx, scancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer scancel()
		stopped <- m.Stop(sctx)
	}()
	time.Sleep(500 * time.Millisecond)
	if n := eng.cancelled.Load(); n != 0 {
		t.Errorf("%d running analyses cancelled at the end of Start's context, before Stop's deadline", n)
	}
	close(eng.analyzeGate)
	if err := <-stopped; err != nil {
		t.Fatalf("Stop: %v", err)
	}
	// The run finished before the process ended: the next start has nothing to redo.
	eng2 := &gateEngine{}
	m2 := testManager(t, dir, eng2, nil)
	waitJob(t, m2, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	if n := eng2.analyses.Load() + eng2.renders.Load(); n != 0 {
		t.Errorf("the restarted server ran the job again (%d analyses and renders)", n)
	}
}
