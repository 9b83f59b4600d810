package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
)

// cutList is a PATCH body of n cuts of 0.1 s, one every 0.2 s.
func cutList(n int) string {
	var b strings.Builder
	b.WriteString(`{"cuts":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"start":%.1f,"end":%.1f}`, float64(i)*0.2, float64(i)*0.2+0.1)
	}
	b.WriteString(`]}`)
	return b.String()
}

// heapBytes is the heap's object bytes now (live and not yet collected).
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestCutListBounds: a cut list over one cut per 0.2 s of input, or over
// 20,000 cuts, answers 422 too_many_cuts; the largest allowed list is
// taken; the list leaves the plans' cut lists out; and 50 concurrent GETs
// of a job holding the largest list keep the server's heap within a bound
// (the key's views wait their turn), while another key's poll is answered.
func TestCutListBounds(t *testing.T) {
	e := managerEnv(t, nil)
	short := e.upload(t, proKey, "short.wav", "RIFF 10")
	long := e.upload(t, proKey, "long.wav", "RIFF 4000")
	other := e.upload(t, proKey2, "other.wav", "RIFF 10")
	for _, j := range []apiv1.Job{short, long, other} {
		key := proKey
		if j.ID == other.ID {
			key = proKey2
		}
		e.poll(t, key, j.ID, isDone)
	}
	patch := func(id, body string) (int, apiv1.ErrorBody) {
		t.Helper()
		resp, b := e.call(t, "PATCH", "/api/v1/jobs/"+id, proKey, strings.NewReader(body), map[string]string{"Content-Type": "application/json"})
		var eb apiv1.ErrorBody
		if resp.StatusCode != 202 {
			eb = decodeErr(t, b)
		}
		return resp.StatusCode, eb
	}
	for _, tc := range []struct {
		name string
		id   string
		n    int
		want int
	}{
		{"over one per 0.2 s of a 10 s input", short.ID, 51, 422},
		{"over 20,000", long.ID, 20_001, 422},
		{"one per 0.2 s of a 10 s input", short.ID, 50, 202},
		{"20,000 cuts of a 4000 s input", long.ID, 20_000, 202},
	} {
		code, eb := patch(tc.id, cutList(tc.n))
		if code != tc.want || (code == 422 && eb.Code != apiv1.CodeTooManyCuts) {
			t.Errorf("%s: PATCH answered %d %+v, want %d (too_many_cuts past the bound)", tc.name, code, eb, tc.want)
		}
	}
	heavy := e.poll(t, proKey, long.ID, func(j apiv1.Job) bool { return j.Status == apiv1.StatusDone })
	if heavy.Plan == nil || len(heavy.Plan.Cuts) != 20_000 {
		t.Fatalf("the job's plan after the largest cut list: %+v", heavy.Plan != nil)
	}

	resp, b := e.call(t, "GET", "/api/v1/jobs", proKey, nil, nil)
	var list apiv1.JobList
	if resp.StatusCode != 200 || json.Unmarshal(b, &list) != nil || len(list.Jobs) != 2 {
		t.Fatalf("list: %d %.200s", resp.StatusCode, b)
	}
	if len(b) > 16<<10 || strings.Contains(string(b), `"cuts"`) || !list.Jobs[0].Plan.CutsOmitted {
		t.Errorf("the list holds cut lists (%d bytes): %.300s", len(b), b)
	}

	runtime.GC()
	base := heapBytes()
	var (
		peak atomic.Uint64
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			if h := heapBytes(); h > peak.Load() {
				peak.Store(h)
			}
		}
	}()
	var failed atomic.Int32
	for range 50 {
		wg.Go(func() {
			req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/jobs/"+long.ID, nil)
			req.Header.Set("Authorization", "Bearer "+proKey)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				failed.Add(1)
				return
			}
			n, _ := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || n < 1<<20 {
				failed.Add(1)
			}
		})
	}
	// Meanwhile the other key's poll is answered.
	start := time.Now()
	if resp, _ := e.call(t, "GET", "/api/v1/jobs/"+other.ID, proKey2, nil, nil); resp.StatusCode != 200 {
		t.Errorf("the other key's poll: %d", resp.StatusCode)
	}
	otherPoll := time.Since(start)
	wg.Wait()
	close(stop)
	if failed.Load() > 0 {
		t.Errorf("%d of the heavy GETs failed", failed.Load())
	}
	grew := (peak.Load() - min(base, peak.Load())) >> 20
	t.Logf("heap %d MiB before, peak %d MiB over it during 50 concurrent GETs of a 20,000-cut job (answer %d bytes); other key's poll %v",
		base>>20, grew, len(mustJSON(t, heavy)), otherPoll)
	if grew > 200 {
		t.Errorf("the heap grew by %d MiB during 50 concurrent GETs of one job, want at most 200", grew)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestClientClosed: GETs whose clients close the connection while the
// server works on them are logged at INFO with status 499 and counted as
// code="client_closed", not as 500 errors.
func TestClientClosed(t *testing.T) {
	e := newTestEnv(t, nil)
	id := e.upload(t, proKey, "a.wav", "RIFFdata").ID
	e.fake.mu.Lock()
	e.fake.errs = map[string]error{"Get": errWaitForClient}
	e.fake.mu.Unlock()
	const aborted = 10
	for range aborted {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/api/v1/jobs/"+id, nil)
		req.Header.Set("Authorization", "Bearer "+proKey)
		done := make(chan error, 1)
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			done <- err
		}()
		<-e.fake.waiting // the server works on it
		cancel()
		if err := <-done; err == nil {
			t.Fatal("a cancelled request got an answer")
		}
	}
	e.fake.mu.Lock()
	e.fake.errs = nil
	e.fake.mu.Unlock()
	// The request log follows the end of each handler.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(e.logs.String(), `"status":499`) < aborted && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	logs := e.logs.String()
	if n := strings.Count(logs, `"status":499`); n != aborted {
		t.Errorf("%d requests logged with status 499, want %d", n, aborted)
	}
	if strings.Contains(logs, `"level":"ERROR"`) {
		t.Errorf("a client's leaving was logged as an error:\n%s", logs)
	}
	_, b := e.call(t, "GET", "/metrics", "", nil, nil)
	want := fmt.Sprintf(`autocut_http_requests_total{code="client_closed",method="GET",route="/api/v1/jobs/:id"} %d`, aborted)
	if !strings.Contains(string(b), want) || strings.Contains(string(b), `code="500"`) {
		t.Errorf("metrics do not count the aborted GETs as client_closed (%s):\n%s", want, grepLines(string(b), "autocut_http_requests_total"))
	}
}

// grepLines returns the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
