//go:build linux

package web_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/internal/testtier"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func (s *site) regions() []region {
	s.t.Helper()
	var r []region
	s.eval(`state.regions`, &r)
	return r
}

func (s *site) playhead() float64 {
	s.t.Helper()
	var h float64
	s.eval(`Number(document.getElementById("wave").dataset.playhead)`, &h)
	return h
}

// openTalk starts a job on a 30 s speech-like file and waits for its editor.
func (s *site) openTalk(name string, seed int) {
	s.t.Helper()
	talk := s.gen(name, "-f", "lavfi", "-i", fmt.Sprintf("anoisesrc=color=pink:seed=%d:amplitude=0.4:d=30", seed), "-af", talkFilter)
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	tok := s.token()
	s.startJob(talk, chromedp.SetValue("#format", "wav", chromedp.ByID))
	s.waitEditor(tok, 90*time.Second)
}

// selAct presses the selection bar's button for act (toggle, cut, keep, …).
func (s *site) selAct(act string) {
	s.t.Helper()
	var ok bool
	s.eval(fmt.Sprintf(`(() => { const b = document.querySelector("#sel-bar button[data-act=%s]"); if (b) b.click(); return !!b; })()`, act), &ok)
	if !ok {
		s.t.Fatalf("no %q button by the selection", act)
	}
}

// settle waits until the page no longer scrolls (following a job scrolls
// to it smoothly: a click meanwhile lands beside its target).
func (s *site) settle() {
	s.t.Helper()
	s.eval(`new Promise((done) => { let y = -1, n = 0; const f = () => { if (window.scrollY === y) n++; else { n = 0; y = window.scrollY; }
		if (n >= 10) done(true); else requestAnimationFrame(f); }; f(); })`, nil)
}

// waitOK polls a JavaScript condition until it is truthy, false after limit.
func (s *site) waitOK(js string, limit time.Duration) bool {
	s.t.Helper()
	return chromedp.Run(s.ctx, chromedp.Poll(js, nil, chromedp.WithPollingTimeout(limit), chromedp.WithPollingInterval(50*time.Millisecond))) == nil
}

var sameRegions = cmpopts.EquateApprox(0, 1e-9)

// TestBrowserClickSeeks: a click in the waveform moves the playhead and
// changes no cut, in speech, a few pixels beside a cut's edge and on a
// cut (which it selects); a cut is kept only by the selection's button, a
// stretch cut only by a drag-select and Enter; a touch swipe over the
// waveform scrolls the page and cuts nothing, a tap seeks. (A click in
// speech cut the whole kept stretch around it, a swipe on a phone cut one.)
func TestBrowserClickSeeks(t *testing.T) {
	s := newSite(t)
	s.openTalk("talk.wav", 2)
	r0 := s.regions()
	if len(r0) < 3 {
		t.Fatalf("%d cuts, want 3 at least: %+v", len(r0), r0)
	}
	unchanged := func(what string) {
		t.Helper()
		if d := cmp.Diff(r0, s.regions(), sameRegions); d != "" {
			t.Errorf("%s changed the cuts (-before +after):\n%s", what, d)
		}
	}

	// A click in speech, in the middle of the kept part after cut 0.
	mid := (r0[0].End + r0[1].Start) / 2
	x, y := s.canvasPoint(mid, 0.5)
	s.run(chromedp.MouseClickXY(x, y))
	if h := s.playhead(); math.Abs(h-mid) > 0.15 {
		t.Errorf("click at %.2f s: playhead at %.2f s", mid, h)
	}
	unchanged("a click in speech")

	// 3 px beside the end of cut 1, in speech (the edge's grab zone).
	x, y = s.canvasPoint(r0[1].End, 0.5)
	s.run(chromedp.MouseClickXY(x+3, y))
	unchanged("a click 3 px beside a cut")

	// A click on cut 1 selects it; its button keeps it.
	x, y = s.canvasPoint((r0[1].Start+r0[1].End)/2, 0.5)
	s.run(chromedp.MouseClickXY(x, y))
	unchanged("a click on a cut")
	var sel int
	s.eval(`state.sel`, &sel)
	if sel != 1 {
		t.Errorf("a click on cut 1 selected %d", sel)
	}
	s.selAct("toggle")
	if r := s.regions(); len(r) != len(r0) || r[1].On {
		t.Errorf("Keep it on cut 1: %+v", r)
	}
	s.run(chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	unchanged("undo of the keep")

	// A drag-select across speech selects; Enter cuts the stretch.
	a, b := mid-0.3, mid+0.3
	xa, ya := s.canvasPoint(a, 0.5)
	xb, _ := s.canvasPoint(b, 0.5)
	acts := []chromedp.Action{s.mouse(input.MouseMoved, xa, ya, 0), s.mouse(input.MousePressed, xa, ya, 1)}
	for i := 1; i <= 6; i++ {
		acts = append(acts, s.mouse(input.MouseMoved, xa+(xb-xa)*float64(i)/6, ya, 1))
	}
	s.run(append(acts, s.mouse(input.MouseReleased, xb, ya, 0))...)
	unchanged("a drag-select")
	s.run(chromedp.KeyEvent(kb.Enter))
	got := s.regions()
	var added *region
	for i := range got {
		if got[i].Reason == "manual" {
			added = &got[i]
		}
	}
	if len(got) != len(r0)+1 || added == nil || math.Abs(added.Start-a) > 0.05 || math.Abs(added.End-b) > 0.05 || !added.On {
		t.Errorf("Enter after selecting %.2f–%.2f s: %+v", a, b, got)
	}
	s.run(chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	unchanged("undo of the cut")

	// A phone: no touch-action: none on the waveform; a swipe scrolls and
	// cuts nothing; a tap seeks.
	var ta string
	s.eval(`getComputedStyle(document.getElementById("wave")).touchAction`, &ta)
	if ta == "none" {
		t.Errorf("the waveform has touch-action: none")
	}
	s.run(emulation.SetTouchEmulationEnabled(true).WithMaxTouchPoints(1))
	x, y = s.canvasPoint(mid, 0.5)
	var y0, y1 float64
	s.eval(`window.scrollY`, &y0)
	pt := func(y float64) []*input.TouchPoint { return []*input.TouchPoint{{X: x, Y: y}} }
	swipe := []chromedp.Action{input.DispatchTouchEvent(input.TouchStart, pt(y))}
	for i := 1; i <= 10; i++ {
		swipe = append(swipe, input.DispatchTouchEvent(input.TouchMove, pt(y-float64(12*i))))
	}
	s.run(append(swipe, input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))...)
	s.eval(`new Promise(r => setTimeout(() => r(window.scrollY), 300))`, &y1)
	unchanged("a touch swipe")
	if y1 <= y0 {
		t.Errorf("a swipe up over the waveform did not scroll the page (scrollY %.0f → %.0f)", y0, y1)
	}
	x, y = s.canvasPoint(r0[0].End+0.2, 0.5)
	s.run(input.DispatchTouchEvent(input.TouchStart, []*input.TouchPoint{{X: x, Y: y}}), input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))
	s.wait("the tap's seek", fmt.Sprintf(`Math.abs(Number(document.getElementById("wave").dataset.playhead) - %f) < 0.15`, r0[0].End+0.2), 5*time.Second)
	unchanged("a tap")
	s.run(emulation.SetTouchEmulationEnabled(false))
	s.noErrors()
}

// setSlider moves a detection slider as a user does (an input event).
func (s *site) setSlider(id, v string) {
	s.t.Helper()
	s.run(chromedp.SetValue("#"+id, v, chromedp.ByID))
	s.eval(fmt.Sprintf(`(document.getElementById(%q).dispatchEvent(new Event("input")), true)`, id), nil)
}

