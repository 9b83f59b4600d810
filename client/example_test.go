package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/client"
)

// fakeServer answers like an autocut server for one job, job_1, which is
// done at the second poll. It speaks apiv1's types, as the real one does.
func fakeServer() *httptest.Server {
	var polls atomic.Int32
	job := func(status apiv1.Status) apiv1.Job {
		j := apiv1.Job{ID: "job_1", Status: status, Input: apiv1.Input{Name: "talk.wav"},
			Export: apiv1.Export{Format: "mp3", Normalize: "podcast"}}
		if status == apiv1.StatusDone {
			j.Progress = 100
			j.Output = &apiv1.Output{URL: "/api/v1/jobs/job_1/download", Format: "mp3", Duration: 512.3, Name: "talk-autocut.mp3", Size: 3}
			j.Plan = &apiv1.Plan{Stats: apiv1.Stats{OriginalSec: 600, FinalSec: 512.3, SavedSec: 87.7, SavedPct: 14.617, CutsCount: 42}}
		}
		return j
	}
	answer := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/jobs", func(w http.ResponseWriter, r *http.Request) {
		var o apiv1.Options
		if err := json.Unmarshal([]byte(r.Header.Get("X-Options")), &o); err != nil || o.Preset != "podcast" {
			answer(w, 400, apiv1.ErrorBody{Error: "bad options", Code: apiv1.CodeBadRequest})
			return
		}
		answer(w, http.StatusAccepted, job(apiv1.StatusAnalyzing))
	})
	mux.HandleFunc("GET /api/v1/jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "job_1" {
			answer(w, 404, apiv1.ErrorBody{Error: "job not found: " + r.PathValue("id"), Code: apiv1.CodeNotFound})
			return
		}
		if polls.Add(1) < 2 {
			answer(w, 200, job(apiv1.StatusRendering))
			return
		}
		answer(w, 200, job(apiv1.StatusDone))
	})
	mux.HandleFunc("GET /api/v1/jobs/job_1/download", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "talk-autocut.mp3"}))
		fmt.Fprint(w, "ID3")
	})
	return httptest.NewServer(mux)
}

// Upload a file, wait for the job, download the result.
func ExampleClient() {
	srv := fakeServer()
	defer srv.Close()
	ctx := context.Background()

	c := client.New(srv.URL, "my-api-key")
	c.PollInterval = 10 * time.Millisecond
	j, err := c.Create(ctx, "talk.wav", strings.NewReader("RIFF..."), 7, apiv1.Options{Preset: "podcast"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", j.ID, j.Status)
	j, err = c.Wait(ctx, j.ID)
	if err != nil {
		log.Fatal(err)
	}
	st := j.Plan.Stats
	fmt.Printf("%s: %.0f s -> %.1f s, %d cuts\n", j.Status, st.OriginalSec, st.FinalSec, st.CutsCount)
	name, err := c.Download(ctx, j.ID, os.Stdout)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(" written as", name)
	// Output:
	// created job_1 analyzing
	// done: 600 s -> 512.3 s, 42 cuts
	// ID3 written as talk-autocut.mp3
}

// Errors the API answers match apiv1's sentinels by their code.
func ExampleClient_Get_errors() {
	srv := fakeServer()
	defer srv.Close()
	_, err := client.New(srv.URL, "my-api-key").Get(context.Background(), "job_nope")
	var e *apiv1.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code, e.Message)
	}
	fmt.Println(errors.Is(err, apiv1.ErrNotFound), errors.Is(err, apiv1.ErrOutputExpired), client.IsStatus(err, 404))
	// Output:
	// 404 not_found job not found: job_nope
	// true false true
}
