package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/autocut-dev/autocut/internal/testservers"
	"github.com/autocut-dev/autocut/internal/testtier"
)

// clusterJob is the part of a job the cluster test reads.
type clusterJob struct {
	ID, Status string
	Output     *struct {
		URL, Format string
		Size        int64
	}
	Error *struct{ Code, Message string }
}

// TestCluster runs the real binary as two API nodes and two worker nodes on
// one PostgreSQL database and one S3 bucket (versitygw), all on loopback:
// jobs created through node A are worked, fetched and downloaded through node
// B; the worker holding a running render is killed with SIGKILL and the job
// still finishes on the other worker; 20 jobs submitted at once all finish
// exactly once; DELETE through an API node stops a render on a worker; the
// retention sweep runs once per cluster, not per node.
func TestCluster(t *testing.T) {
	testtier.Slow(t, "cluster test in -short mode")
	pg := testservers.Postgres(t)
	s3 := testservers.VersityGW(t)
	bin := buildBinary(t)
	env := append([]string{"AUTOCUT_API_KEYS=k1:pro", "AUTOCUT_DATABASE=" + pg, "AUTOCUT_STORAGE=" + s3.URL()}, s3.Env()...)
	const lease = 3 * time.Second
	launch := func(role string) *server {
		// (20 uploads of one key at once below: over the default cap of 4 per node)
		return launchServer(t, bin, t.TempDir(), env, "--role", role, "--workers", "1",
			"--lease-ttl", lease.String(), "--retention-interval", "1s", "--max-uploads-per-key", "20")
	}
	// Four nodes start at once: their migrations must not collide.
	var nodes []*server
	for _, role := range []string{"api", "api", "worker", "worker"} {
		nodes = append(nodes, launch(role))
	}
	for _, s := range nodes {
		s.waitListening(t)
	}
	a, b, w1, w2 := nodes[0], nodes[1], nodes[2], nodes[3]
	for _, w := range []*server{w1, w2} {
		if code, body := w.do(t, "GET", "/api/v1/jobs", "k1", nil, nil); code != 404 {
			t.Fatalf("a worker node answered the API: %d %s", code, body)
		}
	}

	media := filepath.Join(t.TempDir(), "talk.wav")
	speechLike(t, media, 20)
	long := filepath.Join(t.TempDir(), "long.wav")
	speechLike(t, long, 1200) // 20 minutes: its normalized mp3 render takes seconds

	create := func(s *server, path, opts string) string {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		code, body := s.do(t, "POST", "/api/v1/jobs", "k1", f, map[string]string{"X-Filename": filepath.Base(path), "X-Options": opts})
		var j clusterJob
		if code != 202 || json.Unmarshal(body, &j) != nil {
			t.Fatalf("create through %s: %d %s", s.url, code, body)
		}
		return j.ID
	}
	get := func(s *server, id string) clusterJob {
		t.Helper()
		code, body := s.do(t, "GET", "/api/v1/jobs/"+id, "k1", nil, nil)
		var j clusterJob
		if code != 200 || json.Unmarshal(body, &j) != nil {
			t.Fatalf("get %s through %s: %d %s", id, s.url, code, body)
		}
		return j
	}
	waitFor := func(s *server, id string, d time.Duration, cond func(clusterJob) bool) clusterJob {
		t.Helper()
		deadline := time.Now().Add(d)
		for {
			j := get(s, id)
			if j.Status == "failed" {
				t.Fatalf("job %s failed: %+v", id, j.Error)
			}
			if cond(j) {
				return j
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s: condition not met after %v; status %s\nworker 1:\n%s\nworker 2:\n%s", id, d, j.Status,
					lastLines(w1.stderr.String(), 15), lastLines(w2.stderr.String(), 15))
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	done := func(j clusterJob) bool { return j.Status == "done" }

	db, err := pgx.Connect(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())

	// 1. Created through A, worked by a worker, fetched and downloaded through B.
	id := create(a, media, `{"export":{"format":"mp3"}}`)
	j := waitFor(b, id, 60*time.Second, done)
	if j.Output == nil {
		t.Fatalf("done without output: %+v", j)
	}
	dl := outputPath(t, j.Output.URL)
	code, body := b.do(t, "GET", dl, "k1", nil, nil)
	if code != 200 || int64(len(body)) != j.Output.Size || len(body) < 1000 || !isMP3(body) {
		t.Fatalf("download through B: %d, %d bytes (want %d, an MP3)", code, len(body), j.Output.Size)
	}
	code, part := b.do(t, "GET", dl, "k1", nil, map[string]string{"Range": "bytes=100-199"})
	if code != 206 || string(part) != string(body[100:200]) {
		t.Fatalf("ranged download through B: %d, %d bytes", code, len(part))
	}
	// A re-export asked through B is rendered by a worker and served by A,
	// and A writes its timelines from the analysis in the bucket.
	code, body = b.do(t, "PATCH", "/api/v1/jobs/"+id, "k1", strings.NewReader(`{"params":{"minSilenceSec":0.8},"export":{"format":"wav"},"action":"export"}`),
		map[string]string{"Content-Type": "application/json"})
	if code != 200 && code != 202 {
		t.Fatalf("PATCH re-export through B: %d %s", code, body)
	}
	j = waitFor(a, id, 60*time.Second, func(j clusterJob) bool { return j.Status == "done" && j.Output != nil && j.Output.Format == "wav" })
	code, body = a.do(t, "GET", outputPath(t, j.Output.URL), "k1", nil, nil)
	if code != 200 || int64(len(body)) != j.Output.Size || string(body[:4]) != "RIFF" {
		t.Fatalf("re-exported WAV through A: %d, %d bytes", code, len(body))
	}
	for _, kind := range []string{"fcpxml", "edl", "otio"} {
		if code, body := a.do(t, "GET", "/api/v1/jobs/"+id+"/timelines/"+kind, "k1", nil, nil); code != 200 || len(body) < 100 {
			t.Fatalf("timeline %s through A: %d %s", kind, code, body)
		}
	}
	for _, s := range []*server{a, b} {
		if n := dirBytes(t, s); n > 1<<20 {
			t.Errorf("API node %s keeps %d bytes on disk: uploads must stream to S3", s.url, n)
		}
	}

	// 2. kill -9 of the worker holding a running render.
	id = create(b, long, `{"preset":"podcast","export":{"format":"mp3_320","normalize":"podcast"}}`)
	waitFor(a, id, 90*time.Second, func(j clusterJob) bool { return j.Status == "rendering" })
	var owner string
	if err := db.QueryRow(context.Background(), `SELECT lease_owner FROM autocut_job WHERE id = $1`, id).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	holder, survivor := w1, w2
	if pidOf(owner) == w2.cmd.Process.Pid {
		holder, survivor = w2, w1
	} else if pidOf(owner) != w1.cmd.Process.Pid {
		t.Fatalf("lease owner %q is neither worker (pids %d, %d)", owner, w1.cmd.Process.Pid, w2.cmd.Process.Pid)
	}
	if err := holder.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-holder.done
	killed := time.Now()
	j = waitFor(b, id, 3*time.Minute, done)
	t.Logf("render taken over and finished %v after the kill (lease %v)", time.Since(killed).Round(100*time.Millisecond), lease)
	if !strings.Contains(survivor.stderr.String(), "re-enqueued a run no worker holds") {
		t.Errorf("the surviving worker did not log the takeover:\n%s", lastLines(survivor.stderr.String(), 20))
	}
	var gen int64
	if err := db.QueryRow(context.Background(), `SELECT gen FROM autocut_job WHERE id = $1`, id).Scan(&gen); err != nil || gen != 2 {
		t.Errorf("gen after one takeover = %d (%v), want 2", gen, err)
	}
	if code, body = a.do(t, "GET", outputPath(t, j.Output.URL), "k1", nil, nil); code != 200 || int64(len(body)) != j.Output.Size {
		t.Fatalf("download of the taken-over job: %d, %d bytes", code, len(body))
	}

	// A replacement worker joins; 20 jobs submitted at once through both API
	// nodes all finish, each run exactly once.
	w3 := launch("worker")
	w3.waitListening(t)
	workers := []*server{survivor, w3}
	before := metricSum(t, workers, "autocut_jobs_finished_total", `status="done"`)
	ids := make([]string, 20)
	var cw sync.WaitGroup
	for i := range ids {
		cw.Add(1)
		go func() {
			defer cw.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			ids[i] = create(s, media, `{"export":{"format":"wav"}}`)
		}()
	}
	cw.Wait()
	for i, id := range ids {
		s := b
		if i%2 == 1 {
			s = a
		}
		waitFor(s, id, 3*time.Minute, done)
	}
	if got := metricSum(t, workers, "autocut_jobs_finished_total", `status="done"`) - before; got != 20 {
		t.Errorf("runs finished for 20 jobs = %v, want 20", got)
	}
	for _, id := range ids {
		var runs int
		var gen int64
		err := db.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM river_job WHERE kind = 'autocut_process' AND args->>'job_id' = $1),
			(SELECT gen FROM autocut_job WHERE id = $1)`, id).Scan(&runs, &gen)
		if err != nil || runs != 1 || gen != 1 {
			t.Errorf("job %s: %d River runs, gen %d (%v); want 1 and 1", id, runs, gen, err)
		}
	}

	// DELETE through an API node stops the run on whichever worker holds it.
	id = create(a, long, `{"export":{"format":"mp3_320","normalize":"podcast"}}`)
	waitFor(b, id, 90*time.Second, func(j clusterJob) bool { return j.Status == "rendering" })
	stopped := func() int {
		n := 0
		for _, w := range workers {
			n += strings.Count(w.stderr.String(), "run stopped: job deleted or re-run")
		}
		return n
	}
	n0 := stopped()
	if code, body := b.do(t, "DELETE", "/api/v1/jobs/"+id, "k1", nil, nil); code != 204 {
		t.Fatalf("delete: %d %s", code, body)
	}
	for deadline := time.Now().Add(10 * time.Second); stopped() == n0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the running render was not stopped after DELETE through an API node\n%s\n%s", lastLines(workers[0].stderr.String(), 12), lastLines(workers[1].stderr.String(), 12))
		}
	}
	// Workers read originals through scratch copies and remove them.
	time.Sleep(500 * time.Millisecond)
	for _, w := range workers {
		if n := dirBytes(t, w); n > 1<<20 {
			t.Errorf("worker %s keeps %d bytes of scratch files", w.url, n)
		}
	}

	// The retention sweep runs once per cluster: with a 1 s interval, two
	// worker nodes together sweep about once a second, not twice.
	// Rescue passes likewise: one per LeaseTTL/2 (1.5 s) across the cluster.
	// If the killed worker was River's leader, a new one is elected only
	// after its leadership expires (up to about 20 s): wait for sweeps first.
	r0 := metricSum(t, workers, "autocut_maintenance_runs_total", `task="retention"`)
	for deadline := time.Now().Add(40 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if r := metricSum(t, workers, "autocut_maintenance_runs_total", `task="retention"`); r > r0 {
			r0 = r
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no retention sweep for 40 s after the kill")
		}
	}
	p0 := metricSum(t, workers, "autocut_maintenance_runs_total", `task="rescue"`)
	time.Sleep(6 * time.Second)
	sweeps := metricSum(t, workers, "autocut_maintenance_runs_total", `task="retention"`) - r0
	passes := metricSum(t, workers, "autocut_maintenance_runs_total", `task="rescue"`) - p0
	t.Logf("in 6 s, 2 worker nodes: %v retention sweeps (1 s interval), %v rescue passes (1.5 s interval)", sweeps, passes)
	if sweeps < 3 || sweeps > 8 {
		t.Errorf("retention sweeps in 6 s = %v; want about 6 (once per interval per cluster)", sweeps)
	}
	if passes < 2 || passes > 6 {
		t.Errorf("rescue passes in 6 s = %v; want about 4 (once per interval per cluster)", passes)
	}
}

// outputPath is the path (and query) of an output URL.
func outputPath(t *testing.T, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.RequestURI()
}

func isMP3(b []byte) bool {
	return len(b) > 3 && (string(b[:3]) == "ID3" || (b[0] == 0xff && b[1]&0xe0 == 0xe0))
}

var pidRe = regexp.MustCompile(`-(\d+)-[0-9a-f]+$`)

// pidOf reads the process id out of a node id (host-pid-random).
func pidOf(node string) int {
	m := pidRe.FindStringSubmatch(node)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// dirBytes sums the sizes of the files under a node's data directory.
func dirBytes(t *testing.T, s *server) int64 {
	var n int64
	_ = filepath.Walk(s.data, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// metricSum adds one Prometheus counter over nodes (lines matching labels).
func metricSum(t *testing.T, nodes []*server, name, labels string) float64 {
	t.Helper()
	var sum float64
	for _, s := range nodes {
		resp, err := http.Get(s.url + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, name+"{") && strings.Contains(line, labels) {
				f := strings.Fields(line)
				v, _ := strconv.ParseFloat(f[len(f)-1], 64)
				sum += v
			}
		}
	}
	return sum
}