// apiJob is what the tests read of a job through the API.
type apiJob struct {
	ID     string
	Status string
	Params struct {
		ThresholdDb                               *float64
		MinSilenceSec, KeepSilenceMs, MinSpeechMs float64
	}
	Plan *struct {
		Cuts  []cut
		Stats struct{ FinalSec float64 }
	}
	Output *struct {
		Duration float64
		Name     string
	}
}

func (s *site) job() apiJob {
	s.t.Helper()
	var id string
	s.eval(`state.job.id`, &id)
	var j apiJob
	s.apiGet("/api/v1/jobs/"+id, &j)
	return j
}

// TestBrowserUndoSettings: one undo history over cuts and settings. Two
// settings previews, then undo: the cuts and the sliders are those of the
// first preview, and Apply renders exactly the cuts shown with the
// settings shown; undo back to the job's plan restores its sliders and
// leaves nothing to apply. (Undo restored the cuts but kept the sliders,
// and Apply rendered the sliders' plan: 2 cuts shown, 11 rendered.)
func TestBrowserUndoSettings(t *testing.T) {
	s := newSite(t)
	s.openTalk("talk.wav", 2)
	preview := func(v string) []cut {
		t.Helper()
		s.setSlider("minSilenceSec", v)
		s.wait("the preview of "+v, `!state.previewPending && !state.previewBad`, 10*time.Second)
		var c []cut
		s.eval(`cuts()`, &c)
		return c
	}
	first := preview("1.5")
	second := preview("0.3")
	if cmp.Equal(first, second) {
		t.Fatalf("minimum silence 1.5 s and 0.3 s preview the same cuts: %+v", first)
	}
	s.run(chromedp.Focus("#wave", chromedp.ByID), chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	var shown struct {
		Cuts   []cut
		Slider string
		Output string
		Apply  bool
	}
	read := func() {
		s.eval(`({cuts: cuts(), slider: document.getElementById("minSilenceSec").value,
			output: document.querySelector("#minSilenceSec + output").textContent, apply: document.getElementById("apply").disabled})`, &shown)
	}
	read()
	if d := cmp.Diff(first, shown.Cuts, sameRegions); d != "" {
		t.Errorf("undo: the cuts are not the first preview's (-want +got):\n%s", d)
	}
	if shown.Slider != "1.5" || shown.Output != "1.5 s" {
		t.Errorf("undo: minimum silence shows %q (%q), want the first preview's 1.5", shown.Slider, shown.Output)
	}
	tok := s.token()
	s.run(chromedp.Click("#apply", chromedp.ByID))
	s.waitEditor(tok, 90*time.Second)
	j := s.job()
	if d := cmp.Diff(shown.Cuts, j.Plan.Cuts, cmpopts.EquateApprox(0, 2e-6)); d != "" {
		t.Errorf("Apply rendered other cuts than those shown (-shown +rendered):\n%s", d)
	}
	if j.Params.MinSilenceSec != 1.5 {
		t.Errorf("Apply stored minimum silence %.2f, the page showed 1.5", j.Params.MinSilenceSec)
	}

	// Undo back to the job's own plan: its sliders, nothing to apply.
	s.setSlider("minSilenceSec", "0.3")
	s.wait("the preview of 0.3", `!state.previewPending && !state.previewBad`, 10*time.Second)
	s.run(chromedp.Focus("#wave", chromedp.ByID), chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	read()
	if shown.Slider != "1.5" || !shown.Apply {
		t.Errorf("undo to the rendered plan: slider %q, Apply disabled %v", shown.Slider, shown.Apply)
	}
	s.noErrors()
}

// TestBrowserNoStaleDownload: with an edit not applied yet, the download
// buttons say that they apply it first, and the file then downloaded
// lasts what the page shows (it served the previous render: 0:56.3
// shown, 71.9 s downloaded); once applied, the button says it gives the
// file as shown.
func TestBrowserNoStaleDownload(t *testing.T) {
	s := newSite(t)
	s.openTalk("talk.wav", 2)
	before := s.job()
	r := s.regions()
	x, y := s.canvasPoint((r[1].Start+r[1].End)/2, 0.5)
	s.run(chromedp.MouseClickXY(x, y))
	s.selAct("toggle")
	var shown struct {
		Final   float64
		Buttons []string
	}
	s.eval(`({final: Number(document.getElementById("wave").dataset.final),
		buttons: [...document.querySelectorAll("#downloads button")].map(b => b.textContent)})`, &shown)
	if math.Abs(shown.Final-before.Output.Duration) < 0.1 {
		t.Fatalf("keeping a cut left the final length at %.2f s", shown.Final)
	}
	if len(shown.Buttons) < 6 {
		t.Fatalf("download buttons: %q", shown.Buttons)
	}
	for _, b := range shown.Buttons {
		if !strings.Contains(strings.ToLower(b), "appl") {
			t.Errorf("with an edit not applied, the button %q does not say it applies it", b)
		}
	}
	s.eval(`document.querySelector("#downloads button").click()`, nil) // the rendered file's
	s.wait("the render of the edit, then its download", `state.job.status === "done" && !!state.job.output && (typeof pendingDownload === "undefined" || pendingDownload === null)`, 90*time.Second)
	s.waitFile(before.Output.Name, 30*time.Second)
	got := probeDuration(t, filepath.Join(s.download, before.Output.Name))
	if math.Abs(got-shown.Final) > 0.005 {
		t.Errorf("downloaded %.3f s, the page showed %.3f s (the previous render: %.3f s)", got, shown.Final, before.Output.Duration)
	}
	var label string
	s.eval(`document.querySelector("#downloads button[data-kind=output]").textContent`, &label)
	if !strings.Contains(label, "as shown") {
		t.Errorf("after Apply the download says %q", label)
	}
	s.noErrors()
}

// genLong makes a 30-minute 48 kHz stereo WAV of speech-like noise.
func (s *site) genLong(name string) string {
	return s.gen(name, "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=7:amplitude=0.4:d=1800:r=48000",
		"-af", talkFilter+",pan=stereo|c0=c0|c1=0.9*c0", "-c:a", "pcm_s16le")
}

// TestBrowserLongZoom: a 30-minute 48 kHz stereo file. Ctrl+wheel zooms
// around the pointer; + zooms in to 10 ms per pixel; the minimap shows,
// and a click on it brings a cut in the middle of the file into view,
// where its end is dragged 30 px, 0.3 s; 0 fits the whole file again.
// (There was no zoom: one pixel was 1.9 s, the grab zone ±13 s.)
func TestBrowserLongZoom(t *testing.T) {
	s := newSite(t)
	long := s.genLong("long.wav")
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	tok := s.token()
	s.startJob(long, chromedp.SetValue("#format", "wav", chromedp.ByID), chromedp.SetValue("#normalize", "none", chromedp.ByID))
	s.waitEditor(tok, 5*time.Minute)
	type view struct {
		Spp, Fit, Left float64
		Mini           bool
	}
	var v view
	read := func() view {
		s.eval(`({spp: state.spp, fit: fitSpp(), left: document.getElementById("wave-scroll").scrollLeft, mini: !document.getElementById("minimap").hidden})`, &v)
		return v
	}
	fit := read()
	if fit.Spp < 1 || fit.Mini {
		t.Fatalf("the whole 30 minutes in view: %+v", fit)
	}

	// Ctrl+wheel over 600 s zooms in around it.
	x, y := s.canvasPoint(600, 0.5)
	s.run(input.DispatchMouseEvent(input.MouseWheel, x, y).WithDeltaX(0).WithDeltaY(-500).WithModifiers(input.ModifierCtrl))
	s.wait("the wheel's zoom", fmt.Sprintf(`state.spp < %f`, fit.Spp*0.9), 5*time.Second)
	var at float64
	s.eval(fmt.Sprintf(`tOf(%f - geom().left, geom())`, x), &at)
	if math.Abs(at-600) > 2*read().Spp {
		t.Errorf("after the wheel's zoom, %.2f s is under the pointer, not 600 s", at)
	}
	s.run(chromedp.Focus("#wave", chromedp.ByID), chromedp.KeyEvent("0"))
	if v := read(); math.Abs(v.Spp-v.Fit) > 1e-9 || v.Mini {
		t.Errorf("0 did not fit the file: %+v", v)
	}

	// + to 10 ms per pixel.
	for i := 0; i < 14 && read().Spp > 0.01; i++ {
		s.run(chromedp.KeyEvent("+"))
	}
	if v := read(); v.Spp > 0.01 || !v.Mini {
		t.Fatalf("+ zoomed to %.4f s per pixel (want 0.01 at least), minimap shown %v", v.Spp, v.Mini)
	}
	var label string
	s.eval(`document.getElementById("zoom-level").textContent`, &label)
	t.Logf("zoom: %s", label)

	// The cut nearest 900 s, brought into view from the minimap.
	r := s.regions()
	k := 0
	for i := range r {
		if math.Abs(r[i].End-900) < math.Abs(r[k].End-900) {
			k = i
		}
	}
	if r[k].End-r[k].Start < 0.5 {
		t.Fatalf("cut %d near 900 s is %.2f s long", k, r[k].End-r[k].Start)
	}
	var mx, my float64
	s.eval(fmt.Sprintf(`(() => { const m = document.getElementById("minimap"); m.scrollIntoView({block: "center"}); const b = m.getBoundingClientRect();
		return [b.left + %f / state.dur * b.width, b.top + b.height / 2]; })()`, r[k].End), &[]*float64{&mx, &my})
	s.run(chromedp.MouseClickXY(mx, my))
	var inView bool
	s.eval(fmt.Sprintf(`(() => { const g = geom(), x = xOf(%f, g); return x > 40 && x < g.w - 40; })()`, r[k].End), &inView)
	if !inView {
		t.Fatalf("a click on the minimap at %.2f s left it out of view (scroll %.0f px)", r[k].End, read().Left)
	}
	// Zoomed in past the whole file's envelope (one level per 90 ms), the
	// view is drawn from the analysis's 10 ms frames of its stretch.
	s.wait("the zoomed view's 10 ms levels", `document.getElementById("wave").dataset.levelSec === "0.01"`, 30*time.Second)
	var fine struct{ Whole, Start, End, T0, T1 float64 }
	s.eval(`(() => { const g = geom(), f = state.fine; return {whole: state.env.frameSec, start: f.start, end: f.start + f.levels.length * f.frameSec, t0: g.sx * state.spp, t1: (g.sx + g.w) * state.spp}; })()`, &fine)
	if fine.Whole < 0.05 || fine.Start > fine.T0 || fine.End < fine.T1 {
		t.Errorf("the 10 ms levels hold %.2f..%.2f s for a view of %.2f..%.2f s (the whole file's at %.3f s)", fine.Start, fine.End, fine.T0, fine.T1, fine.Whole)
	}
	spp := read().Spp
	x0, y0 := s.canvasPoint(r[k].End, 0.4)
	acts := []chromedp.Action{s.mouse(input.MouseMoved, x0, y0, 0), s.mouse(input.MousePressed, x0, y0, 1)}
	for i := 1; i <= 10; i++ {
		acts = append(acts, s.mouse(input.MouseMoved, x0-3*float64(i), y0, 1))
	}
	s.run(append(acts, s.mouse(input.MouseReleased, x0-30, y0, 0))...)
	var moved region
	s.eval(fmt.Sprintf(`state.regions[%d]`, k), &moved)
	if want := r[k].End - 30*spp; math.Abs(moved.End-want) > 2*spp || moved.Start != r[k].Start || moved.Reason != "manual" {
		t.Errorf("dragged cut %d's end from %.3f s by 30 px at %.4f s/px: %+v, want its end at %.3f s", k, r[k].End, spp, moved, want)
	}
	s.shot("long-zoomed.png")
	s.run(chromedp.KeyEvent("0"))
	if v := read(); math.Abs(v.Spp-v.Fit) > 1e-9 {
		t.Errorf("0 after zooming: %+v", v)
	}
	s.noErrors()
}

// TestBrowserReloadKeepsEdits: the open job is in the address
// (#/jobs/ID); leaving with an edit not applied asks first (beforeunload);
// a reload opens the job again with that edit, and Apply forgets it.
// (Reload lost the edits with no prompt, and the job was not in the URL.)
func TestBrowserReloadKeepsEdits(t *testing.T) {
	s := newSite(t)
	var prompts []string
	chromedp.ListenTarget(s.ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			s.mu.Lock()
			prompts = append(prompts, string(d.Type))
			s.mu.Unlock()
			go chromedp.Run(s.ctx, page.HandleJavaScriptDialog(true))
		}
	})
	s.openTalk("talk.wav", 2)
	id := s.job().ID
	var hash string
	s.eval(`location.hash`, &hash)
	if hash != "#/jobs/"+id {
		t.Errorf("address %q, want #/jobs/%s", hash, id)
	}
	r := s.regions()
	x, y := s.canvasPoint((r[1].Start+r[1].End)/2, 0.5)
	s.run(chromedp.MouseClickXY(x, y))
	s.selAct("toggle")
	s.setSlider("keepSilenceMs", "400")
	s.wait("the preview", `!state.previewPending && !state.previewBad`, 10*time.Second)
	x, y = s.canvasPoint((r[2].Start+r[2].End)/2, 0.5)
	s.run(chromedp.MouseClickXY(x, y))
	s.selAct("toggle")
	edited := s.regions()

	s.run(chromedp.Reload())
	s.wait("the job opened again", fmt.Sprintf(`!!state.job && state.job.id === %q && !!state.env && !!document.getElementById("wave").dataset.cuts`, id), 30*time.Second)
	s.mu.Lock()
	asked := append([]string(nil), prompts...)
	s.mu.Unlock()
	if len(asked) != 1 || asked[0] != "beforeunload" {
		t.Errorf("leaving with an edit not applied: dialogs %q, want one beforeunload", asked)
	}
	if d := cmp.Diff(edited, s.regions(), sameRegions); d != "" {
		t.Errorf("after the reload the edit is not back (-before +after):\n%s", d)
	}
	var slider string
	s.eval(`document.getElementById("keepSilenceMs").value`, &slider)
	if slider != "400" {
		t.Errorf("after the reload kept silence is %q, want the edit's 400", slider)
	}
	tok := s.token()
	s.settle()
	s.run(chromedp.Click("#apply", chromedp.ByID))
	s.waitEditor(tok, 90*time.Second)
	var saved bool
	s.eval(fmt.Sprintf(`localStorage.getItem("autocut.edit.%s") !== null`, id), &saved)
	if saved {
		t.Errorf("the applied edit is still kept in the browser")
	}
	var prevented bool
	s.eval(`(() => { const e = new Event("beforeunload", {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented; })()`, &prevented)
	if prevented {
		t.Errorf("leaving asks although everything is applied")
	}
	s.noErrors()
}

