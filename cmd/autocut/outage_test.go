package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/internal/testservers"
	"github.com/autocut-dev/autocut/internal/testtier"
)

// TestServeOutage runs the real binary (--role all) on PostgreSQL and an S3
// bucket, each behind a loopback proxy that the test cuts as an outage
// would: while the database is away, the job routes answer 503 not_ready
// with Retry-After and /readyz 503, /healthz 200; while the bucket is
// away, a job's record still reads and its download and a new upload answer
// 503; once each is back, the same routes work without a restart, and a
// new job runs to the end.
func TestServeOutage(t *testing.T) {
	testtier.Slow(t, "outage test in -short mode")
	pg, err := url.Parse(testservers.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	db := testservers.NewProxy(t, pg.Host)
	pg.Host = db.Addr()
	s3 := testservers.VersityGW(t)
	bucket := testservers.NewProxy(t, strings.TrimPrefix(s3.Endpoint, "http://"))
	s3.Endpoint = "http://" + bucket.Addr()
	bin := buildBinary(t)
	env := append([]string{"AUTOCUT_API_KEYS=k1:pro", "AUTOCUT_DATABASE=" + pg.String(), "AUTOCUT_STORAGE=" + s3.URL()}, s3.Env()...)
	srv := startServer(t, bin, t.TempDir(), env, "--lease-ttl", "3s")
	media := filepath.Join(t.TempDir(), "talk.wav")
	speechLike(t, media, 10)

	// call answers a request: status, Retry-After, error code.
	call := func(method, path string, body io.Reader) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(method, srv.url+path, body)
		req.Header.Set("Authorization", "Bearer k1")
		req.Header.Set("X-Filename", "talk.wav")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var e struct{ Code, ID, Status string }
		_ = json.Unmarshal(b, &e)
		if resp.StatusCode/100 == 2 {
			return resp.StatusCode, resp.Header.Get("Retry-After"), e.ID + " " + e.Status
		}
		return resp.StatusCode, resp.Header.Get("Retry-After"), e.Code
	}
	create := func() (int, string) {
		t.Helper()
		f, err := os.Open(media)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		code, _, idStatus := call("POST", "/api/v1/jobs", f)
		return code, strings.Fields(idStatus + " x")[0]
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not after 30 s\n%s", what, lastLines(srv.stderr.String(), 15))
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	done := func(id string) func() bool {
		return func() bool {
			code, _, s := call("GET", "/api/v1/jobs/"+id, nil)
			return code == 200 && strings.HasSuffix(s, " done")
		}
	}
	unavailable := func(what, method, path string) {
		t.Helper()
		var body io.Reader
		if method == "POST" {
			f, err := os.Open(media)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			body = f
		}
		if code, ra, c := call(method, path, body); code != 503 || ra != "5" || c != "not_ready" {
			t.Errorf("%s: %s %s answered %d %q (Retry-After %q), want 503 not_ready with Retry-After 5", what, method, path, code, c, ra)
		}
	}

	code, id := create()
	if code != 202 {
		t.Fatalf("create: %d", code)
	}
	waitFor("the first job done", done(id))

	db.Cut()
	for _, r := range [][2]string{{"GET", "/api/v1/jobs/" + id}, {"GET", "/api/v1/jobs"}, {"GET", "/api/v1/jobs/" + id + "/download"},
		{"GET", "/api/v1/jobs/" + id + "/timelines/edl"}, {"POST", "/api/v1/jobs"}} {
		unavailable("database away", r[0], r[1])
	}
	if code, _, _ := call("GET", "/readyz", nil); code != 503 {
		t.Errorf("database away: /readyz %d, want 503", code)
	}
	if code, _, _ := call("GET", "/healthz", nil); code != 200 {
		t.Errorf("database away: /healthz %d, want 200", code)
	}
	db.Restore()
	waitFor("the job read again once the database is back", func() bool { code, _, _ := call("GET", "/api/v1/jobs/"+id, nil); return code == 200 })

	bucket.Cut()
	if code, _, _ := call("GET", "/api/v1/jobs/"+id, nil); code != 200 {
		t.Errorf("bucket away: GET job %d, want 200 (the record is in the database)", code)
	}
	unavailable("bucket away", "GET", "/api/v1/jobs/"+id+"/download")
	unavailable("bucket away", "POST", "/api/v1/jobs")
	bucket.Restore()
	waitFor("the download once the bucket is back", func() bool { code, _, _ := call("GET", "/api/v1/jobs/"+id+"/download", nil); return code == 200 })

	code, id2 := create()
	if code != 202 {
		t.Fatalf("create after the outages: %d", code)
	}
	waitFor("a job created after the outages done", done(id2))
}
