//go:build linux

package web_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/autocut-dev/autocut/httpapi"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/web"
)

// TestBrowserFlow drives the page in headless Chromium (Debian's chromium):
// enter the key, pick a file, wait for done, check the waveform shows cut
// regions, move a slider and see the cut count change, download the result.
func TestBrowserFlow(t *testing.T) {
	ctx := context.Background()
	m, err := jobs.Open(ctx, jobs.Config{DataDir: t.TempDir(), Workers: 2, PollInterval: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	keys := httpapi.NewKeyStore()
	keys.ParseKeys("browserkey:pro")
	srv := httptest.NewServer(httpapi.New(httpapi.Config{Service: m, Keys: keys, Web: web.Handler(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer srv.Close()

	// Speech-like media: noise bursts with pauses of several lengths.
	media := filepath.Join(t.TempDir(), "talk.wav")
	if b, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "anoisesrc=color=pink:seed=2:amplitude=0.4:d=30",
		"-af", "volume='if(lt(mod(t,5),2+mod(t,3)),1,0.001)':eval=frame", media).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, b)
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
		chromedp.UserDataDir(profile), chromedp.WindowSize(1000, 1400),
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
	rctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()

	var cutsBefore, cutsAfter, status, downloaded string
	var shot []byte
	err = chromedp.Run(rctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.SendKeys("#key", "browserkey", chromedp.ByID),
		chromedp.Click("#key-form button", chromedp.ByQuery),
		chromedp.WaitVisible("#key-status", chromedp.ByID),
		chromedp.SetValue("#format", "wav", chromedp.ByID),
		chromedp.SetUploadFiles("#file", []string{media}, chromedp.ByID),
		chromedp.WaitVisible("#job", chromedp.ByID),
		chromedp.Poll(`document.getElementById("wave").dataset.cuts || ""`, &cutsBefore, chromedp.WithPollingTimeout(90*time.Second)),
		chromedp.Text("#job-status", &status, chromedp.ByID),
		chromedp.Poll(`!document.getElementById("player").hidden`, nil, chromedp.WithPollingTimeout(30*time.Second)),
		chromedp.FullScreenshot(&shot, 100),
		// a longer minimum silence: fewer cuts
		chromedp.SetValue("#minSilenceSec", "3", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("minSilenceSec").dispatchEvent(new Event("input"))`, nil),
	)
	if err != nil || cutsBefore == "" {
		t.Fatalf("no cut regions drawn (status %q): %v", status, err)
	}
	err = chromedp.Run(rctx,
		chromedp.Poll(`document.getElementById("wave").dataset.cuts !== "`+cutsBefore+`" && document.getElementById("wave").dataset.cuts`, &cutsAfter, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate(`fetchBlob(state.job.output.url).then(f => f.name + ":" + f.blob.size)`, &downloaded, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	)
	if err != nil {
		t.Fatalf("slider/download: %v (cuts before %s)", err, cutsBefore)
	}
	dir := t.TempDir()
	if d := os.Getenv("AUTOCUT_SCREENSHOT_DIR"); d != "" { // keep it to look at
		dir = d
	}
	path := filepath.Join(dir, "autocut-page.png")
	os.WriteFile(path, shot, 0o644)
	t.Logf("status %q, cuts %s -> %s after the slider, download %s, screenshot %s", status, cutsBefore, cutsAfter, downloaded, path)
	if status != "done" {
		t.Errorf("status %q", status)
	}
	if n, _ := strconv.Atoi(cutsBefore); n == 0 {
		t.Errorf("no cuts drawn")
	}
	if downloaded == "" || downloaded[:len("talk-autocut.wav:")] != "talk-autocut.wav:" {
		t.Errorf("download %q", downloaded)
	}
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
