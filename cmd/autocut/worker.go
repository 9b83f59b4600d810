package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/autocut-dev/autocut/httpapi"
	"github.com/autocut-dev/autocut/jobs"
)

// runWorker runs a worker node: it works jobs from the shared database and
// answers only /healthz, /readyz and /metrics on --addr.
func runWorker(ctx context.Context, f serveFlags, log *slog.Logger) error {
	mgr, err := f.openJobs(ctx, jobs.RoleWorker, f.transcriber(ctx, log), log)
	if err != nil {
		return fmt.Errorf("open jobs: %w", err)
	}
	if err := mgr.Start(ctx); err != nil {
		_ = mgr.Stop(context.WithoutCancel(ctx))
		return fmt.Errorf("start jobs: %w", err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, c := range mgr.Collectors() {
		if err := reg.Register(c); err != nil {
			log.Warn("metrics: collector not registered", "err", err)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintln(w, `{"status":"ok","role":"worker"}`)
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		rctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if err := mgr.Ready(rctx); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "{\"status\":\"unavailable\",\"reason\":%q}\n", err.Error())
			return
		}
		fmt.Fprintln(w, `{"status":"ready","role":"worker"}`)
	})
	mux.Handle("GET /metrics", httpapi.MetricsHandler(reg, log))

	stop := func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		return mgr.Stop(sctx)
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		_ = stop()
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("listening", "addr", ln.Addr().String(), "role", jobs.RoleWorker, "data", f.data)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		_ = stop()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if err2 := stop(); err == nil || errors.Is(err, http.ErrServerClosed) {
		err = err2
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}
