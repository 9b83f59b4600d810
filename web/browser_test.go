//go:build linux

package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/autocut-dev/autocut/httpapi"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/jobs/store/sqlitestore"
	"github.com/autocut-dev/autocut/transcribe"
	"github.com/autocut-dev/autocut/web"
)

const testKey = "browserkey"

// site is a server with the real job layer and the page, and a headless
// Chromium on it (Debian's chromium).
type site struct {
	t        *testing.T
	url      string
	ctx      context.Context // the browser tab, with the test's deadline
	media    string          // directory of the generated media
	shots    string          // where screenshots are kept
	mu       sync.Mutex
	errs     []string // uncaught exceptions and console errors of the page
	download string   // Chromium's download directory
}

// newSite starts the site; config, if given, changes the API server's
// configuration first.
func newSite(t *testing.T, config ...func(*httpapi.Config)) *site {
	ctx := context.Background()
	tr, err := transcribe.New(ctx, transcribe.Config{Order: []string{"pocketsphinx"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := jobs.Open(ctx, jobs.Config{DataDir: t.TempDir(), Store: openStore(t), Workers: 2, PollInterval: 20 * time.Millisecond,
		Transcriber: tr, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		m.Stop(sctx)
	})
	keys := httpapi.NewKeyStore()
	keys.ParseKeys(testKey + ":pro")
	cfg := httpapi.Config{Service: m, Keys: keys, Web: web.Handler(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	for _, c := range config {
		c(&cfg)
	}
	srv := httptest.NewServer(httpapi.New(cfg))
	t.Cleanup(srv.Close)

	s := &site{t: t, url: srv.URL, media: t.TempDir(), shots: t.TempDir(), download: t.TempDir()}
	if d := os.Getenv("AUTOCUT_SCREENSHOT_DIR"); d != "" { // keep them to look at
		s.shots = d
		os.MkdirAll(d, 0o755)
	}
	bin := "/usr/bin/chromium"
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("chromium is not installed (scripts/test.sh installs it): %v", err)
	}
	profile := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"), chromedp.Flag("mute-audio", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1200, 900),
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			// A process group of its own, so that the end of the test can
			// wait for every process of the browser; killed with the test.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		}))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	pgid := 0
	// Registered after profile's TempDir, so it runs before the profile is
	// removed: Chromium's helper processes write into it until they exit.
	t.Cleanup(func() { closeBrowser(t, bctx, pgid, bcancel, acancel) })
	if err := chromedp.Run(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	pgid = chromedp.FromContext(bctx).Browser.Process().Pid
	chromedp.ListenTarget(bctx, func(ev any) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventExceptionThrown:
			s.errs = append(s.errs, "exception: "+ev.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.APITypeError {
				var parts []string
				for _, a := range ev.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				s.errs = append(s.errs, "console.error: "+strings.Join(parts, " "))
			}
		}
	})
	rctx, cancel := context.WithTimeout(bctx, 6*time.Minute)
	t.Cleanup(cancel)
	s.ctx = rctx
	s.run(chromedp.Navigate(srv.URL+"/"),
		browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(s.download).WithEventsEnabled(true))
	return s
}

func (s *site) run(actions ...chromedp.Action) {
	s.t.Helper()
	if err := chromedp.Run(s.ctx, actions...); err != nil {
		s.t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression (awaiting a promise) into out.
func (s *site) eval(js string, out any) {
	s.t.Helper()
	s.run(chromedp.Evaluate(js, out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
}

// wait polls a JavaScript condition until it is truthy.
func (s *site) wait(what, js string, limit time.Duration) {
	s.t.Helper()
	if err := chromedp.Run(s.ctx, chromedp.Poll(js, nil, chromedp.WithPollingTimeout(limit), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		var status, msgs, player string
		_ = chromedp.Run(s.ctx, chromedp.Evaluate(`document.getElementById("job-status").textContent`, &status),
			chromedp.Evaluate(`[...document.querySelectorAll(".msg")].map(e => e.id + ": " + e.textContent).filter(t => !t.endsWith(": ")).join(" | ")`, &msgs),
			chromedp.Evaluate(`state.media ? JSON.stringify({src: state.srcKind, ready: state.media.readyState, net: state.media.networkState,
				err: state.media.error && state.media.error.message, url: state.media.currentSrc}) : "none"`, &player))
		s.t.Fatalf("waiting for %s: %v (status %q; messages %s; player %s)", what, err, status, msgs, player)
	}
}

// noErrors fails the test on any uncaught exception or console error so far.
func (s *site) noErrors() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.errs {
		s.t.Errorf("page: %s", e)
	}
	s.errs = nil
}

// view saves what the viewport shows after scrolling element sel to the top.
func (s *site) view(name, sel string) string {
	s.t.Helper()
	var b []byte
	s.eval(fmt.Sprintf(`(document.querySelector(%q).scrollIntoView({block: "start"}), new Promise(r => setTimeout(r, 150)))`, sel), nil)
	s.run(chromedp.CaptureScreenshot(&b))
	p := filepath.Join(s.shots, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

func (s *site) shot(name string) string {
	s.t.Helper()
	var b []byte
	s.run(chromedp.FullScreenshot(&b, 100)) // 100: PNG
	p := filepath.Join(s.shots, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// gen makes a media file with ffmpeg.
func (s *site) gen(name string, args ...string) string {
	s.t.Helper()
	p := filepath.Join(s.media, name)
	if b, err := exec.Command("ffmpeg", append(append([]string{"-v", "error", "-y"}, args...), p)...).CombinedOutput(); err != nil {
		s.t.Fatalf("ffmpeg: %v: %s", err, b)
	}
	return p
}

// speech-like audio: noise bursts with pauses of several lengths.
const talkFilter = "volume='if(lt(mod(t,5),2+mod(t,3)),1,0.001)':eval=frame"

// startJob picks a file and starts it with the page's Start button.
func (s *site) startJob(path string, before ...chromedp.Action) {
	s.t.Helper()
	s.run(chromedp.SetUploadFiles("#file", []string{path}, chromedp.ByID))
	s.run(before...)
	s.wait("the Start button", `!document.getElementById("start").disabled`, 5*time.Second)
	s.run(chromedp.Click("#start", chromedp.ByID))
}

// waitEditor waits until a job newer than token is done and its editor drawn.
func (s *site) waitEditor(token int, limit time.Duration) {
	s.t.Helper()
	s.wait("the job done and its editor", fmt.Sprintf(`state.token > %d && document.getElementById("job-status").dataset.status === "done" && !document.getElementById("editor").hidden && !!document.getElementById("wave").dataset.cuts`, token), limit)
}

func (s *site) token() int {
	var n int
	s.eval(`state.token`, &n)
	return n
}

// canvasPoint is the viewport position of time t on the waveform (at the
// page's zoom and scroll), at a fraction of the waveform area's height.
func (s *site) canvasPoint(t, yFrac float64) (float64, float64) {
	s.t.Helper()
	var r struct{ X, Y, H float64 }
	s.eval(fmt.Sprintf(`(() => { const c = document.getElementById("wave"); c.scrollIntoView({block: "center"}); const r = c.getBoundingClientRect();
		return {x: clientX(%f), y: r.top, h: r.height - 24}; })()`, t), &r)
	return r.X, r.Y + yFrac*r.H
}

func (s *site) mouse(typ input.MouseType, x, y float64, buttons int64) chromedp.Action {
	ev := input.DispatchMouseEvent(typ, x, y).WithButton(input.Left).WithButtons(buttons).WithClickCount(1)
	if typ == input.MouseMoved && buttons == 0 {
		ev = ev.WithButton(input.None)
	}
	return ev
}

type region struct {
	Start, End float64
	Reason     string
	On         bool
}

type cut struct{ Start, End float64 }

// apiGet reads a job the way a client does.
func (s *site) apiGet(path string, out any) []byte {
	s.t.Helper()
	req, _ := http.NewRequest("GET", s.url+path, nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		s.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			s.t.Fatal(err)
		}
	}
	return b
}

func probeDuration(t *testing.T, path string) float64 {
	t.Helper()
	b, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	d, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil {
		t.Fatalf("duration %q", b)
	}
	return d
}

// TestBrowserEditor drives the page in Chromium: the key typed but never
// checked, a file picked then its options, Start; the editor of the done
// job: one cut toggled off by a click, one cut's edge dragged, Apply; the
// job's plan (read through the API) holds exactly the cuts the page showed
// and the downloaded file (saved by Chromium through the page's Download
// button) lasts what the page said. Then: before/after playback from the
// same spot, the keyboard, the phone layout, dark mode. Screenshots are
// written to $AUTOCUT_SCREENSHOT_DIR when set.
func TestBrowserEditor(t *testing.T) {
	s := newSite(t)
	// Two channels in opposite polarity (a cable wired the other way
	// round): the page shows the analysis's warning.
	talk := s.gen("talk.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=2:amplitude=0.4:d=30", "-af", talkFilter+",pan=stereo|c0=c0|c1=-1*c0")

	// The key is typed, never checked; the file is picked before the options.
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	tok := s.token()
	s.startJob(talk, chromedp.SetValue("#format", "wav", chromedp.ByID))
	// The picked file's size in SI units, as the server's limit is written.
	if st, err := os.Stat(talk); err != nil {
		t.Fatal(err)
	} else {
		var picked string
		s.eval(`document.getElementById("picked-name").textContent`, &picked)
		if want := fmt.Sprintf("talk.wav (%.1f MB, audio)", float64(st.Size())/1e6); picked != want {
			t.Errorf("picked file shown as %q, want %q", picked, want)
		}
	}
	s.waitEditor(tok, 90*time.Second)

	var regions []region
	var dur float64
	s.eval(`state.regions`, &regions)
	s.eval(`state.dur`, &dur)
	if len(regions) < 3 {
		t.Fatalf("%d cuts drawn, want at least 3: %+v", len(regions), regions)
	}
	t.Logf("%.2f s, %d detected cuts: %+v", dur, len(regions), regions)
	// Every page element the waveform and editor need is there.
	var shown struct {
		Levels, Final, Clock string
		Media                string
		Threshold            float64
	}
	s.eval(`({levels: document.getElementById("levels").textContent, final: document.getElementById("stat-final").textContent,
		clock: document.getElementById("clock").textContent, media: state.media.tagName, threshold: state.threshold})`, &shown)
	if !strings.Contains(shown.Levels, "Background noise is") || !strings.Contains(shown.Levels, "speech is at") || shown.Media != "AUDIO" {
		t.Errorf("levels %q, player %s", shown.Levels, shown.Media)
	}
	var warned string
	s.eval(`document.getElementById("warnings").textContent`, &warned)
	if !strings.HasPrefix(warned, "channels in opposite polarity") {
		t.Errorf("warnings shown: %q, want the one about opposite polarity", warned)
	}

	// Keep one cut: a click in its middle selects it, its button keeps it.
	off := 1
	x, y := s.canvasPoint((regions[off].Start+regions[off].End)/2, 0.5)
	s.run(chromedp.MouseClickXY(x, y))
	s.selAct("toggle")
	s.wait("the cut kept", fmt.Sprintf(`state.regions[%d].on === false`, off), 5*time.Second)

	// Drag the end of another cut 0.3 s to the left.
	dr := 2
	if regions[dr].End-regions[dr].Start < 0.6 {
		dr = 0
	}
	from := regions[dr].End
	x0, y0 := s.canvasPoint(from, 0.4)
	x1, _ := s.canvasPoint(from-0.3, 0.4)
	acts := []chromedp.Action{s.mouse(input.MouseMoved, x0, y0, 0), s.mouse(input.MousePressed, x0, y0, 1)}
	for i := 1; i <= 6; i++ {
		acts = append(acts, s.mouse(input.MouseMoved, x0+(x1-x0)*float64(i)/6, y0, 1))
	}
	acts = append(acts, s.mouse(input.MouseReleased, x1, y0, 0))
	s.run(acts...)
	var moved region
	s.eval(fmt.Sprintf(`state.regions[%d]`, dr), &moved)
	if math.Abs(moved.End-(from-0.3)) > 0.1 || moved.Start != regions[dr].Start || !moved.On || moved.Reason != "manual" {
		t.Errorf("dragged cut %+v, want its end moved from %.3f to about %.3f", moved, from, from-0.3)
	}

	// What the page shows before Apply.
	var pageCuts []cut
	var pageFinal float64
	var finalText string
	s.eval(`cuts()`, &pageCuts)
	s.eval(`Number(document.getElementById("wave").dataset.final)`, &pageFinal)
	s.eval(`document.getElementById("stat-final").textContent`, &finalText)
	if len(pageCuts) != len(regions)-1 {
		t.Errorf("page cuts %d, want %d", len(pageCuts), len(regions)-1)
	}
	t.Logf("page shows %d cuts, final %s (%.3f s)", len(pageCuts), finalText, pageFinal)
	desktop := s.shot("editor-desktop.png")

	tok = s.token()
	s.run(chromedp.Click("#apply", chromedp.ByID))
	s.waitEditor(tok, 90*time.Second)

	var job struct {
		ID   string
		Plan struct {
			Cuts []struct {
				Start, End float64
				Reason     string
			}
			Stats struct{ FinalSec float64 }
		}
		Output struct {
			Duration float64
			Name     string
		}
	}
	var id string
	s.eval(`state.job.id`, &id)
	s.apiGet("/api/v1/jobs/"+id, &job)
	if len(job.Plan.Cuts) != len(pageCuts) {
		t.Fatalf("plan has %d cuts, the page showed %d", len(job.Plan.Cuts), len(pageCuts))
	}
	for i, c := range job.Plan.Cuts {
		if math.Abs(c.Start-pageCuts[i].Start) > 2e-6 || math.Abs(c.End-pageCuts[i].End) > 2e-6 {
			t.Errorf("plan cut %d [%.6f, %.6f), the page showed [%.6f, %.6f)", i, c.Start, c.End, pageCuts[i].Start, pageCuts[i].End)
		}
		wantReason := "silence"
		if math.Abs(c.End-moved.End) < 1e-5 {
			wantReason = "manual"
		}
		if c.Reason != wantReason && !(wantReason == "silence" && c.Reason != "manual") {
			t.Errorf("plan cut %d reason %q, want %q", i, c.Reason, wantReason)
		}
	}
	if math.Abs(job.Plan.Stats.FinalSec-pageFinal) > 0.0015 {
		t.Errorf("plan final %.4f s, the page showed %.4f s", job.Plan.Stats.FinalSec, pageFinal)
	}
	var applyMsg string
	s.eval(`document.getElementById("apply-msg").textContent`, &applyMsg)
	if applyMsg != "The rendered file has these cuts." {
		t.Errorf("after Apply the page says %q", applyMsg)
	}

	// The page's Download button: Chromium saves the file (through the
	// service worker, which adds the key).
	var streamed bool
	s.eval(`worker`, &streamed)
	if !streamed {
		t.Errorf("the service worker does not control the page")
	}
	s.run(chromedp.Click("#downloads button", chromedp.ByQuery))
	saved := filepath.Join(s.download, job.Output.Name)
	deadline := time.Now().Add(20 * time.Second)
	for {
		if st, err := os.Stat(saved); err == nil && st.Size() > 44 {
			if _, err := os.Stat(saved + ".crdownload"); err != nil {
				break
			}
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(s.download)
			t.Fatalf("%s not downloaded by the page (download dir: %v)", saved, entries)
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := probeDuration(t, saved)
	t.Logf("downloaded %s: %.4f s; page showed %.4f s; plan %.4f s", job.Output.Name, got, pageFinal, job.Plan.Stats.FinalSec)
	if math.Abs(got-pageFinal) > 0.005 {
		t.Errorf("the downloaded file lasts %.4f s, the page showed %.4f s", got, pageFinal)
	}

	// Before/after from the same spot: a second into the first kept part
	// after the first cut.
	var first cut
	s.eval(`cuts()[0]`, &first)
	at := first.End + 0.5
	s.eval(fmt.Sprintf(`seek(%f)`, at), nil)
	s.wait("the original loaded", `state.srcKind === "original" && state.media.readyState >= 1`, 20*time.Second)
	s.run(chromedp.Click("#listen-after", chromedp.ByID))
	s.wait("the rendered file loaded", `state.srcKind === "output" && state.media.readyState >= 1`, 20*time.Second)
	var pos struct{ Cur, Now float64 }
	s.eval(`({cur: state.media.currentTime, now: now()})`, &pos)
	if math.Abs(pos.Cur-(at-(first.End-first.Start))) > 0.02 || math.Abs(pos.Now-at) > 0.02 {
		t.Errorf("after: file at %.3f s (want %.3f), page at %.3f s (want %.3f)", pos.Cur, at-(first.End-first.Start), pos.Now, at)
	}
	s.run(chromedp.Click("#listen-before", chromedp.ByID))
	s.wait("the original again", `state.srcKind === "original" && state.media.readyState >= 1`, 20*time.Second)
	s.eval(`({cur: state.media.currentTime, now: now()})`, &pos)
	if math.Abs(pos.Cur-at) > 0.02 {
		t.Errorf("before: original at %.3f s, want %.3f", pos.Cur, at)
	}

	// A click on the time axis moves the playhead (and the player) there.
	ax, ay := s.canvasPoint(21, 1)
	s.run(chromedp.MouseClickXY(ax, ay+10)) // 10 px into the axis under the waveform
	s.eval(`({cur: state.media.currentTime, now: Number(document.getElementById("wave").dataset.playhead)})`, &pos)
	if math.Abs(pos.Now-21) > 0.1 || math.Abs(pos.Cur-21) > 0.1 {
		t.Errorf("click on the time axis at 21 s: playhead %.2f s, player %.2f s", pos.Now, pos.Cur)
	}

	// Keyboard: right arrow selects the next cut and moves there, Enter
	// keeps it, Ctrl+Z undoes; space plays and pauses.
	var before []region
	s.eval(`state.regions`, &before)
	s.run(chromedp.Focus("#wave", chromedp.ByID), chromedp.KeyEvent(kb.ArrowRight))
	var sel int
	var head float64
	s.eval(`state.sel`, &sel)
	s.eval(`Number(document.getElementById("wave").dataset.playhead)`, &head)
	if sel < 0 || before[sel].Start <= 21 || math.Abs(head-before[sel].Start) > 0.05 {
		t.Errorf("ArrowRight: selected %d at %.2f s (playhead %.2f), want the first cut after 21 s", sel, before[max(sel, 0)].Start, head)
	}
	s.run(chromedp.KeyEvent(kb.Enter))
	var on bool
	s.eval(fmt.Sprintf(`state.regions[%d].on`, sel), &on)
	if on == before[sel].On {
		t.Errorf("Enter did not toggle cut %d", sel)
	}
	s.run(chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	s.eval(fmt.Sprintf(`state.regions[%d].on`, sel), &on)
	if on != before[sel].On {
		t.Errorf("Ctrl+Z did not undo")
	}
	s.run(chromedp.KeyEvent(" "))
	s.wait("playing", `!state.media.paused`, 5*time.Second)
	s.run(chromedp.KeyEvent(" "))
	s.wait("paused", `state.media.paused`, 5*time.Second)

	// The phone layout: nothing wider than the screen, each slider's value
	// and unit on the slider's line, the job at the top.
	s.run(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	s.eval(`new Promise(r => setTimeout(r, 300))`, nil)
	s.eval(`(draw(), document.getElementById("job").scrollIntoView({block: "start"}), true)`, nil)
	var phone struct {
		ScrollWidth int
		Rows        []float64 // |range top - output top| per slider
		Wrapped     []bool    // an output on two lines
		JobTop      float64
	}
	s.eval(`(() => {
		const sliders = [...document.querySelectorAll(".slider")];
		return {scrollWidth: document.documentElement.scrollWidth,
			rows: sliders.map(d => Math.abs(d.querySelector("input").getBoundingClientRect().top + d.querySelector("input").getBoundingClientRect().height/2
				- (d.querySelector("output").getBoundingClientRect().top + d.querySelector("output").getBoundingClientRect().height/2))),
			wrapped: sliders.map(d => d.querySelector("output").getBoundingClientRect().height > 1.6 * parseFloat(getComputedStyle(d.querySelector("output")).lineHeight)),
			jobTop: document.getElementById("job").getBoundingClientRect().top};
	})()`, &phone)
	if phone.ScrollWidth > 390 {
		t.Errorf("at 390 px the page is %d px wide", phone.ScrollWidth)
	}
	for i := range phone.Rows {
		if phone.Rows[i] > 8 || phone.Wrapped[i] {
			t.Errorf("slider %d: value %.0f px off the slider's line, wrapped %v", i, phone.Rows[i], phone.Wrapped[i])
		}
	}
	phoneShot := s.shot("editor-phone.png")
	s.view("editor-phone-top.png", "#job")
	s.view("editor-phone-tune.png", "#stats")

	// Dark mode.
	s.run(emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}))
	s.eval(`(draw(), true)`, nil)
	var bg string
	s.eval(`getComputedStyle(document.body).backgroundColor`, &bg)
	if r, g, b := rgb(bg); r+g+b > 150 {
		t.Errorf("dark mode background %s", bg)
	}
	darkPhone := s.shot("editor-phone-dark.png")
	s.view("editor-phone-dark-top.png", "#job")
	s.run(chromedp.EmulateViewport(1200, 900))
	s.eval(`(draw(), true)`, nil)
	darkDesktop := s.shot("editor-desktop-dark.png")
	s.run(emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}))
	t.Logf("screenshots: %s %s %s %s", desktop, phoneShot, darkPhone, darkDesktop)
	s.noErrors()
}

func rgb(css string) (int, int, int) {
	var r, g, b int
	fmt.Sscanf(strings.TrimPrefix(css, "rgb("), "%d, %d, %d", &r, &g, &b)
	return r, g, b
}

// closeBrowser closes Chromium gracefully (10 s at most), then waits until
// no process of its group is left (zombies aside), killing the group if
// any is still there after 10 s, so that nothing writes into the profile
// directory any more when the test removes it.
func closeBrowser(t *testing.T, bctx context.Context, pgid int, cancels ...context.CancelFunc) {
	tctx, cancel := context.WithTimeout(bctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Cancel(tctx); err != nil {
		t.Logf("closing chromium: %v", err)
	}
	for _, c := range cancels {
		c()
	}
	if pgid == 0 {
		return
	}
	start := time.Now()
	for killed := false; groupAlive(pgid); time.Sleep(20 * time.Millisecond) {
		switch {
		case !killed && time.Since(start) > 10*time.Second:
			t.Logf("chromium's processes still running 10 s after it closed: killing process group %d", pgid)
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			killed = true
		case killed && time.Since(start) > 15*time.Second:
			t.Errorf("chromium's process group %d survives SIGKILL", pgid)
			return
		}
	}
}

// groupAlive reports whether a process of group pgid is running (a zombie
// waiting for its parent to reap it does not count: it writes nothing).
func groupAlive(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid {
			return true
		}
	}
	return false
}

// TestBrowserPageDefects: the page's defects, each fixed and checked in
// Chromium: a wrong key says so next to the key (no "Saved."); mp4 is
// offered for video files only and chosen after the file; a video job
// plays in a <video>; a preview with nothing to keep says so next to the
// sliders, shows no stale plan and disables Apply, and the message goes
// once the settings keep something again; a failed job shows only its own
// state; a rejected upload shows its error by the file and no old job;
// Delete asks first.
func TestBrowserPageDefects(t *testing.T) {
	s := newSite(t)
	clip := s.gen("clip.mp4", "-f", "lavfi", "-i", "testsrc2=size=320x180:rate=25:duration=20",
		"-f", "lavfi", "-i", "anoisesrc=color=pink:seed=3:amplitude=0.4:d=20", "-af", talkFilter,
		"-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest")
	talk := s.gen("talk.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=2:amplitude=0.4:d=8", "-af", talkFilter)
	broken := filepath.Join(s.media, "broken.wav") // sniffed as WAV, cannot be decoded
	os.WriteFile(broken, append([]byte("RIFF\x24\x00\x00\x00WAVEjunk"), make([]byte, 4000)...), 0o644)
	text := filepath.Join(s.media, "notes.txt")
	os.WriteFile(text, []byte("not a recording, just some notes\n"), 0o644)
	msg := func(id string) (text string, bad bool) {
		var m struct {
			Text string
			Bad  bool
		}
		s.eval(fmt.Sprintf(`({text: document.getElementById(%q).textContent, bad: document.getElementById(%q).classList.contains("bad")})`, id, id), &m)
		return m.Text, m.Bad
	}

	// A wrong key: an error next to the key field, nothing "saved".
	s.run(chromedp.SendKeys("#key", "wrong-key", chromedp.ByID), chromedp.Click("#key-form button", chromedp.ByQuery))
	s.wait("the key refused", `document.getElementById("key-msg").classList.contains("bad")`, 10*time.Second)
	if m, _ := msg("key-msg"); !strings.Contains(m, "wrong") || strings.Contains(m, "Saved") || strings.Contains(m, "accepted") {
		t.Errorf("wrong key: %q", m)
	}
	s.eval(`document.getElementById("key").value = ""`, nil)
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))

	// mp4 is offered for a video file only; options are chosen after the file.
	var format string
	var mp4Off bool
	s.run(chromedp.SetValue("#format", "mp4", chromedp.ByID), chromedp.SetUploadFiles("#file", []string{talk}, chromedp.ByID))
	s.eval(`document.getElementById("format").value`, &format)
	s.eval(`document.querySelector('#format option[value=mp4]').disabled`, &mp4Off)
	if note, _ := msg("format-note"); format != "mp3" || !mp4Off || !strings.Contains(note, "video") {
		t.Errorf("audio file: format %q, mp4 disabled %v, note %q", format, mp4Off, note)
	}
	s.run(chromedp.SetUploadFiles("#file", []string{clip}, chromedp.ByID))
	s.eval(`document.querySelector('#format option[value=mp4]').disabled`, &mp4Off)
	if mp4Off {
		t.Errorf("video file: mp4 disabled")
	}
	tok := s.token()
	s.startJob(clip, chromedp.SetValue("#format", "mp4", chromedp.ByID))
	s.waitEditor(tok, 2*time.Minute)

	// The video result plays in a <video>.
	s.wait("the original loaded", `state.srcKind === "original" && state.media.readyState >= 1`, 45*time.Second)
	s.run(chromedp.Click("#listen-after", chromedp.ByID))
	s.wait("the rendered video loaded", `state.srcKind === "output" && state.media.readyState >= 1`, 45*time.Second)
	var player struct {
		Tag   string
		Width int
	}
	s.eval(`({tag: state.media.tagName, width: state.media.videoWidth})`, &player)
	if player.Tag != "VIDEO" || player.Width != 320 {
		t.Errorf("the mp4 result plays in %s, %d px wide", player.Tag, player.Width)
	}

	// A preview with nothing to keep: its message by the sliders, no
	// stale plan, Apply off; gone when the settings keep something again.
	var base string
	s.eval(`document.getElementById("thresholdDb").value`, &base)
	setThreshold := func(v string) {
		s.run(chromedp.SetValue("#thresholdDb", v, chromedp.ByID))
		s.eval(`(document.getElementById("thresholdDb").dispatchEvent(new Event("input")), true)`, nil)
	}
	setThreshold("-10")
	s.wait("the preview refused", `!state.previewPending && state.previewBad && document.getElementById("tune-msg").textContent !== ""`, 10*time.Second)
	var bad struct {
		Final   string
		Apply   bool
		Tune    string
		Buttons int
	}
	s.eval(`({final: document.getElementById("stat-final").textContent, apply: document.getElementById("apply").disabled,
		tune: document.getElementById("tune-msg").textContent})`, &bad)
	if bad.Final != "—" || !bad.Apply || !strings.Contains(bad.Tune, "Nothing would be left") {
		t.Errorf("preview with nothing to keep: final %q, apply disabled %v, message %q", bad.Final, bad.Apply, bad.Tune)
	}
	s.shot("preview-nothing-kept.png")
	setThreshold(base)
	s.wait("the preview back", `!state.previewPending && !state.previewBad && document.getElementById("tune-msg").textContent === ""`, 10*time.Second)
	// Overlapping previews: the answer to an older request, arriving after
	// the newer one's, is dropped (it would redraw a stale plan over the
	// newer one and the edits made on it).
	s.eval(`(() => { const f = window.fetch; let n = 0;
		window.fetch = (u, o) => { const p = f(u, o);
			return String(u).includes("/preview") && n++ === 0 ? p.then((r) => new Promise((ok) => setTimeout(() => ok(r), 1500))) : p; };
		window.restoreFetch = () => { window.fetch = f; }; return true; })()`, nil)
	setThreshold("-10")
	time.Sleep(300 * time.Millisecond)
	setThreshold(base)
	s.wait("the newer preview", `!state.previewPending && !state.previewBad`, 10*time.Second)
	time.Sleep(2 * time.Second) // the older answer (nothing to keep) arrives
	var late struct {
		Bad  bool
		Tune string
	}
	s.eval(`({bad: state.previewBad, tune: document.getElementById("tune-msg").textContent})`, &late)
	if late.Bad || late.Tune != "" {
		t.Errorf("an overtaken preview answer was drawn: previewBad %v, message %q", late.Bad, late.Tune)
	}
	s.eval(`(window.restoreFetch(), true)`, nil)
	// An edit, applied: no red message anywhere afterwards.
	var regions []region
	s.eval(`state.regions`, &regions)
	x, y := s.canvasPoint((regions[0].Start+regions[0].End)/2, 0.5)
	s.run(chromedp.MouseClickXY(x, y))
	s.selAct("toggle")
	tok = s.token()
	s.run(chromedp.Click("#apply", chromedp.ByID))
	s.waitEditor(tok, 2*time.Minute)
	var red string
	s.eval(`[...document.querySelectorAll(".msg.bad")].map(e => e.id + ": " + e.textContent).join(" | ")`, &red)
	if red != "" {
		t.Errorf("red messages after a successful Apply: %s", red)
	}
	var doneID string
	s.eval(`state.job.id`, &doneID)

	// A failed job shows only its own state.
	tok = s.token()
	s.startJob(broken)
	s.wait("the job failed", fmt.Sprintf(`state.token > %d && document.getElementById("job-status").dataset.status === "failed"`, tok), time.Minute)
	var failed struct {
		Name, Status, Stats, Downloads, Media string
		Editor, Bar                           bool
		Cuts                                  any
	}
	s.eval(`({name: document.getElementById("job-name").textContent, status: document.getElementById("job-status").textContent,
		stats: document.getElementById("stats").textContent, downloads: document.getElementById("downloads").textContent,
		media: document.getElementById("media-box").innerHTML, editor: document.getElementById("editor").hidden,
		bar: document.getElementById("job-bar").hidden, cuts: document.getElementById("wave").dataset.cuts ?? null})`, &failed)
	if failed.Name != "broken.wav" || !strings.HasPrefix(failed.Status, "Failed") || failed.Stats != "" || failed.Downloads != "" ||
		failed.Media != "" || !failed.Editor || !failed.Bar || failed.Cuts != nil {
		t.Errorf("failed job shows more than its own state: %+v", failed)
	}
	s.shot("failed-job.png")

	// A rejected upload: the error by the file, no job on screen.
	tok = s.token()
	s.run(chromedp.Click(`#jobs li button.secondary`, chromedp.ByQuery)) // the newest job: the failed one
	s.wait("the job opened", fmt.Sprintf(`state.token > %d && !document.getElementById("job").hidden`, tok), 10*time.Second)
	s.startJob(text)
	s.wait("the upload refused", `document.getElementById("new-msg").textContent !== ""`, 10*time.Second)
	var rejected struct {
		Msg     string
		JobShow bool
		Near    bool
	}
	s.eval(`({msg: document.getElementById("new-msg").textContent, jobShow: !document.getElementById("job").hidden,
		near: document.getElementById("new-msg").closest("section").id === "new-sec"})`, &rejected)
	if !strings.Contains(rejected.Msg, "not audio or video") || rejected.JobShow || !rejected.Near {
		t.Errorf("rejected upload: %+v", rejected)
	}

	// Filler words: listed with their times as suggestions (pocketsphinx
	// does not reach the precision to cut one by itself: none is drawn as
	// a cut), and a Listen button moves the playhead to a second before one.
	var parts []string
	for i, text := range []string{"So I think we should go to the market today.", "um", "The quarterly numbers came in higher than anyone expected."} {
		f := filepath.Join(s.media, fmt.Sprintf("part%d.wav", i))
		if b, err := exec.Command("flite", "-voice", "rms", "-t", text, "-o", f).CombinedOutput(); err != nil {
			t.Fatalf("flite: %v %s", err, b)
		}
		parts = append(parts, f)
	}
	speech := filepath.Join(s.media, "speech.wav")
	if b, err := exec.Command("sox", append(parts, speech, "pad", "0.3", "0.3")...).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, b)
	}
	tok = s.token()
	s.startJob(speech, chromedp.SetValue("#format", "wav", chromedp.ByID), chromedp.Click("#transcribe", chromedp.ByID))
	s.waitEditor(tok, 2*time.Minute)
	var fill struct {
		Hidden  bool
		Items   []string
		Regions int
	}
	s.eval(`({hidden: document.getElementById("fillers").hidden, items: [...document.querySelectorAll("#filler-list li")].map(li => li.firstChild.textContent),
		regions: state.regions.filter(r => r.reason === "filler").length})`, &fill)
	t.Logf("fillers listed: %q; filler cuts drawn: %d", fill.Items, fill.Regions)
	if fill.Hidden || len(fill.Items) == 0 || !strings.Contains(fill.Items[0], " at 0:0") || fill.Regions != 0 {
		t.Errorf("fillers: %+v", fill)
	}
	var fstart, head float64
	s.eval(`state.job.transcript.fillers[0].start`, &fstart)
	s.run(chromedp.Click(`#filler-list li button[aria-label^="Listen"]`, chromedp.ByQuery))
	s.eval(`Number(document.getElementById("wave").dataset.playhead)`, &head)
	if math.Abs(head-math.Max(0, fstart-1)) > 0.3 {
		t.Errorf("Listen to the filler at %.2f s: playhead at %.2f s", fstart, head)
	}
	s.run(chromedp.Click("#play", chromedp.ByID)) // pause again if it plays
	// A seek made while the player's source loads (a Listen clicked as the
	// job opens) is kept when the source is ready, not undone by the time
	// asked for before the load.
	s.eval(`(() => { window.listened = false; state.srcKind = "";
		setListen("before", 0).then(() => { window.listened = true; }); seek(1.5, false); return true; })()`, nil)
	s.wait("the source loaded again", `window.listened === true`, 10*time.Second)
	var after struct{ Head, Time float64 }
	s.eval(`({head: Number(document.getElementById("wave").dataset.playhead), time: state.media.currentTime})`, &after)
	if math.Abs(after.Head-1.5) > 0.05 || math.Abs(after.Time-1.5) > 0.05 {
		t.Errorf("a seek to 1.50 s while the source loaded: playhead %.2f s, player at %.2f s", after.Head, after.Time)
	}
	s.shot("fillers.png")
	s.run(chromedp.Click("#transcribe", chromedp.ByID)) // untick for the next jobs

	// Steady noise, 15 dB softer for 2 s: the analysis finds no pause and
	// the page says so; a threshold that cuts the softer part previews a
	// plan the warning no longer holds for, and the list follows it, back
	// again on undo; a threshold that would cut everything (refused) finds
	// pauses enough.
	steps := s.gen("steps.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=5:amplitude=0.3:d=10", "-af", "volume='if(between(t,4,6),0.1,1)':eval=frame")
	tok = s.token()
	s.startJob(steps, chromedp.SetValue("#format", "wav", chromedp.ByID))
	s.waitEditor(tok, 2*time.Minute)
	warned := func() string {
		var w string
		s.eval(`document.getElementById("warnings").textContent`, &w)
		return w
	}
	if w := warned(); !strings.HasPrefix(w, "no pauses found") {
		t.Errorf("steady noise: warnings shown %q, want no pauses found", w)
	}
	setThreshold("-40")
	s.wait("the preview with a cut", `!state.previewPending && !state.previewBad && state.regions.length === 1`, 10*time.Second)
	if w := warned(); w != "" {
		t.Errorf("a preview cutting the softer part still shows %q", w)
	}
	// Undo goes back to the job's plan, and to its warning.
	s.run(chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	if w := warned(); !strings.HasPrefix(w, "no pauses found") {
		t.Errorf("after undoing the preview: warnings shown %q, want no pauses found", w)
	}
	setThreshold("-10") // over the noise: everything would be cut, refused
	s.wait("the refused preview", `!state.previewPending && state.previewBad`, 10*time.Second)
	if w := warned(); w != "" {
		t.Errorf("a preview that would cut everything still shows %q", w)
	}

	// Delete asks first; Cancel keeps the job.
	var n int
	sel := fmt.Sprintf(`[...document.querySelectorAll("#jobs li")].find(li => li.querySelector("button.secondary").textContent.startsWith("clip.mp4"))`)
	s.eval(sel+`.querySelector("button.danger").click()`, nil)
	s.eval(`document.querySelectorAll(".confirm-row").length`, &n)
	if n != 1 {
		t.Fatalf("no confirmation after Delete…")
	}
	s.apiGet("/api/v1/jobs/"+doneID, nil) // still there
	s.eval(`[...document.querySelectorAll(".confirm-row button")].find(b => b.textContent === "Cancel").click()`, nil)
	s.eval(`document.querySelectorAll(".confirm-row").length`, &n)
	if n != 0 {
		t.Errorf("Cancel left the confirmation")
	}
	s.eval(sel+`.querySelector("button.danger").click()`, nil)
	s.eval(`[...document.querySelectorAll(".confirm-row button")].find(b => b.textContent === "Delete").click()`, nil)
	s.wait("the job gone from the list", `![...document.querySelectorAll("#jobs li")].some(li => li.textContent.startsWith("clip.mp4"))`, 10*time.Second)
	req, _ := http.NewRequest("GET", s.url+"/api/v1/jobs/"+doneID, nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 404 {
		t.Errorf("deleted job: %v %v", resp.StatusCode, err)
	}
	s.noErrors()
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

// waitFile waits until Chromium has saved name in its download directory.
func (s *site) waitFile(name string, limit time.Duration) {
	s.t.Helper()
	p := filepath.Join(s.download, name)
	for deadline := time.Now().Add(limit); ; time.Sleep(100 * time.Millisecond) {
		if st, err := os.Stat(p); err == nil && st.Size() > 0 {
			if _, err := os.Stat(p + ".crdownload"); err != nil {
				return
			}
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(s.download)
			s.t.Fatalf("%s not downloaded by the page (download dir: %v)", name, entries)
		}
	}
}

// TestBrowserErrorsAndDownloads: a file name with quotes, HTML and
// non-ASCII letters is sent as it is (the server takes out what it does
// not keep) and shown as text; every timeline downloads under its name
// through the service worker; without the worker, a name holding % and ;
// is saved as the server names it and the player's whole-file copies are
// freed when replaced; a refused download says why in words; the server's
// own limit and its hint for a plan that keeps nothing are shown; a
// server that cannot be reached while a job runs is said, and no longer
// once it answers; a failing job list is said next to the list (not an
// unhandled rejection); after Delete the focus stays in the list.
func TestBrowserErrorsAndDownloads(t *testing.T) {
	const limit = 1 << 20
	s := newSite(t, func(c *httpapi.Config) { c.MaxUploadBytes = limit })
	odd := s.gen(`a"b<b>&é.wav`, "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=2:amplitude=0.4:d=8", "-af", talkFilter)
	pct := s.gen("50% off; final.wav", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=4:amplitude=0.4:d=8", "-af", talkFilter)
	big := s.gen("big.wav", "-f", "lavfi", "-i", "sine=f=440:d=12") // 48 kHz mono: over 1 MiB
	silent := s.gen("silent.wav", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=mono", "-t", "4")
	text := func(id string) string {
		var m string
		s.eval(fmt.Sprintf(`document.getElementById(%q).textContent`, id), &m)
		return m
	}
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))

	// Over the server's limit: its limit, not a fixed one.
	s.startJob(big)
	s.wait("the upload refused", `document.getElementById("new-msg").textContent !== ""`, 10*time.Second)
	if m := text("new-msg"); !strings.Contains(m, "too large") || !strings.Contains(m, strconv.Itoa(limit)) || strings.Contains(m, "4 GB") {
		t.Errorf("too large for a %d-byte limit: %q", limit, m)
	}

	// A plan that keeps nothing: the failed job shows the server's hint.
	tok := s.token()
	s.startJob(silent)
	s.wait("the job failed", fmt.Sprintf(`state.token > %d && document.getElementById("job-status").dataset.status === "failed"`, tok), time.Minute)
	if m := text("job-status"); !strings.HasPrefix(m, "Failed") || !strings.Contains(m, "dBFS") {
		t.Errorf("nothing to keep: %q, want the server's hint (dBFS)", m)
	}

	// The server cannot be reached while the job runs (and the job list
	// cannot be read): both said; the job's message goes once it answers.
	s.eval(`(() => { const f = window.fetch; window.offline = false;
		window.fetch = (u, o) => window.offline && (!o || !o.method || o.method === "GET") && String(u).startsWith("/api/v1/jobs") ?
			Promise.reject(new TypeError("Failed to fetch")) : f(u, o);
		return true; })()`, nil)
	s.eval(`window.offline = true`, nil)
	tok = s.token()
	s.startJob(odd)
	s.wait("the server said unreachable", `document.getElementById("job-msg").textContent.includes("could not be reached")`, 20*time.Second)
	s.wait("the list said unreachable", `document.getElementById("list-msg").textContent.includes("could not be reached")`, 10*time.Second)
	s.eval(`window.offline = false`, nil)
	s.waitEditor(tok, time.Minute)
	if m := text("job-msg"); m != "" {
		t.Errorf("the server answers again, the page still says %q", m)
	}

	// The name as the server keeps it, as text.
	var shown struct {
		Name, Items string
		Tags        int
	}
	s.eval(`({name: document.getElementById("job-name").textContent, items: document.getElementById("jobs").textContent,
		tags: document.querySelectorAll("main b").length})`, &shown)
	if shown.Name != "abb&é.wav" || !strings.Contains(shown.Items, "abb&é.wav") || shown.Tags != 0 {
		t.Errorf("job name %q (want abb&é.wav), list %q, <b> elements %d", shown.Name, shown.Items, shown.Tags)
	}

	// Every timeline through the worker, under the server's name.
	var streamed bool
	s.eval(`worker`, &streamed)
	if !streamed {
		t.Fatalf("the service worker does not control the page")
	}
	s.eval(`[...document.querySelectorAll("#downloads button")].filter(b => b.textContent.startsWith("Timeline")).forEach(b => b.click()), true`, nil)
	for _, ext := range []string{"fcpxml", "xml", "edl", "otio", "csv"} {
		s.waitFile("abb&é-autocut."+ext, 20*time.Second)
	}

	// Space on a focused button is the button's (it played instead).
	s.run(chromedp.Focus("#listen-after", chromedp.ByID), chromedp.KeyEvent(" "))
	s.wait("After chosen with Space", `document.getElementById("listen-after").getAttribute("aria-checked") === "true"`, 5*time.Second)
	var paused bool
	s.eval(`state.media.paused`, &paused)
	if !paused {
		t.Errorf("Space on the After button played")
	}

	// The arrows on Before/After move the group's choice (a radio group),
	// not the waveform's selection or the playhead.
	var before struct {
		Sel  int
		Time float64
	}
	s.eval(`({sel: state.sel, time: now()})`, &before)
	s.run(chromedp.KeyEvent(kb.ArrowLeft))
	s.wait("Before chosen with the left arrow", `document.getElementById("listen-before").getAttribute("aria-checked") === "true" &&
		document.activeElement.id === "listen-before"`, 5*time.Second)
	s.run(chromedp.KeyEvent(kb.ArrowLeft)) // wraps to After
	s.wait("After chosen again", `document.getElementById("listen-after").getAttribute("aria-checked") === "true" &&
		document.activeElement.id === "listen-after"`, 5*time.Second)
	var after struct {
		Sel           int
		Time          float64
		Before, After int
	}
	s.eval(`({sel: state.sel, time: now(),
		before: document.getElementById("listen-before").tabIndex, after: document.getElementById("listen-after").tabIndex})`, &after)
	if after.Sel != before.Sel || math.Abs(after.Time-before.Time) > 0.05 {
		t.Errorf("the arrows on Before/After moved the selection %d to %d, the playhead %.2f to %.2f s", before.Sel, after.Sel, before.Time, after.Time)
	}
	if after.Before != -1 || after.After != 0 {
		t.Errorf("tab stops Before %d, After %d (want -1, 0: one stop, the chosen one)", after.Before, after.After)
	}

	// A key typed wrong while the job runs: said by the key; the job is
	// followed again once the key is right.
	tok = s.token()
	s.run(chromedp.SetUploadFiles("#file", []string{pct}, chromedp.ByID))
	s.wait("the Start button", `!document.getElementById("start").disabled`, 5*time.Second)
	s.eval(`(document.getElementById("start").click(), document.getElementById("key").value = "wrong-key",
		document.getElementById("key").dispatchEvent(new Event("input")), true)`, nil) // the upload has the right key
	s.wait("the key refused", `document.getElementById("key-msg").classList.contains("bad") && document.getElementById("job-msg").textContent !== ""`, 20*time.Second)
	s.eval(`document.getElementById("key").value = ""`, nil)
	s.run(chromedp.SendKeys("#key", testKey, chromedp.ByID))
	s.waitEditor(tok, 30*time.Second)
	if m := text("job-msg"); m != "" {
		t.Errorf("the key is right again, the page still says %q", m)
	}

	// Without the worker: whole-file copies for the player, freed when
	// replaced; a download named with % and ; saved under that name.
	s.eval(`worker = Promise.resolve(false), true`, nil)
	tok = s.token()
	s.startJob(pct)
	s.waitEditor(tok, time.Minute)
	s.wait("the original loaded", `state.srcKind === "original" && state.media.readyState >= 1 && state.media.src.startsWith("blob:")`, 20*time.Second)
	var first string
	s.eval(`state.media.src`, &first)
	s.run(chromedp.Click("#listen-after", chromedp.ByID))
	s.wait("the rendered file loaded", `state.srcKind === "output" && state.media.readyState >= 1`, 20*time.Second)
	var freed bool // a revoked object URL no longer loads (fetch cannot tell: the CSP refuses it blob: URLs)
	s.eval(fmt.Sprintf(`new Promise((done) => { const a = new Audio(); a.onloadedmetadata = () => done(false); a.onerror = () => done(true); a.src = %q; })`, first), &freed)
	if !freed {
		t.Errorf("the original's copy %s is still held after the player moved to the rendered file", first)
	}
	s.run(chromedp.Click("#downloads button", chromedp.ByQuery))
	s.waitFile("50% off; final-autocut.mp3", 20*time.Second)
	if m := text("job-msg"); m != "" {
		t.Errorf("download without the worker: %q", m)
	}

	// A refused download says why, in words, with the worker too.
	s.eval(`worker = Promise.resolve(true), true`, nil)
	var id string
	s.eval(`state.job.id`, &id)
	req, _ := http.NewRequest("DELETE", s.url+"/api/v1/jobs/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 204 {
		t.Fatalf("delete: %v %v", resp, err)
	}
	s.run(chromedp.Click("#downloads button", chromedp.ByQuery))
	s.wait("the download refused", `document.getElementById("job-msg").textContent !== ""`, 10*time.Second)
	if m := text("job-msg"); !strings.Contains(m, "no longer exists") {
		t.Errorf("download of a deleted job: %q", m)
	}

	// Delete from the list: the focus stays in the list.
	var n int
	s.eval(`refreshList().then(() => { document.querySelector("#jobs li button.danger").click();
		[...document.querySelectorAll(".confirm-row button")].find(b => b.textContent === "Delete").click();
		return document.querySelectorAll("#jobs li").length; })`, &n)
	s.wait("the job gone from the list", fmt.Sprintf(`document.querySelectorAll("#jobs li").length === %d`, n-1), 10*time.Second)
	var focus string
	s.eval(`document.activeElement.id || document.activeElement.tagName`, &focus)
	if focus != "refresh" {
		t.Errorf("after Delete the focus is on %s, want the list's Refresh", focus)
	}
	s.noErrors()
}

// contrast is the WCAG contrast ratio of two CSS rgb() colours.
func contrast(a, b string) float64 {
	lum := func(css string) float64 {
		r, g, b := rgb(strings.Replace(css, "rgba(", "rgb(", 1))
		var l float64
		for i, c := range []int{r, g, b} {
			x := float64(c) / 255
			if x <= 0.03928 {
				x /= 12.92
			} else {
				x = math.Pow((x+0.055)/1.055, 2.4)
			}
			l += []float64{0.2126, 0.7152, 0.0722}[i] * x
		}
		return l
	}
	x, y := lum(a)+0.05, lum(b)+0.05
	return max(x, y) / min(x, y)
}

// TestBrowserFocusAndFieldContrast: the keyboard focus ring and the edges
// of the text fields and menus stand out from the page at 3:1 at least
// (WCAG 1.4.11), in light and dark mode; the light ring was a yellow at
// 1.97:1 on white, the fields' edges 1.65:1.
func TestBrowserFocusAndFieldContrast(t *testing.T) {
	s := newSite(t)
	for _, scheme := range []string{"light", "dark"} {
		s.run(emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}))
		s.run(chromedp.Focus("#key", chromedp.ByID), chromedp.KeyEvent(kb.Tab)) // to Check key, by the keyboard
		var got struct {
			Focused, Ring, Bg string
			Edges             []string
		}
		s.eval(`({focused: document.activeElement.textContent, ring: getComputedStyle(document.activeElement).outlineColor,
			bg: getComputedStyle(document.body).backgroundColor,
			edges: ["key", "url", "preset", "format", "normalize"].map(id => getComputedStyle(document.getElementById(id)).borderTopColor)})`, &got)
		if got.Focused != "Check key" {
			t.Fatalf("%s: Tab from the key focused %q", scheme, got.Focused)
		}
		if c := contrast(got.Ring, got.Bg); c < 3 {
			t.Errorf("%s: focus ring %s on %s: %.2f:1", scheme, got.Ring, got.Bg, c)
		}
		for i, e := range got.Edges {
			if c := contrast(e, got.Bg); c < 3 {
				t.Errorf("%s: field %d edge %s on %s: %.2f:1", scheme, i, e, got.Bg, c)
			}
		}
	}
	s.noErrors()
}