// TestBrowserReviewFirst: the editor of a 30-minute 48 kHz stereo file
// opens when its analysis ends, while the file renders: the waveform and
// the cuts are there, After previews the cuts on the original, an edit
// applied meanwhile is sent once the running render ends, and the
// download is offered only when a file with the cuts shown exists. The
// time from the upload's end to the editable waveform is logged, with the
// analysis's end as the API shows it (polled every 20 ms).
func TestBrowserReviewFirst(t *testing.T) {
	testtier.Slow(t, "a 30-minute file through upload, analysis and render")
	s := newSite(t)
	long := s.genLong("long.wav")
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	tok := s.token()
	s.startJob(long, chromedp.SetValue("#format", "mp3", chromedp.ByID))
	s.wait("the job created", fmt.Sprintf(`state.token > %d && !!state.job && !!timing.uploadEnd`, tok), 2*time.Minute)
	id := s.job().ID
	// The API polled every 20 ms: when the plan appears (the analysis's
	// end) and when the first render ends (where the editor used to open).
	analysed, rendered := make(chan time.Time, 1), make(chan time.Time, 1)
	go func() {
		seen := false
		for s.ctx.Err() == nil {
			var j apiJob
			req, _ := http.NewRequestWithContext(s.ctx, "GET", s.url+"/api/v1/jobs/"+id, nil)
			req.Header.Set("Authorization", "Bearer "+testKey)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				json.NewDecoder(resp.Body).Decode(&j)
				resp.Body.Close()
				if j.Plan != nil && !seen {
					analysed <- time.Now()
					seen = true
				}
				if j.Status == "done" {
					rendered <- time.Now()
					return
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	s.wait("the editor", `!!state.env && !!document.getElementById("wave").dataset.cuts && !!timing.editable`, 3*time.Minute)
	var tm struct {
		UploadEnd, PlanSeen, Envelope, Editable float64
		Status                                  string
	}
	s.eval(`timing`, &tm)
	end := <-analysed
	uploadEnd := time.UnixMilli(int64(tm.UploadEnd))
	editable := time.UnixMilli(int64(tm.Editable))
	t.Logf("30 min 48 kHz stereo: upload end → analysis end %.2f s, → editable waveform %.2f s (%.2f s after the analysis: the page saw the plan %.2f s after it, its envelope came %.2f s later, the editor was drawn %.2f s after that); job %s then",
		end.Sub(uploadEnd).Seconds(), editable.Sub(uploadEnd).Seconds(), editable.Sub(end).Seconds(),
		time.UnixMilli(int64(tm.PlanSeen)).Sub(end).Seconds(), (tm.Envelope-tm.PlanSeen)/1000, (tm.Editable-tm.Envelope)/1000, tm.Status)
	if tm.Status != "rendering" {
		t.Errorf("the editor opened with the job %s, want while it renders", tm.Status)
	}

	// While it renders: After previews on the original; no download yet.
	s.run(chromedp.Click("#listen-after", chromedp.ByID))
	var during struct {
		Src, Note, Status string
		Download          bool
	}
	s.eval(`({src: state.srcKind, note: document.getElementById("listen-note").textContent, status: state.job.status,
		download: !document.querySelector("#downloads button[data-kind=output]").disabled})`, &during)
	if during.Status == "rendering" && (during.Src != "original" || !strings.Contains(during.Note, "preview") || during.Download) {
		t.Errorf("while rendering: %+v", during)
	}
	// An edit applied while it renders: queued, then rendered.
	r := s.regions()
	x, y := s.canvasPoint((r[3].Start+r[3].End)/2, 0.5)
	s.run(chromedp.MouseClickXY(x, y))
	s.selAct("toggle")
	var shown []cut
	s.eval(`cuts()`, &shown)
	s.run(chromedp.Click("#apply", chromedp.ByID))
	var queued string
	s.eval(`document.getElementById("apply-msg").textContent`, &queued)
	if !strings.Contains(queued, "as soon as the current render ends") {
		t.Errorf("Apply during the render says %q", queued)
	}
	// Once the first render ends the edit is sent: the job's plan is then
	// the cuts shown, and it renders them (not waited for: the test ends).
	s.wait("the edit sent", `state.applyQueued === false && !unapplied() && !!state.env && state.job.status !== "done"`, 4*time.Minute)
	t.Logf("the first render ended %.2f s after the upload's end (the editor waited for it before)", (<-rendered).Sub(uploadEnd).Seconds())
	j := s.job()
	if d := cmp.Diff(shown, j.Plan.Cuts, cmpopts.EquateApprox(0, 2e-6)); d != "" {
		t.Errorf("the edit applied during the render: other cuts planned (-shown +planned):\n%s", d)
	}
	s.noErrors()
}

// TestBrowserProgress: the upload says how many MB of how many have gone
// and at what rate; the job says its progress with the time elapsed, and
// lists its steps with how long each took; the job list gives each job's
// date, length, preset and time saved, and marks the open one. (Progress
// was a bare percentage, with no elapsed time and no upload rate.)
func TestBrowserProgress(t *testing.T) {
	s := newSite(t)
	talk := s.gen("talk.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=2:amplitude=0.4:d=30", "-af", talkFilter)
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	s.eval(`(() => { window.seen = {}; for (const id of ["upload-text", "job-time"]) { window.seen[id] = [];
		new MutationObserver(() => { const t = document.getElementById(id).textContent; if (t) window.seen[id].push(t); })
			.observe(document.getElementById(id), {childList: true, characterData: true, subtree: true}); } return true; })()`, nil)
	tok := s.token()
	s.startJob(talk, chromedp.SetValue("#format", "wav", chromedp.ByID))
	s.waitEditor(tok, 90*time.Second)
	s.wait("the job listed", `!!document.querySelector("#jobs li.current")`, 10*time.Second)
	var got struct {
		Upload, Time, Steps  []string
		Meta, Badge, Current string
	}
	s.eval(`({upload: window.seen["upload-text"], time: window.seen["job-time"], steps: [...document.querySelectorAll("#stages li")].map(li => li.className + ": " + li.textContent),
		meta: document.querySelector("#jobs li.current .job-meta").textContent, badge: document.querySelector("#jobs li.current .badge").textContent,
		current: document.querySelector("#jobs li.current button.secondary").getAttribute("aria-current")})`, &got)
	t.Logf("upload %q; job %q; steps %q; list %q", got.Upload, got.Time, got.Steps, got.Meta)
	mb := regexp.MustCompile(`^\d+\.\d of 2\.9 MB · \d+\.\d MB/s`)
	if len(got.Upload) == 0 || !mb.MatchString(got.Upload[len(got.Upload)-1]) {
		t.Errorf("upload progress shown: %q", got.Upload)
	}
	el := regexp.MustCompile(`^\d+% · \d+:\d\d elapsed`)
	if len(got.Time) == 0 || !el.MatchString(got.Time[0]) {
		t.Errorf("job progress shown: %q", got.Time)
	}
	want := []*regexp.Regexp{regexp.MustCompile(`^done: Upload: 2\.9 MB in \d+\.\d\d s \(\d+\.\d MB/s\)$`),
		regexp.MustCompile(`^done: Analysis: \d+\.\d\d s$`), regexp.MustCompile(`^done: Render: \d+\.\d\d s$`)}
	// A render over between two polls is named with the analysis.
	together := regexp.MustCompile(`^done: Analysis and render: \d+\.\d\d s$`)
	switch {
	case len(got.Steps) == 2 && want[0].MatchString(got.Steps[0]) && together.MatchString(got.Steps[1]):
	case len(got.Steps) == 3 && want[0].MatchString(got.Steps[0]) && want[1].MatchString(got.Steps[1]) && want[2].MatchString(got.Steps[2]):
	default:
		t.Errorf("steps %q, want the upload, the analysis and the render, each with its time", got.Steps)
	}
	if !regexp.MustCompile(`^\w+ \d+, \d\d:\d\d · 0:30 long · podcast · \d+\.\d s saved \(\d+%\)$`).MatchString(got.Meta) || got.Badge != "open" || got.Current != "true" {
		t.Errorf("the open job in the list: %q, badge %q, aria-current %q", got.Meta, got.Badge, got.Current)
	}
	s.noErrors()
}

// TestBrowserSmallDefects: a fresh radical job, whose plan has touching
// cuts, has nothing to apply (the page merged touching cuts: "Cuts 19"
// against 23); Space after a mouse click on a button plays and does not
// click it again; a key typed right clears what the wrong one made the
// page say; an empty file and addresses without a scheme or with another
// one are said in plain words; the parts you kept are marked in a lane of
// their own, in a colour that stands out from the page; the cut list gives
// each cut's duration; on a phone every control is 44 px high at least.
func TestBrowserSmallDefects(t *testing.T) {
	s := newSite(t)
	text := func(id string) string {
		var m string
		s.eval(fmt.Sprintf(`document.getElementById(%q).textContent`, id), &m)
		return m
	}
	// A wrong key: the list says so; the right key typed clears it.
	s.run(chromedp.SendKeys("#key", "wrong", chromedp.ByID))
	s.eval(`document.getElementById("refresh").click(), true`, nil)
	s.wait("the key refused by the list", `document.getElementById("list-msg").textContent !== ""`, 10*time.Second)
	s.eval(`(document.getElementById("key").value = "", true)`, nil)
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	if !s.waitOK(`document.getElementById("list-msg").textContent === "" && document.querySelectorAll("#jobs li").length > 0`, 10*time.Second) {
		t.Errorf("the key typed right again, the list still says %q", text("list-msg"))
	}

	// Plain words for an empty file and for addresses the server refuses.
	empty := filepath.Join(s.media, "empty.wav")
	os.WriteFile(empty, nil, 0o644)
	s.run(chromedp.SetUploadFiles("#file", []string{empty}, chromedp.ByID))
	s.eval(`document.getElementById("start").click(), true`, nil)
	s.wait("the empty file refused", `document.getElementById("new-msg").textContent !== ""`, 10*time.Second)
	if m := text("new-msg"); !strings.Contains(m, "empty (0 bytes)") || strings.Contains(m, "Bad request") {
		t.Errorf("empty file: %q", m)
	}
	s.eval(`document.getElementById("unpick").click(), true`, nil)
	for _, u := range []string{"example.com/episode.mp3", "ftp://example.com/episode.mp3"} {
		s.eval(fmt.Sprintf(`(() => { const i = document.getElementById("url"); i.value = %q; i.dispatchEvent(new Event("input")); document.getElementById("start").click(); return true; })()`, u), nil)
		s.wait("the address refused", `document.getElementById("new-msg").textContent !== ""`, 10*time.Second)
		if m := text("new-msg"); !strings.Contains(m, "https://") || strings.Contains(m, "scheme") {
			t.Errorf("address %q: %q", u, m)
		}
		s.eval(`(document.getElementById("new-msg").textContent = "", true)`, nil)
	}
	s.eval(`(() => { const i = document.getElementById("url"); i.value = ""; i.dispatchEvent(new Event("input")); return true; })()`, nil)

	// A fresh radical job: touching cuts, nothing to apply.
	talk := s.gen("talk.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=2:amplitude=0.4:d=30",
		"-af", "volume='if(lt(mod(t,5),2),1,if(between(mod(t,5),3,3.08),1,0.001))':eval=frame")
	tok := s.token()
	s.startJob(talk, chromedp.SetValue("#format", "wav", chromedp.ByID), chromedp.SetValue("#preset", "radical", chromedp.ByID))
	s.waitEditor(tok, 90*time.Second)
	j := s.job()
	touching := 0
	for i := 1; i < len(j.Plan.Cuts); i++ {
		if j.Plan.Cuts[i].Start == j.Plan.Cuts[i-1].End {
			touching++
		}
	}
	if touching == 0 {
		t.Fatalf("the radical plan has no touching cuts: %+v", j.Plan.Cuts)
	}
	var fresh struct {
		Apply                 bool
		Msg, Cuts, Downloaded string
	}
	s.eval(`({apply: document.getElementById("apply").disabled, msg: document.getElementById("apply-msg").textContent,
		cuts: document.getElementById("stat-cuts").textContent, downloaded: document.querySelector("#downloads button").textContent})`, &fresh)
	if !fresh.Apply || fresh.Msg != "The rendered file has these cuts." || fresh.Cuts != strconv.Itoa(len(j.Plan.Cuts)) || strings.Contains(fresh.Downloaded, "pply") {
		t.Errorf("a fresh radical job (%d cuts, %d touching): %+v", len(j.Plan.Cuts), touching, fresh)
	}

	// The cut list gives durations.
	var item string
	s.eval(`document.querySelector("#cut-list li").firstChild.textContent`, &item)
	if !regexp.MustCompile(`^\d:\d\d\.\d – \d:\d\d\.\d \(\d+\.\d\d s\) `).MatchString(item) {
		t.Errorf("cut list item %q, want from – to (duration)", item)
	}

	// Space after a mouse click on a button plays, it does not click it
	// again: two cuts kept, Undo clicked, Space: one undo.
	r := s.regions()
	for _, i := range []int{0, 1} {
		x, y := s.canvasPoint((r[i].Start+r[i].End)/2, 0.5)
		s.run(chromedp.MouseClickXY(x, y))
		s.selAct("toggle")
	}
	var bx, by float64
	s.eval(`(() => { const b = document.getElementById("undo"); b.scrollIntoView({block: "center"}); const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, &[]*float64{&bx, &by})
	s.run(chromedp.MouseClickXY(bx, by))
	s.run(chromedp.KeyEvent(" "))
	if !s.waitOK(`!state.media.paused`, 5*time.Second) {
		t.Errorf("Space after a click on Undo did not play")
	}
	if r := s.regions(); r[0].On || !r[1].On {
		t.Errorf("Space after a click on Undo: cut 0 %+v (want kept), cut 1 %+v (want cut again by the one undo)", r[0], r[1])
	}
	s.run(chromedp.KeyEvent(" "))
	s.waitOK(`state.media.paused`, 5*time.Second)

	// The part kept (cut 0): marked in the lane over the levels, in the
	// kept colour, which stands out from the page.
	r = s.regions()
	var px struct{ Lane, Kept, Bg string }
	s.eval(fmt.Sprintf(`(() => { draw(); const c = document.getElementById("wave"), g = geom(), d = window.devicePixelRatio || 1;
		const x = Math.round((xOf(%f, g) + xOf(%f, g)) / 2 * d), p = c.getContext("2d").getImageData(x, Math.round(6 * d), 1, 1).data;
		const probe = document.createElement("i"); probe.style.color = "var(--kept)"; document.body.append(probe);
		const kept = getComputedStyle(probe).color; probe.remove();
		return {lane: "rgb(" + p[0] + ", " + p[1] + ", " + p[2] + ")", kept, bg: getComputedStyle(document.querySelector(".wave-scroll")).backgroundColor}; })()`, r[0].Start, r[0].End), &px)
	if c := contrast(px.Lane, px.Bg); px.Lane != px.Kept || c < 3 {
		t.Errorf("the part kept is marked %s (kept colour %s) on %s: %.2f:1", px.Lane, px.Kept, px.Bg, c)
	}

	// A phone: 44 px touch targets.
	s.run(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	s.eval(`new Promise(r => setTimeout(r, 300))`, nil)
	var small []string
	s.eval(`[...document.querySelectorAll("button, select, summary, input[type=range], label:has(> input[type=checkbox])")].filter(e => {
		const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0 && (b.height < 44 || (e.tagName === "BUTTON" && b.width < 44)); })
		.map(e => (e.id || e.textContent.trim().slice(0, 30)) + " " + Math.round(e.getBoundingClientRect().width) + "x" + Math.round(e.getBoundingClientRect().height))`, &small)
	if len(small) > 0 {
		t.Errorf("touch targets under 44 px on a phone: %q", small)
	}
	s.run(chromedp.EmulateViewport(1200, 900))
	s.noErrors()
}

// TestBrowserFrenchGetsNoEnglishFillers: French speech (an Asterisk
// French prompt) with filler words asked and French chosen, on a server
// whose one engine is pocketsphinx's English model: the page shows the
// language, says plainly that no engine here hears French, lists no
// filler and cuts none (the English model cut five "fillers" out of this
// French speech with no word).
func TestBrowserFrenchGetsNoEnglishFillers(t *testing.T) {
	s := newSite(t)
	french, err := filepath.Abs("../testdata/recordings/fr_asterisk_june_demo-instruct_71s.wav")
	if err != nil {
		t.Fatal(err)
	}
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	tok := s.token()
	s.startJob(french, chromedp.SetValue("#format", "wav", chromedp.ByID), chromedp.Click("#transcribe", chromedp.ByID), chromedp.SetValue("#language", "fr", chromedp.ByID))
	s.waitEditor(tok, 2*time.Minute)
	var got struct {
		Lang, Note, Warning, List string
		WarningShown              bool
		Fillers, FillerCuts       int
		Engine                    string
	}
	s.eval(`({lang: document.getElementById("job-lang").textContent, note: document.getElementById("fillers-note").textContent,
		warning: document.getElementById("fillers-warning").textContent, warningShown: !document.getElementById("fillers").hidden && getComputedStyle(document.getElementById("fillers-warning")).display !== "none",
		list: document.getElementById("filler-list").textContent, fillers: state.job.transcript.fillers.length,
		fillerCuts: state.regions.filter(r => r.reason === "filler").length, engine: state.job.transcript.engine || ""})`, &got)
	t.Logf("page: %+v", got)
	if got.Lang != "Speech language: French." {
		t.Errorf("job language %q", got.Lang)
	}
	if !got.WarningShown || !strings.Contains(got.Warning, `No transcription engine on this server hears "fr"`) || !strings.Contains(got.Warning, "English") {
		t.Errorf("no plain warning: %+v", got)
	}
	if got.Fillers != 0 || got.FillerCuts != 0 || got.Engine != "" || got.List != "None looked for." {
		t.Errorf("English fillers on French speech: %+v", got)
	}
	s.shot("french-fillers.png")
	s.noErrors()
}

// speechWithUm makes speech (flite) with an "um" between two sentences.
func (s *site) speechWithUm() string {
	s.t.Helper()
	var parts []string
	for i, text := range []string{"So I think we should go to the market today.", "um", "The quarterly numbers came in higher than anyone expected."} {
		f := filepath.Join(s.media, fmt.Sprintf("part%d.wav", i))
		if b, err := exec.Command("flite", "-voice", "rms", "-t", text, "-o", f).CombinedOutput(); err != nil {
			s.t.Fatalf("flite: %v %s", err, b)
		}
		parts = append(parts, f)
	}
	speech := filepath.Join(s.media, "speech.wav")
	if b, err := exec.Command("sox", append(parts, speech, "pad", "0.3", "0.3")...).CombinedOutput(); err != nil {
		s.t.Fatalf("sox: %v %s", err, b)
	}
	return speech
}

// TestBrowserFillerReview: each filler is listed with the words around
// it, how sure the recogniser was and whether it is cut. An engine that
// only suggests (pocketsphinx) cuts none: each is "suggested, not cut",
// the note says why, and its Cut button cuts it, Keep keeps it again; with
// export.cutFillers off they are suggestions too. (The list offered only
// Listen; then a filler was cut unasked.)
func TestBrowserFillerReview(t *testing.T) {
	s := newSite(t)
	speech := s.speechWithUm()
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	tok := s.token()
	s.startJob(speech, chromedp.SetValue("#format", "wav", chromedp.ByID), chromedp.Click("#transcribe", chromedp.ByID), chromedp.SetValue("#language", "en", chromedp.ByID))
	s.waitEditor(tok, 2*time.Minute)
	type item struct {
		Text, Ctx, Conf, State, Button string
		Mark                           bool
	}
	items := func() []item {
		var it []item
		s.eval(`[...document.querySelectorAll("#filler-list li")].map(li => ({text: li.textContent, ctx: li.querySelector(".ctx") ? li.querySelector(".ctx").textContent : "",
			conf: li.querySelector(".conf") ? li.querySelector(".conf").textContent : "", state: li.dataset.state || "",
			button: li.querySelector("button[data-act=filler]") ? li.querySelector("button[data-act=filler]").textContent : "", mark: !!li.querySelector(".ctx mark")}))`, &it)
		return it
	}
	covered := func(i int) bool {
		var c bool
		s.eval(fmt.Sprintf(`(() => { const f = state.job.transcript.fillers[%d]; return cuts().some(c => c.start <= f.start + 0.02 && c.end >= f.end - 0.02); })()`, i), &c)
		return c
	}
	it := items()
	t.Logf("fillers: %+v", it)
	if len(it) == 0 {
		t.Fatalf("no filler listed")
	}
	conf := regexp.MustCompile(`(\d+% sure|confidence unknown) · (cut|kept by you|suggested, not cut)$`)
	for i, f := range it {
		if !f.Mark || len(strings.Fields(f.Ctx)) < 2 || !conf.MatchString(f.Conf) || f.Button == "" {
			t.Errorf("filler %d shown without its context, confidence, state or button: %+v", i, f)
		}
		if f.State != "suggested" || covered(i) || f.Button != "Cut" {
			t.Errorf("filler %d cut unasked: %+v, covered by a cut %v", i, f, covered(i))
		}
	}
	var note, lang string
	s.eval(`document.getElementById("fillers-note").textContent`, &note)
	s.eval(`document.getElementById("job-lang").textContent`, &lang)
	if !strings.Contains(note, "Language: English (heard by pocketsphinx)") || !strings.Contains(note, "each is a suggestion, cut only if you press Cut") {
		t.Errorf("fillers note %q", note)
	}
	if lang != "Speech language: English." {
		t.Errorf("job language %q", lang)
	}
	s.eval(`document.querySelector("#filler-list li button[data-act=filler]").click(), true`, nil)
	if it := items(); it[0].State != "cut" || !covered(0) || it[0].Button != "Keep" {
		t.Errorf("Cut on suggested filler 0: %+v, covered by a cut %v", it[0], covered(0))
	}
	s.eval(`document.querySelector("#filler-list li button[data-act=filler]").click(), true`, nil)
	if it := items(); it[0].State == "cut" || covered(0) || it[0].Button != "Cut" {
		t.Errorf("Keep on filler 0: %+v, covered by a cut %v", it[0], covered(0))
	}

	// Fillers found but not cut: suggestions.
	j := s.job()
	body := `{"export": {"cutFillers": false}, "action": "export"}`
	req, _ := http.NewRequest("PATCH", s.url+"/api/v1/jobs/"+j.ID, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testKey)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 202 {
		t.Fatalf("PATCH cutFillers false: %v %v", resp, err)
	}
	tok = s.token()
	s.eval(`(unfollow(), openHash(), true)`, nil)
	s.waitEditor(tok, time.Minute)
	it = items()
	t.Logf("fillers not cut: %+v", it)
	k := -1
	for i, f := range it {
		if f.State == "suggested" {
			k = i
			break
		}
	}
	if k < 0 {
		t.Fatalf("with cutFillers off no filler is a suggestion: %+v", it)
	}
	if !strings.HasSuffix(it[k].Conf, "suggested, not cut") || it[k].Button != "Cut" || covered(k) {
		t.Errorf("suggested filler %d: %+v", k, it[k])
	}
	s.eval(fmt.Sprintf(`document.querySelectorAll("#filler-list li")[%d].querySelector("button[data-act=filler]").click(), true`, k), nil)
	if it := items(); it[k].State != "cut" || !covered(k) {
		t.Errorf("Cut on suggested filler %d: %+v, covered %v", k, it[k], covered(k))
	}
	s.noErrors()
}

// TestBrowserTransport: the speed menu sets the player's rate (and keeps
// it when After loads the rendered file); Next cut selects the next cut
// and plays from a second before it; Loop around it plays the cut's
// surroundings again and again; in After the clock gives the rendered
// file's time beside the original's (the native player and the page's
// clock disagreed: 0:05 against 0:07.0).
func TestBrowserTransport(t *testing.T) {
	s := newSite(t)
	s.openTalk("talk.wav", 2)
	r := s.regions()
	s.eval(`(() => { const r = document.getElementById("rate"); r.value = "2"; r.dispatchEvent(new Event("change")); return true; })()`, nil)
	var rate float64
	s.eval(`state.media.playbackRate`, &rate)
	if rate != 2 {
		t.Errorf("speed 2×: player rate %v", rate)
	}

	// Next cut from the start: cut 0, played from a second before.
	s.eval(`seek(0), true`, nil)
	s.run(chromedp.Click("#next-cut", chromedp.ByID))
	var st struct {
		Sel    int
		Paused bool
		Head   float64
	}
	s.eval(`({sel: state.sel, paused: state.media.paused, head: Number(document.getElementById("wave").dataset.playhead)})`, &st)
	if st.Sel != 0 || math.Abs(st.Head-math.Max(0, r[0].Start-1)) > 0.3 {
		t.Errorf("Next cut: selected %d, playhead %.2f s (want cut 0, at %.2f s)", st.Sel, st.Head, math.Max(0, r[0].Start-1))
	}
	s.run(chromedp.Click("#next-cut", chromedp.ByID))
	s.eval(`({sel: state.sel, paused: state.media.paused, head: Number(document.getElementById("wave").dataset.playhead)})`, &st)
	if st.Sel != 1 || math.Abs(st.Head-(r[1].Start-1)) > 0.3 {
		t.Errorf("Next cut again: selected %d, playhead %.2f s (want cut 1 at %.2f s)", st.Sel, st.Head, r[1].Start-1)
	}

	// Loop around cut 1: once past its end + 1.5 s, back to its start - 1.5 s.
	s.selAct("loop")
	s.eval(`(window.loopBack = false, window.loopMax = 0, (function watch() { const t = now(); window.loopMax = Math.max(window.loopMax, t);
		if (window.loopMax > state.loop.end - 0.3 && t < state.loop.start + 0.5) window.loopBack = true; else requestAnimationFrame(watch); })(), true)`, nil)
	if !s.waitOK(`window.loopBack === true`, 20*time.Second) {
		var max float64
		s.eval(`window.loopMax`, &max)
		t.Errorf("the loop around cut 1 (%.2f–%.2f s) did not start again (played to %.2f s)", r[1].Start-1.5, r[1].End+1.5, max)
	}
	s.selAct("loop") // stop it
	s.run(chromedp.Click("#play", chromedp.ByID))
	s.waitOK(`state.media.paused`, 5*time.Second)

	// After with the rendered file: both clocks, the rate kept.
	s.run(chromedp.Click("#listen-after", chromedp.ByID))
	s.wait("the rendered file", `state.srcKind === "output" && state.media.readyState >= 1`, 20*time.Second)
	var after struct {
		Clock string
		Rate  float64
	}
	s.eval(`(draw(), {clock: document.getElementById("clock").textContent, rate: state.media.playbackRate})`, &after)
	if !strings.Contains(after.Clock, "in the result") || after.Rate != 2 {
		t.Errorf("After: clock %q, rate %v", after.Clock, after.Rate)
	}
	s.noErrors()
}

// TestBrowserNudgeOnPhone: on a phone, where a touch drag scrolls, the
// selected cut's edges move by the selection's buttons (a tap selects) and
// by a finger on them, a swipe elsewhere moves nothing, and a two-finger
// pinch zooms.
func TestBrowserNudgeOnPhone(t *testing.T) {
	s := newSite(t)
	s.openTalk("talk.wav", 2)
	s.run(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile), emulation.SetTouchEmulationEnabled(true).WithMaxTouchPoints(1))
	s.eval(`new Promise(r => setTimeout(() => { layout(); draw(); r(true); }, 300))`, nil)
	r := s.regions()
	x, y := s.canvasPoint((r[1].Start+r[1].End)/2, 0.5)
	s.run(input.DispatchTouchEvent(input.TouchStart, []*input.TouchPoint{{X: x, Y: y}}), input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))
	s.wait("the tap's selection", `state.sel === 1`, 5*time.Second)
	for _, act := range []string{"nudge-start-", "nudge-end+", "nudge-end+"} {
		var bx, by float64
		s.eval(fmt.Sprintf(`(() => { const b = document.querySelector('#sel-bar button[data-act="%s"]'); b.scrollIntoView({block: "center"}); const r = b.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, act), &[]*float64{&bx, &by})
		s.run(input.DispatchTouchEvent(input.TouchStart, []*input.TouchPoint{{X: bx, Y: by}}), input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))
	}
	// A finger beside the selected cut's end drags it (12 px right, as the
	// finger moves: it does not jump to the finger); a swipe
	// elsewhere is the browser's (it scrolls) and moves no edge.
	var spp float64
	s.eval(`state.spp`, &spp)
	before := s.regions()[1]
	x0, y0 := s.canvasPoint(before.End, 0.5)
	x0 += 10 // within reach of the edge, not on it
	drag := []chromedp.Action{input.DispatchTouchEvent(input.TouchStart, []*input.TouchPoint{{X: x0, Y: y0}})}
	for i := 1; i <= 4; i++ {
		drag = append(drag, input.DispatchTouchEvent(input.TouchMove, []*input.TouchPoint{{X: x0 + 3*float64(i), Y: y0}}))
	}
	s.run(append(drag, input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))...)
	dragged := s.regions()[1]
	if want := before.End + 12*spp; math.Abs(dragged.End-want) > 2*spp || dragged.Start != before.Start {
		t.Errorf("a finger dragged cut 1's end 12 px at %.4f s/px: %+v, want its end at %.3f s (was %.3f)", spp, dragged, want, before.End)
	}
	other := len(r) - 1 // another cut, to swipe over
	if other == 1 {
		t.Fatalf("talk.wav has %d cuts, want 3 or more", len(r))
	}
	sx, sy := s.canvasPoint((r[other].Start+r[other].End)/2, 0.5)
	swipe := []chromedp.Action{input.DispatchTouchEvent(input.TouchStart, []*input.TouchPoint{{X: sx, Y: sy}})}
	for i := 1; i <= 10; i++ {
		swipe = append(swipe, input.DispatchTouchEvent(input.TouchMove, []*input.TouchPoint{{X: sx - 4*float64(i), Y: sy}}))
	}
	s.run(append(swipe, input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))...)
	if d := cmp.Diff(dragged, s.regions()[1]); d != "" {
		t.Errorf("a swipe over cut %d moved cut 1 (-before +after):\n%s", other, d)
	}
	if got := s.regions()[other]; got != r[other] {
		t.Errorf("a swipe over cut %d changed it: %+v, was %+v", other, got, r[other])
	}
	// Back where the nudges below expect it.
	s.eval(`(() => { state.regions[1].end = `+fmt.Sprint(before.End)+`; state.sel = 1; selBar(); changed(); return true; })()`, nil)
	// A two-finger pinch over the waveform zooms in.
	var spp0, spp1 float64
	s.eval(`state.spp`, &spp0)
	x, y = s.canvasPoint(15, 0.5)
	two := func(d float64) []*input.TouchPoint {
		return []*input.TouchPoint{{X: x - d, Y: y, ID: 1}, {X: x + d, Y: y, ID: 2}}
	}
	pin := []chromedp.Action{input.DispatchTouchEvent(input.TouchStart, two(20))}
	for i := 1; i <= 8; i++ {
		pin = append(pin, input.DispatchTouchEvent(input.TouchMove, two(20+10*float64(i))))
	}
	s.run(append(pin, input.DispatchTouchEvent(input.TouchEnd, []*input.TouchPoint{}))...)
	s.eval(`state.spp`, &spp1)
	if spp1 > spp0/3 {
		t.Errorf("a pinch from 40 to 200 px zoomed from %.4f to %.4f s per pixel, want a fifth", spp0, spp1)
	}
	got := s.regions()[1]
	if math.Abs(got.Start-(r[1].Start-0.05)) > 1e-6 || math.Abs(got.End-(r[1].End+0.1)) > 1e-6 || got.Reason != "manual" {
		t.Errorf("cut 1 %+v after Start −0.05 and End +0.05 twice, want [%.3f, %.3f)", got, r[1].Start-0.05, r[1].End+0.1)
	}
	s.run(emulation.SetTouchEmulationEnabled(false), chromedp.EmulateViewport(1200, 900))
	s.noErrors()
}

