package jobs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/transcribe"
)

// reviewTranscriber is an English-only engine with an operating point of
// 0.9: on the fake media (loud 0-1 s and 2-3 s) it hears a suggestion
// "uh" (0.2-0.5 s, confidence 0.5) and a confident "um" (2.2-2.5 s,
// 0.95). It records the languages it was asked.
type reviewTranscriber struct {
	langs chan string
}

func (r *reviewTranscriber) Name() string                        { return "review" }
func (r *reviewTranscriber) Available(ctx context.Context) error { return nil }
func (r *reviewTranscriber) Serves(lang string) (bool, string) {
	return lang == "" || lang == "en", "review hears only English"
}
func (r *reviewTranscriber) Transcribe(ctx context.Context, path, lang string, progress dsp.Progress) (*transcribe.Transcript, error) {
	r.langs <- lang
	t := &transcribe.Transcript{Status: "done", Language: "en", Engine: "review",
		Words:   []transcribe.Word{{Word: "uh", Start: 0.2, End: 0.5, Confidence: 0.5}, {Word: "um", Start: 2.2, End: 2.5, Confidence: 0.95}},
		Fillers: []transcribe.Filler{{Word: "uh", Start: 0.2, End: 0.5, Confidence: 0.5}, {Word: "um", Start: 2.2, End: 2.5, Confidence: 0.95}}}
	transcribe.MarkFillers(t, 0.9)
	return t, nil
}

// fillerCutsOf are a plan's filler cuts, rounded to the 10 ms frame.
func fillerCutsOf(j *apiv1.Job) [][2]float64 {
	var out [][2]float64
	for _, c := range j.Plan.Cuts {
		if c.Reason == plan.ReasonFiller {
			out = append(out, [2]float64{float64(int(c.Start*100+0.5)) / 100, float64(int(c.End*100+0.5)) / 100})
		}
	}
	return out
}

func fillerCutFlags(j *apiv1.Job) []bool {
	var out []bool
	for _, f := range j.Transcript.Fillers {
		out = append(out, f.Cut)
	}
	return out
}

// TestFillerSuggestionsAndReview: a suggested filler is listed (kind,
// confidence, cut false) and not cut; the confident one is cut; accepting
// the suggestion by PATCH cuts it, rejecting the confident one keeps it;
// a review that does not fit is refused.
func TestFillerSuggestionsAndReview(t *testing.T) {
	tr := &reviewTranscriber{langs: make(chan string, 10)}
	m := testManager(t, t.TempDir(), &gateEngine{}, func(c *Config) { c.Transcriber = transcribe.NewChain(tr) })
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "x.wav", Options: apiv1.Options{Transcribe: ptr(true), AutoExport: ptr(false)}}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	ts := j.Transcript
	if ts == nil || len(ts.Fillers) != 2 {
		t.Fatalf("transcript %+v", ts)
	}
	for i, f := range ts.Fillers {
		if f.ID != i || f.Kind != "filler" || f.Confidence == 0 {
			t.Errorf("filler %d: %+v", i, f)
		}
	}
	if ts.AutoCutConfidence == nil || *ts.AutoCutConfidence != 0.9 {
		t.Errorf("autoCutConfidence %v, want 0.9", ts.AutoCutConfidence)
	}
	// padded by fillerPadSec
	confident := [2]float64{2.16, 2.54}
	if diff := cmp.Diff([]bool{false, true}, fillerCutFlags(j)); diff != "" {
		t.Errorf("cut flags (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]float64{confident}, fillerCutsOf(j)); diff != "" {
		t.Errorf("the suggestion is cut, or the confident one is not (-want +got):\n%s", diff)
	}

	up, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Fillers: &apiv1.FillerReview{Accept: []int{0}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][2]float64{{0.16, 0.54}, confident}, fillerCutsOf(up)); diff != "" {
		t.Errorf("accepted suggestion not cut (-want +got):\n%s", diff)
	}
	if up.Transcript.Fillers[0].Review != "accept" || !up.Transcript.Fillers[0].Cut {
		t.Errorf("filler 0 after accept: %+v", up.Transcript.Fillers[0])
	}
	up, err = m.Update(ctx, "o", j.ID, apiv1.Patch{Fillers: &apiv1.FillerReview{Reject: []int{1}}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][2]float64{{0.16, 0.54}}, fillerCutsOf(up)); diff != "" {
		t.Errorf("after rejecting the confident one, the earlier accept kept (-want +got):\n%s", diff)
	}
	got, err := m.Get(ctx, "o", j.ID)
	if err != nil || !cmp.Equal([]bool{true, false}, fillerCutFlags(got)) {
		t.Errorf("the review is not stored: %v %v", fillerCutFlags(got), err)
	}

	for _, p := range []apiv1.Patch{
		{Fillers: &apiv1.FillerReview{Accept: []int{2}}},
		{Fillers: &apiv1.FillerReview{Accept: []int{0}, Reject: []int{0}}},
		{Fillers: &apiv1.FillerReview{Accept: []int{0}}, Cuts: &[]apiv1.Range{}},
		{Fillers: &apiv1.FillerReview{Accept: []int{0}}, Action: "transcribe"},
	} {
		if _, err := m.Update(ctx, "o", j.ID, p); !errors.Is(err, plan.ErrInvalidParams) {
			t.Errorf("patch %+v: %v, want invalid", p, err)
		}
	}
	// A job without a transcript has no filler to review.
	j2, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "y.wav", Options: apiv1.Options{AutoExport: ptr(false)}}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j2.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	if _, err := m.Update(ctx, "o", j2.ID, apiv1.Patch{Fillers: &apiv1.FillerReview{Accept: []int{0}}}); !errors.Is(err, plan.ErrInvalidParams) {
		t.Errorf("review without a transcript: %v", err)
	}
}

