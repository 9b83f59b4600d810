package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
)

// previewEngine is the engine the Preview benchmark plans with; the real
// planner once it is linked (see engine_default.go), else the fake.
func benchJob(b *testing.B, eng Engine, sec float64) (*Manager, string) {
	b.Helper()
	ctx := context.Background()
	m, err := Open(ctx, Config{DataDir: b.TempDir(), Workers: 1, Engine: eng, PollInterval: 50 * time.Millisecond, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = m.Stop(context.Background()) })
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "long.wav", Options: apiv1.Options{AutoExport: ptr(false)}}, fakeMedia(sec))
	if err != nil {
		b.Fatal(err)
	}
	for {
		j, err = m.Get(ctx, "o", j.ID)
		if err != nil {
			b.Fatal(err)
		}
		if j.Status == apiv1.StatusDone {
			break
		}
		if j.Status == apiv1.StatusFailed {
			b.Fatalf("job failed: %+v", j.Error)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return m, j.ID
}

// BenchmarkPreview1h re-plans a 1-hour job from its stored analysis: warm
// (decoded analysis cached) and cold (read and decode the stored blob).
func BenchmarkPreview1h(b *testing.B) {
	m, id := benchJob(b, previewEngine(), 3600)
	ctx := context.Background()
	rec, err := getRecord(ctx, m.db.read, "o", id)
	if err != nil {
		b.Fatal(err)
	}
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if cold {
					m.cache.drop(rec.AnalysisKey)
				}
				if _, err := m.Preview(ctx, "o", id, apiv1.ParamsInput{ThresholdDb: ptr(-35.0)}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGet reads a job record the way a polling client does.
func BenchmarkGet(b *testing.B) {
	m, id := benchJob(b, &gateEngine{}, 60)
	ctx := context.Background()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := m.Get(ctx, "o", id); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