// TestBrowserRenderOnDemand: with "Render at once" unticked the job ends
// with its plan and no file; the editor is there, and the download button
// says it renders first, then saves a file as long as the page shows.
func TestBrowserRenderOnDemand(t *testing.T) {
	s := newSite(t)
	talk := s.gen("talk.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=2:amplitude=0.4:d=30", "-af", talkFilter)
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	tok := s.token()
	s.startJob(talk, chromedp.SetValue("#format", "wav", chromedp.ByID), chromedp.Click("#autoexport", chromedp.ByID))
	s.waitEditor(tok, 90*time.Second)
	j := s.job()
	if j.Output != nil {
		t.Fatalf("unticked Render at once: the job has a file %+v", j.Output)
	}
	var shown struct {
		Label string
		Final float64
	}
	s.eval(`({label: document.querySelector("#downloads button[data-kind=output]").textContent, final: Number(document.getElementById("wave").dataset.final)})`, &shown)
	if !strings.HasPrefix(shown.Label, "Render and download") {
		t.Errorf("download button without a file: %q", shown.Label)
	}
	s.eval(`document.querySelector("#downloads button[data-kind=output]").click()`, nil)
	s.waitFile("talk-autocut.wav", 90*time.Second)
	if got := probeDuration(t, filepath.Join(s.download, "talk-autocut.wav")); math.Abs(got-shown.Final) > 0.005 {
		t.Errorf("rendered on demand: %.3f s, the page showed %.3f s", got, shown.Final)
	}
	s.noErrors()
}