// TestLanguageNoEngine: a French job on a server whose only engine hears
// English is never given to it: its transcript says no engine hears
// French, lists no filler and cuts none, and the job still finishes.
// The job shows its language; a bad language is refused; a new language
// by PATCH transcribes again.
func TestLanguageNoEngine(t *testing.T) {
	tr := &reviewTranscriber{langs: make(chan string, 10)}
	m := testManager(t, t.TempDir(), &gateEngine{}, func(c *Config) { c.Transcriber = transcribe.NewChain(tr) })
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "fr.wav", Options: apiv1.Options{Transcribe: ptr(true), Language: ptr("fr-FR")}}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	if j.Language != "fr" {
		t.Errorf("language %q, want fr", j.Language)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	ts := j.Transcript
	if ts == nil || ts.Status != apiv1.TranscriptDone || ts.Language != "fr" || len(ts.Fillers) != 0 || !strings.Contains(ts.Warning, `no transcription engine on this server hears "fr"`) {
		t.Errorf("transcript %+v", ts)
	}
	if n := len(fillerCutsOf(j)); n != 0 || j.Output == nil {
		t.Errorf("%d filler cuts, output %v", n, j.Output)
	}
	select {
	case l := <-tr.langs:
		t.Errorf("the English engine was asked %q", l)
	default:
	}
	if _, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "x.wav", Options: apiv1.Options{Transcribe: ptr(true), Language: ptr("french!")}}, fakeMedia(4)); !errors.Is(err, plan.ErrInvalidParams) {
		t.Errorf("bad language: %v", err)
	}
	up, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Language: ptr("en")})
	if err != nil || up.Status != apiv1.StatusTranscribing || up.Language != "en" {
		t.Fatalf("PATCH language en: %+v %v", up, err)
	}
	j = waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	if l := <-tr.langs; l != "en" {
		t.Errorf("asked %q, want en", l)
	}
	if j.Transcript.Warning != "" || len(j.Transcript.Fillers) != 2 || len(fillerCutsOf(j)) != 1 {
		t.Errorf("after PATCH language en: %+v, cuts %v", j.Transcript, fillerCutsOf(j))
	}
}
