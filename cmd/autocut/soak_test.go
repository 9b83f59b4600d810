package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/internal/testtier"
)

// TestSoakHeavyKey (slow tier): the real server under 200 pollers of one
// key (once a second each, the documented rate) and 16 concurrent 60 MB
// uploads of another for 60 s, run twice: alone, then with a third key
// PATCHing the largest allowed cut list (20,000 cuts) and GETting that job
// from 50 connections at once. The pollers' p99 with the heavy key stays
// within 3x of theirs without it, and the server's RSS under 400 MB.
func TestSoakHeavyKey(t *testing.T) {
	testtier.Slow(t, "two 60 s phases of load on the real server")
	const (
		pollers   = 200
		uploaders = 16
		phase     = 60 * time.Second
		uploadMB  = 60
		// The heavy key's connections GETting its job at once (50 took the
		// server from 150 MB to 3.4 GB with 100,000 cuts).
		heavyViews = 50
	)
	tmp := t.TempDir()
	// 60 MB of 8 kHz 8-bit mono (2 h 11 min) and a 4,000 s input
	// that takes 20,000 cuts (one per 0.2 s).
	big := filepath.Join(tmp, "big.wav")
	writeWAV8k(t, big, uploadMB<<20)
	long := filepath.Join(tmp, "long.wav")
	writeWAV8k(t, long, 4000*8000)
	s := startServer(t, buildBinary(t), filepath.Join(tmp, "data"),
		[]string{"AUTOCUT_API_KEYS=light:pro,up:pro,heavy:pro"}, "--max-uploads-per-key", "16")
	pid := s.cmd.Process.Pid

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}}
	do := func(method, path, key string, body io.Reader, hdr map[string]string) (int, []byte, error) {
		req, _ := http.NewRequest(method, s.url+path, body)
		req.Header.Set("Authorization", "Bearer "+key)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	create := func(key, path, options string) string {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		code, b, err := do("POST", "/api/v1/jobs", key, f, map[string]string{"X-Filename": filepath.Base(path), "X-Options": options})
		var j struct{ ID string }
		if err != nil || code != 202 || json.Unmarshal(b, &j) != nil {
			t.Fatalf("create: %d %v %.200s", code, err, b)
		}
		return j.ID
	}
	waitDone := func(key, id string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Minute)
		for {
			_, b, _ := do("GET", "/api/v1/jobs/"+id, key, nil, nil)
			var j struct{ Status string }
			_ = json.Unmarshal(b, &j)
			if j.Status == "done" {
				return
			}
			if j.Status == "failed" || time.Now().After(deadline) {
				t.Fatalf("job %s: %.300s", id, b)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// The light key's jobs, which its pollers follow.
	small := filepath.Join(tmp, "small.wav")
	speechLike(t, small, 6)
	var lightJobs []string
	for range 10 {
		lightJobs = append(lightJobs, create("light", small, `{"autoExport":false}`))
	}
	heavyJob := create("heavy", long, `{"autoExport":false}`)
	for _, id := range lightJobs {
		waitDone("light", id)
	}
	waitDone("heavy", heavyJob)
	var cuts bytes.Buffer
	cuts.WriteString(`{"cuts":[`)
	for i := range 20_000 {
		if i > 0 {
			cuts.WriteByte(',')
		}
		fmt.Fprintf(&cuts, `{"start":%.1f,"end":%.1f}`, float64(i)*0.2, float64(i)*0.2+0.1)
	}
	cuts.WriteString(`]}`)
	if code, b, err := do("PATCH", "/api/v1/jobs/"+heavyJob, "heavy", bytes.NewReader(cuts.Bytes()), nil); code != 202 {
		t.Fatalf("PATCH the largest cut list: %d %v %.200s", code, err, b)
	}

	rssMB := func() int64 {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb >> 10
			}
		}
		return -1
	}

	// run is one phase: it returns the pollers' latencies, the peak RSS
	// (MB) and counts of what the other loads did.
	run := func(heavy bool) (lat []time.Duration, peakRSS int64, uploads, patches, views int64, errs int64) {
		stop := make(chan struct{})
		var (
			mu       sync.Mutex
			wg       sync.WaitGroup
			nUp, nP  atomic.Int64
			nV, nErr atomic.Int64
			peak     atomic.Int64
			stopped  = func() bool {
				select {
				case <-stop:
					return true
				default:
					return false
				}
			}
		)
		wg.Go(func() {
			for !stopped() {
				if r := rssMB(); r > peak.Load() {
					peak.Store(r)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
		for i := range pollers {
			wg.Go(func() {
				id := lightJobs[i%len(lightJobs)]
				time.Sleep(time.Duration(i) * phase / 60 / pollers) // spread over the first second
				for !stopped() {
					start := time.Now()
					code, _, err := do("GET", "/api/v1/jobs/"+id, "light", nil, nil)
					d := time.Since(start)
					if err != nil || code != 200 {
						nErr.Add(1)
					} else {
						mu.Lock()
						lat = append(lat, d)
						mu.Unlock()
					}
					time.Sleep(time.Second - d%time.Second)
				}
			})
		}
		for range uploaders {
			wg.Go(func() {
				for !stopped() {
					f, err := os.Open(big)
					if err != nil {
						nErr.Add(1)
						return
					}
					code, b, err := do("POST", "/api/v1/jobs", "up", f, map[string]string{"X-Filename": "big.wav", "X-Options": `{"autoExport":false}`})
					f.Close()
					var j struct{ ID string }
					if err != nil || code != 202 || json.Unmarshal(b, &j) != nil {
						nErr.Add(1)
						continue
					}
					nUp.Add(1)
					_, _, _ = do("DELETE", "/api/v1/jobs/"+j.ID, "up", nil, nil)
				}
			})
		}
		if heavy {
			wg.Go(func() {
				for !stopped() {
					code, _, err := do("PATCH", "/api/v1/jobs/"+heavyJob, "heavy", bytes.NewReader(cuts.Bytes()), nil)
					if err == nil && (code == 202 || code == 409) {
						nP.Add(1)
					} else {
						nErr.Add(1)
					}
				}
			})
			for range heavyViews {
				wg.Go(func() {
					for !stopped() {
						if code, _, err := do("GET", "/api/v1/jobs/"+heavyJob, "heavy", nil, nil); err == nil && code == 200 {
							nV.Add(1)
						} else {
							nErr.Add(1)
						}
					}
				})
			}
		}
		time.Sleep(phase)
		close(stop)
		wg.Wait()
		return lat, peak.Load(), nUp.Load(), nP.Load(), nV.Load(), nErr.Load()
	}
	p99 := func(d []time.Duration) time.Duration {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		return d[len(d)*99/100]
	}
	baseLat, baseRSS, baseUp, _, _, baseErr := run(false)
	heavyLat, heavyRSS, heavyUp, patches, views, heavyErr := run(true)
	base, withHeavy := p99(baseLat), p99(heavyLat)
	t.Logf("without the heavy key: %d polls, p99 %v, %d uploads of %d MB, peak RSS %d MB, %d errors", len(baseLat), base, baseUp, uploadMB, baseRSS, baseErr)
	t.Logf("with the heavy key:    %d polls, p99 %v, %d uploads, %d PATCHes of 20,000 cuts, %d GETs of that job, peak RSS %d MB, %d errors",
		len(heavyLat), withHeavy, heavyUp, patches, views, heavyRSS, heavyErr)
	if baseErr+heavyErr > 0 {
		t.Errorf("%d requests failed", baseErr+heavyErr)
	}
	if len(baseLat) < pollers*int(phase/time.Second)/2 || len(heavyLat) < pollers*int(phase/time.Second)/2 {
		t.Errorf("too few polls answered: %d and %d", len(baseLat), len(heavyLat))
	}
	if withHeavy > 3*base {
		t.Errorf("the light key's poll p99 with the heavy key is %v, over 3x its %v without", withHeavy, base)
	}
	if heavyRSS >= 400 || baseRSS >= 400 {
		t.Errorf("server RSS peaked at %d MB (%d MB without the heavy key), want under 400", heavyRSS, baseRSS)
	}
}

// writeWAV8k writes an 8 kHz 8-bit mono WAV of n bytes of a tone.
func writeWAV8k(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(wav8kHeader(uint32(n))); err != nil {
		t.Fatal(err)
	}
	// A 250 Hz triangle, without a pause (a plan of silence alone would
	// keep nothing).
	tone := make([]byte, 1<<20)
	for i := range tone {
		v := i % 32
		if v >= 16 {
			v = 32 - v
		}
		tone[i] = byte(0x80 - 60 + v*120/16)
	}
	for left := n; left > 0; left -= len(tone) {
		if _, err := f.Write(tone[:min(left, len(tone))]); err != nil {
			t.Fatal(err)
		}
	}
}