// TestBrowserKeyboardStays: a keyboard user who keeps a cut with the
// selection's button stays on that button (now "Cut it again"), and on a
// cut list button after using it; the page's polls while the job renders,
// and its end, do not take the focus away.
func TestBrowserKeyboardStays(t *testing.T) {
	s := newSite(t)
	s.openTalk("talk.wav", 2)
	s.run(chromedp.Focus("#wave", chromedp.ByID), chromedp.KeyEvent(kb.ArrowRight))
	s.eval(`(document.querySelector("#sel-bar button[data-act=toggle]").focus(), true)`, nil)
	s.run(chromedp.KeyEvent(kb.Enter))
	var f struct {
		Act, Text, Box string
		On             bool
	}
	read := func() {
		s.eval(`(() => { const a = document.activeElement; return {act: a.dataset.act || "", text: a.textContent, box: a.parentElement.id || a.parentElement.tagName,
			on: state.regions[state.sel] ? state.regions[state.sel].on : null}; })()`, &f)
	}
	read()
	if f.Act != "toggle" || f.Text != "Cut it again" || f.On {
		t.Errorf("Enter on Keep it: focus on %+v", f)
	}
	s.run(chromedp.KeyEvent(kb.Enter))
	read()
	if f.Act != "toggle" || f.Text != "Keep it" || !f.On {
		t.Errorf("Enter on Cut it again: focus on %+v", f)
	}
	// The cut list: Keep, then the focus is on that item's new Cut button.
	s.eval(`(document.getElementById("cuts-box").open = true, document.querySelector("#cut-list li:nth-child(2) button").focus(), true)`, nil)
	s.run(chromedp.KeyEvent(kb.Enter))
	var item string
	s.eval(`document.activeElement.closest("li") ? [...document.querySelectorAll("#cut-list li")].indexOf(document.activeElement.closest("li")) + ":" + document.activeElement.textContent : document.activeElement.tagName`, &item)
	if item != "1:Cut" {
		t.Errorf("Enter on the second cut's Keep: focus on %q, want 1:Cut", item)
	}
	// Apply: while it renders the polls leave the focus where it is.
	s.eval(`(document.getElementById("apply").click(), true)`, nil)
	s.wait("the editor while rendering", `!!state.env && state.job.status === "rendering"`, 30*time.Second)
	s.run(chromedp.Focus("#wave", chromedp.ByID), chromedp.KeyEvent(kb.ArrowRight))
	s.eval(`(document.querySelector("#sel-bar button[data-act=toggle]").focus(), true)`, nil)
	var after string
	s.eval(`new Promise(r => setTimeout(() => r(document.activeElement.dataset.act || document.activeElement.tagName), 2500))`, &after)
	if after != "toggle" {
		t.Errorf("while the job rendered and once done, the focus moved from the selection's Keep it to %q", after)
	}
	s.noErrors()
}

