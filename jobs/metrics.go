package jobs

import (
	"context"
	"time"

	"github.com/autocut-dev/autocut/apiv1"

	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	phase    *prometheus.HistogramVec
	finished *prometheus.CounterVec
	// maintenance counts periodic runs on this node (retention, rescue), so
	// that a cluster shows they run once per cluster, not once per node.
	maintenance *prometheus.CounterVec
	rescued     prometheus.Counter
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
		maintenance: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autocut_maintenance_runs_total",
			Help: "Periodic maintenance runs worked by this node (River's leader enqueues them once per cluster).",
		}, []string{"task"}),
		rescued: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "autocut_jobs_rescued_total",
			Help: "Runs re-enqueued by this node because the worker holding them stopped renewing its lease.",
		}),
	}
}

var jobsDesc = prometheus.NewDesc("autocut_jobs", "Jobs by state.", []string{"state"}, nil)

// stateCollector counts jobs by state from the jobs table at scrape time.
type stateCollector struct{ m *Manager }

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) { ch <- jobsDesc }

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	counts := map[string]float64{}
	for _, s := range apiv1.Statuses() {
		counts[string(s)] = 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	rows, err := c.m.db.read.Query(ctx, `SELECT status, COUNT(*) FROM autocut_job GROUP BY status`)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(jobsDesc, err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var n int64
		if err := rows.Scan(&s, &n); err != nil {
			ch <- prometheus.NewInvalidMetric(jobsDesc, err)
			return
		}
		counts[s] = float64(n)
	}
	for s, n := range counts {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, n, s)
	}
}
