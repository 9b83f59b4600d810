package httpapi

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/jobs/store/pgstore"
)

var (
	loadDuration = flag.Duration("load.duration", 10*time.Second, "BenchmarkPollLoad: how long the clients poll")
	loadClients  = flag.Int("load.clients", 200, "BenchmarkPollLoad: concurrent clients")
	loadInterval = flag.Duration("load.interval", 0, "BenchmarkPollLoad: pause between a client's polls (0: closed loop, as fast as possible)")
	uploadCount  = flag.Int("load.uploads", 20, "BenchmarkUploadMemory: concurrent uploads")
	uploadMB     = flag.Int("load.uploadmb", 200, "BenchmarkUploadMemory: MiB per upload")
	loadDatabase = flag.String("load.database", "", "BenchmarkPollLoad: a postgres:// URL of an empty database to use instead of SQLite")
)

// BenchmarkPollLoad: 200 concurrent clients poll GET /api/v1/jobs/{id}
// over loopback against the real Manager (SQLite, or PostgreSQL with
// -load.database) for 10 s; reports
// requests/s and latency percentiles. Run with -bench PollLoad -benchtime 1x.
func BenchmarkPollLoad(b *testing.B) {
	// Request logs go to /dev/null through a real file, as they would to
	// stderr in production (one write per request).
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devnull.Close()
	e := managerEnvLog(b, func(c *jobs.Config) {
		if *loadDatabase != "" {
			st, err := pgstore.Open(context.Background(), *loadDatabase, pgstore.Options{Workers: c.Workers})
			if err != nil {
				b.Fatal(err)
			}
			c.Store = st
		}
	}, devnull)
	var ids []string
	for i := range 20 {
		ids = append(ids, e.upload(b, proKey, fmt.Sprintf("p%d.wav", i), "RIFF 6").ID)
	}
	for _, id := range ids {
		e.poll(b, proKey, id, isDone)
	}
	tr := &http.Transport{MaxIdleConns: *loadClients, MaxIdleConnsPerHost: *loadClients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	b.ResetTimer()
	for range b.N {
		var (
			wg       sync.WaitGroup
			mu       sync.Mutex
			lat      []time.Duration
			failures atomic.Int64
		)
		stop := time.Now().Add(*loadDuration)
		start := time.Now()
		for c := range *loadClients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var mine []time.Duration
				if *loadInterval > 0 {
					// Real pollers are not phase-locked: each starts at its own
					// moment within one interval.
					time.Sleep(time.Duration(c) * *loadInterval / time.Duration(*loadClients))
				}
				for i := 0; time.Now().Before(stop); i++ {
					req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/jobs/"+ids[(c+i)%len(ids)], nil)
					req.Header.Set("Authorization", "Bearer "+proKey)
					t0 := time.Now()
					resp, err := client.Do(req)
					if err != nil {
						failures.Add(1)
						continue
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					mine = append(mine, time.Since(t0))
					if resp.StatusCode != 200 {
						failures.Add(1)
					}
					if *loadInterval > 0 {
						time.Sleep(*loadInterval)
					}
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		slices.Sort(lat)
		pct := func(p float64) float64 {
			return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
		}
		b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
		b.ReportMetric(pct(0.50), "p50-ms")
		b.ReportMetric(pct(0.99), "p99-ms")
		b.ReportMetric(pct(0.999), "p99.9-ms")
		b.ReportMetric(float64(failures.Load()), "failures")
		b.Logf("%d clients (pause %v), %v: %d requests, %.0f req/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d failures, GOMAXPROCS %d",
			*loadClients, *loadInterval, elapsed.Round(time.Millisecond), len(lat), float64(len(lat))/elapsed.Seconds(), pct(0.5), pct(0.99),
			float64(lat[len(lat)-1].Microseconds())/1000, failures.Load(), runtime.GOMAXPROCS(0))
	}
}

// BenchmarkUploadMemory: 20 concurrent 200 MiB Form B uploads into the real
// Manager; reports the process's peak RSS growth (VmHWM after resetting it
// through /proc/self/clear_refs), which must stay flat (not scale with the
// bytes uploaded).
func BenchmarkUploadMemory(b *testing.B) {
	e := managerEnv(b, func(c *jobs.Config) { c.MaxInputBytes = jobs.DefaultMaxInputBytes })
	size := int64(*uploadMB) << 20
	tr := &http.Transport{MaxIdleConnsPerHost: *uploadCount}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	b.ResetTimer()
	for range b.N {
		runtime.GC()
		base := procStatusKB(b, "VmRSS")
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			b.Fatalf("reset peak RSS: %v", err)
		}
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, *uploadCount)
		for i := range *uploadCount {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := io.MultiReader(strings.NewReader("RIFF 6 "), io.LimitReader(zeroReader{}, size-7))
				req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/jobs", body)
				req.ContentLength = size
				req.Header.Set("Authorization", "Bearer "+proKey)
				req.Header.Set("X-Filename", fmt.Sprintf("big%d.wav", i))
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				msg, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 202 {
					errs <- fmt.Errorf("upload %d: %d %s", i, resp.StatusCode, msg)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		peak := procStatusKB(b, "VmHWM")
		total := float64(size) * float64(*uploadCount)
		b.ReportMetric(float64(peak)/1024, "peakRSS-MiB")
		b.ReportMetric(float64(peak-base)/1024, "peakRSSgrowth-MiB")
		b.ReportMetric(total/elapsed.Seconds()/(1<<20), "MiB/s")
		b.Logf("%d x %d MiB uploads in %v (%.0f MiB/s): RSS before %d MiB, peak during %d MiB (growth %d MiB for %.1f GiB uploaded)",
			*uploadCount, *uploadMB, elapsed.Round(time.Millisecond), total/elapsed.Seconds()/(1<<20), base/1024, peak/1024, (peak-base)/1024, total/(1<<30))
	}
}

// procStatusKB reads a kB field of /proc/self/status.
func procStatusKB(tb testing.TB, field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return n
		}
	}
	tb.Fatalf("%s not in /proc/self/status", field)
	return 0
}

// BenchmarkHandlerGet measures the adapter's own cost of GET job (routing,
// auth hash, JSON, request log, metrics) over the in-memory fake service,
// without network.
func BenchmarkHandlerGet(b *testing.B) {
	keys := NewKeyStore()
	_ = keys.ParseKeys(proKey + ":pro")
	fake := newFake()
	h := New(Config{Service: fake, Keys: keys, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	owner, _ := keys.Lookup(proKey)
	j, err := fake.Create(context.Background(), jobs.CreateRequest{Owner: owner.Owner, Name: "a.wav"}, strings.NewReader("RIFF"))
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/api/v1/jobs/"+j.ID, nil)
	req.Header.Set("Authorization", "Bearer "+proKey)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatal(w.Code)
			}
		}
	})
}

// BenchmarkHandlerGetManager is BenchmarkHandlerGet over the real Manager
// (one SQLite read per request), still without network.
func BenchmarkHandlerGetManager(b *testing.B) {
	e := managerEnvLog(b, nil, io.Discard)
	id := e.upload(b, proKey, "a.wav", "RIFF 6").ID
	e.poll(b, proKey, id, isDone)
	h := e.srv.Config.Handler
	req := httptest.NewRequest("GET", "/api/v1/jobs/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+proKey)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatal(w.Code)
			}
		}
	})
}