// TestBrowserNewJobAsks: starting another job while the open one has an
// edit not applied asks first; declined, the open job and its edit stay;
// accepted, the new job opens and the edit waits in this browser. (A new
// job replaced the open one's unapplied edit with no word.)
func TestBrowserNewJobAsks(t *testing.T) {
	s := newSite(t)
	var prompts []string
	accept := false
	chromedp.ListenTarget(s.ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			s.mu.Lock()
			prompts = append(prompts, string(d.Type)+": "+d.Message)
			yes := accept
			s.mu.Unlock()
			go chromedp.Run(s.ctx, page.HandleJavaScriptDialog(yes))
		}
	})
	asked := func() []string {
		s.mu.Lock()
		defer s.mu.Unlock()
		return append([]string(nil), prompts...)
	}
	s.openTalk("talk.wav", 2)
	id := s.job().ID
	r := s.regions()
	x, y := s.canvasPoint((r[1].Start+r[1].End)/2, 0.5)
	s.run(chromedp.MouseClickXY(x, y))
	s.selAct("toggle")
	edited := s.regions()

	other := s.gen("other.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=5:amplitude=0.4:d=20", "-af", talkFilter)
	s.settle()
	s.startJob(other)
	// The question, if any, is answered before the page runs on: a state
	// read after it sees what the answer left.
	s.eval(`new Promise((done) => setTimeout(() => done(true), 0))`, nil)
	if got := asked(); len(got) != 1 || !strings.HasPrefix(got[0], "confirm: ") || !strings.Contains(got[0], "not applied") {
		t.Fatalf("Start with an edit not applied: dialogs %q, want one confirm about it", got)
	}
	var still string
	s.eval(`state.job && state.job.id`, &still)
	if still != id {
		t.Errorf("declined, the open job is %q, want %q", still, id)
	}
	if d := cmp.Diff(edited, s.regions(), sameRegions); d != "" {
		t.Errorf("declined, the edit changed (-before +after):\n%s", d)
	}

	s.mu.Lock()
	accept = true
	s.mu.Unlock()
	tok := s.token()
	s.startJob(other)
	s.waitEditor(tok, 90*time.Second)
	var now string
	s.eval(`state.job.id`, &now)
	if now == id {
		t.Errorf("accepted, the old job %s is still open", id)
	}
	if got := asked(); len(got) != 2 {
		t.Errorf("dialogs %q, want two confirms", got)
	}
	var saved bool
	s.eval(fmt.Sprintf(`localStorage.getItem("autocut.edit.%s") !== null`, id), &saved)
	if !saved {
		t.Errorf("the old job's edit is not kept in the browser")
	}
	s.noErrors()
}
