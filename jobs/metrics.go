package jobs

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	phase    *prometheus.HistogramVec
	finished *prometheus.CounterVec
}

func newMetrics() *metrics {
	return &metrics{
		phase: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "autocut_job_phase_duration_seconds",
			Help:    "Duration of job phases (analyze, transcribe, render).",
			Buckets: prometheus.ExponentialBuckets(0.05, 2.5, 12),
		}, []string{"phase"}),
		finished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autocut_jobs_finished_total",
			Help: "Job runs finished, by final status and error code.",
		}, []string{"status", "code"}),
	}
}

var jobsDesc = prometheus.NewDesc("autocut_jobs", "Jobs by state.", []string{"state"}, nil)

// stateCollector counts jobs by state from the jobs table at scrape time.
type stateCollector struct{ m *Manager }

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) { ch <- jobsDesc }

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	counts := map[string]float64{StatusAnalyzing: 0, StatusTranscribing: 0, StatusRendering: 0, StatusDone: 0, StatusFailed: 0}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rows, err := c.m.db.read.QueryContext(ctx, `SELECT status, COUNT(*) FROM autocut_job GROUP BY status`)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(jobsDesc, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var n float64
		if err := rows.Scan(&s, &n); err != nil {
			ch <- prometheus.NewInvalidMetric(jobsDesc, err)
			return
		}
		counts[s] = n
	}
	for s, n := range counts {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, n, s)
	}
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
