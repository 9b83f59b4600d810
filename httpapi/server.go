package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/julienschmidt/httprouter"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/timeline"
)

// DefaultMaxUploadBytes is the input size limit: the contract's 4 GB, in
// SI units (4,000,000,000 bytes).
const DefaultMaxUploadBytes = jobs.DefaultMaxInputBytes

// TimelineOptions are the query options of a timeline export.
type TimelineOptions struct {
	MediaPath     string       // path or URL of the media the timeline references; "" = the input name
	Rate          dsp.Rational // timeline frame rate; zero = the media's own (or the writer's default)
	FCPXMLVersion string       // "" = the writer's default
	DropFrame     bool         // drop-frame timecode for 29.97/59.94
}

// TimelineWriter writes the timeline of kind (one of timeline.Kinds) for
// a job whose plan exists.
type TimelineWriter func(w io.Writer, kind timeline.Kind, src *jobs.TimelineSource, o TimelineOptions) error

// Config configures the handler returned by New.
type Config struct {
	Service jobs.Service // required
	Keys    *KeyStore    // required; no key authenticates when empty
	// BaseURL is the absolute prefix of URLs in responses; "" derives it
	// from the request's Host and X-Forwarded-Proto.
	BaseURL string
	// MaxUploadBytes limits an input (both forms); default 4 GB.
	MaxUploadBytes int64
	// AllowPrivateURLs lets Form A download from private and loopback
	// addresses (only those: link-local, multicast and the other special
	// ranges and the port list still apply): for tests and trusted
	// networks only.
	AllowPrivateURLs bool
	// URLPorts are the ports Form A may download from; nil: DefaultURLPorts.
	URLPorts []uint16
	// FetchTimeout bounds a whole Form A download; 0: DefaultFetchTimeout,
	// negative: none.
	FetchTimeout time.Duration
	// FetchMinRate is the lowest average rate (bytes/s) of a Form A
	// download after DefaultFetchRateGrace; 0: DefaultFetchMinRate,
	// negative: none.
	FetchMinRate int64
	// UploadIdleTimeout closes an upload whose body sends nothing for this
	// long; 0: DefaultUploadIdleTimeout, negative: none.
	UploadIdleTimeout time.Duration
	// MaxUploadsPerKey caps the uploads (both forms) one key runs at once
	// on this server; 0: DefaultMaxUploadsPerKey, negative: no cap.
	MaxUploadsPerKey int
	// MaxViewsPerKey caps the requests carrying whole jobs (GET of a job,
	// the list, PATCH) one key has served at once; more wait. 0:
	// DefaultMaxViewsPerKey, negative: no cap.
	MaxViewsPerKey int
	// Timelines writes timeline files; nil means WriteTimeline.
	Timelines TimelineWriter
	Logger    *slog.Logger // default slog.Default()
	// Registry receives the HTTP metrics and Collectors and is served at
	// /metrics; nil creates a private registry.
	Registry   *prometheus.Registry
	Collectors []prometheus.Collector
	// Web serves the browser page at / and its assets under /static/; nil serves none.
	Web http.Handler
	// Ready reports readiness for /readyz; nil is always ready.
	Ready func(ctx context.Context) error

	// guard overrides the Form A dial guard (tests).
	guard dialGuard
	// fetchRateGrace overrides DefaultFetchRateGrace (tests).
	fetchRateGrace time.Duration
	// resolver overrides Form A's DNS resolver (tests).
	resolver *net.Resolver
}

// server holds the handler's dependencies.
type server struct {
	cfg      Config
	log      *slog.Logger
	fetch    *fetcher
	uploads  *uploadSlots
	views    *viewSlots
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inflight prometheus.Gauge
}

// MetricsHandler serves /metrics from g. A collector that fails (the jobs
// gauge while the database is down) is logged and left out of the answer:
// the other metrics are still served, when they matter most.
func MetricsHandler(g prometheus.Gatherer, log *slog.Logger) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
		ErrorLog:      slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	})
}

// New returns the v1 API handler.
func New(cfg Config) http.Handler {
	_, h := newServer(cfg)
	return h
}

// newServer returns the server New's handler serves, and the handler.
func newServer(cfg Config) (*server, http.Handler) {
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if cfg.Timelines == nil {
		cfg.Timelines = WriteTimeline
	}
	if cfg.UploadIdleTimeout == 0 {
		cfg.UploadIdleTimeout = DefaultUploadIdleTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Keys == nil {
		cfg.Keys = NewKeyStore()
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	reg := cfg.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	s := &server{
		cfg: cfg,
		log: cfg.Logger,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "autocut_http_requests_total", Help: "HTTP requests by route, method and status code (client_closed: the client left before the answer).",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "autocut_http_request_duration_seconds", Help: "HTTP request durations by route and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 60, 600},
		}, []string{"route", "method"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "autocut_http_requests_in_flight", Help: "HTTP requests being served.",
		}),
	}
	for _, c := range append([]prometheus.Collector{s.requests, s.duration, s.inflight}, cfg.Collectors...) {
		if err := reg.Register(c); err != nil {
			s.log.Warn("metrics: collector not registered", "err", err)
		}
	}
	s.fetch = newFetcher(cfg)
	s.uploads = newUploadSlots(cfg.MaxUploadsPerKey)
	s.views = newViewSlots(cfg.MaxViewsPerKey)

	r := httprouter.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = true
	// No OPTIONS: the API has no CORS and documents no OPTIONS operation,
	// so OPTIONS answers 405 as JSON like any method a path lacks (the
	// router's own answer was 200 with an empty body, without a key) and
	// Allow names the documented methods only.
	r.HandleOPTIONS = false
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		writeError(w, fmt.Errorf("%w: %s", apiv1.ErrRouteNotFound, req.URL.Path))
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		allow := withoutOptions(w.Header().Get("Allow"))
		w.Header().Set("Allow", allow)
		writeError(w, fmt.Errorf("%w: %s %s (allowed: %s)", apiv1.ErrMethodNotAllowed, req.Method, req.URL.Path, allow))
	})
	r.PanicHandler = nil // recovery is the outer middleware, so it also covers NotFound handlers

	// handle registers h for method on route; a GET route answers HEAD too
	// (RFC 9110 9.3.2: the GET's headers without its body, which net/http
	// leaves out).
	handle := func(method, route string, h func(http.ResponseWriter, *http.Request, httprouter.Params), authed bool) {
		methods := []string{method}
		if method == http.MethodGet {
			methods = append(methods, http.MethodHead)
		}
		for _, method := range methods {
			r.Handle(method, route, func(w http.ResponseWriter, req *http.Request, ps httprouter.Params) {
				if rw, ok := w.(*respWriter); ok {
					rw.route = route
				}
				if authed {
					id, err := s.authenticate(req)
					if err != nil {
						if errors.Is(err, apiv1.ErrUnauthorized) {
							w.Header().Set("WWW-Authenticate", bearerChallenge(req))
						}
						writeError(w, err)
						return
					}
					req = req.WithContext(context.WithValue(req.Context(), identityKey{}, id))
				}
				h(w, req, ps)
			})
		}
	}
	handle(http.MethodGet, "/healthz", s.healthz, false)
	handle(http.MethodGet, "/readyz", s.readyz, false)
	metrics := MetricsHandler(reg, s.log)
	handle(http.MethodGet, "/metrics", func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) {
		metrics.ServeHTTP(w, req)
	}, false)
	handle(http.MethodGet, "/api/v1/openapi.json", s.openapi, false)
	handle(http.MethodPost, "/api/v1/jobs", s.create, true)
	handle(http.MethodGet, "/api/v1/jobs", s.list, true)
	handle(http.MethodGet, "/api/v1/jobs/:id", s.get, true)
	handle(http.MethodPatch, "/api/v1/jobs/:id", s.patch, true)
	handle(http.MethodDelete, "/api/v1/jobs/:id", s.delete, true)
	handle(http.MethodGet, "/api/v1/jobs/:id/download", s.download, true)
	handle(http.MethodGet, "/api/v1/jobs/:id/original", s.original, true)
	handle(http.MethodGet, "/api/v1/jobs/:id/timelines/:kind", s.timeline, true)
	handle(http.MethodGet, "/api/v1/jobs/:id/preview", s.preview, true)
	handle(http.MethodGet, "/api/v1/jobs/:id/envelope", s.envelope, true)
	if cfg.Web != nil {
		page := func(w http.ResponseWriter, req *http.Request, _ httprouter.Params) { cfg.Web.ServeHTTP(w, req) }
		handle(http.MethodGet, "/", page, false)
		handle(http.MethodGet, "/static/*file", page, false)
	}
	return s, s.middleware(r)
}

// withoutOptions drops OPTIONS from the Allow list httprouter makes (it
// names OPTIONS even when the router does not answer it).
func withoutOptions(allow string) string {
	var out []string
	for _, m := range strings.Split(allow, ",") {
		if m = strings.TrimSpace(m); m != "" && m != http.MethodOptions {
			out = append(out, m)
		}
	}
	return strings.Join(out, ", ")
}

type identityKey struct{}

// identity returns the authenticated caller of a request.
func identity(r *http.Request) Identity {
	id, _ := r.Context().Value(identityKey{}).(Identity)
	return id
}

// authenticate checks the bearer key: 401 missing/invalid, 402 not Pro.
func (s *server) authenticate(r *http.Request) (Identity, error) {
	h := r.Header.Get("Authorization")
	scheme, key, ok := strings.Cut(h, " ")
	if h == "" {
		return Identity{}, fmt.Errorf("%w: send Authorization: Bearer <API key>", apiv1.ErrUnauthorized)
	}
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) == "" {
		return Identity{}, fmt.Errorf("%w: the Authorization header must be Bearer <API key>", apiv1.ErrUnauthorized)
	}
	id, found := s.cfg.Keys.Lookup(strings.TrimSpace(key))
	if !found {
		return Identity{}, fmt.Errorf("%w: unknown API key", apiv1.ErrUnauthorized)
	}
	if id.Tier != TierPro {
		return Identity{}, fmt.Errorf("%w: the API needs the Pro plan", apiv1.ErrProPlanRequired)
	}
	return id, nil
}

// bearerChallenge is the WWW-Authenticate of a 401 (RFC 9110 11.6.1, RFC
// 6750 3): the Bearer scheme, with error="invalid_token" when the request
// sent credentials that did not pass.
func bearerChallenge(r *http.Request) string {
	if r.Header.Get("Authorization") == "" {
		return `Bearer realm="autocut"`
	}
	return `Bearer realm="autocut", error="invalid_token"`
}

// respWriter records the status and size of a response for logs and
// metrics, and closes the connection after a response written before the
// request body was read to its end.
type respWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	route  string
	err    error
	body   *bodyTracker // nil: the request has no body
}

func (w *respWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.closeIfUnread()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *respWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
		w.closeIfUnread()
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *respWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// closeIfUnread sets Connection: close when the request body has not been
// read to its end: net/http would otherwise read (up to 256 KiB of) the
// rest before sending the answer, so a client that sent its headers and
// waits for them to be accepted (a 413 for a declared length, a 401) would
// never see it.
func (w *respWriter) closeIfUnread() {
	if w.body != nil && !w.body.done.Load() {
		w.Header().Set("Connection", "close")
	}
}

// bodyTracker records whether a request body was read to its end.
type bodyTracker struct {
	io.ReadCloser
	done atomic.Bool  // a read returned io.EOF
	read atomic.Int64 // bytes read
}

func (b *bodyTracker) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read.Add(int64(n))
	if err == io.EOF {
		b.done.Store(true)
	}
	return n, err
}

// middleware adds request ids, panic recovery, request logs and metrics.
func (s *server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rid := r.Header.Get("X-Request-Id")
		if !validRequestID(rid) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			rid = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", rid)
		rw := &respWriter{ResponseWriter: w, route: "unmatched"}
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			rw.body = &bodyTracker{ReadCloser: r.Body}
			r.Body = rw.body
		}
		s.inflight.Inc()
		defer func() {
			s.inflight.Dec()
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic", "request_id", rid, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if rw.status == 0 {
					writeError(rw, errors.New("panic"))
				}
				rw.status = http.StatusInternalServerError
			}
			d := time.Since(start)
			code := rw.status
			if code == 0 {
				code = http.StatusOK
			}
			// A request whose client went away before its answer (the
			// request's context ends when the connection closes) failed
			// because of the client: its 5xx (the work stopped by the
			// cancellation) is no server error. It is counted as
			// client_closed and logged at INFO with status 499, nginx's
			// "client closed request", so that 5xx alerts follow the server.
			codeLabel := strconv.Itoa(code)
			clientClosed := code >= 500 && errors.Is(r.Context().Err(), context.Canceled)
			if clientClosed {
				code, codeLabel = statusClientClosed, "client_closed"
			}
			// Labels come from closed sets (a route pattern or "unmatched",
			// a known method or "other", a status the server wrote), so
			// that requests cannot grow the series without bound.
			method := methodLabel(r.Method)
			s.requests.WithLabelValues(rw.route, method, codeLabel).Inc()
			s.duration.WithLabelValues(rw.route, method).Observe(d.Seconds())
			attrs := []any{"request_id", rid, "method", r.Method, "path", r.URL.Path, "route", rw.route,
				"status", code, "bytes", rw.bytes, "duration_ms", float64(d.Microseconds()) / 1000, "remote", r.RemoteAddr}
			if id := identity(r); id.Owner != "" {
				attrs = append(attrs, "owner", id.Owner)
			}
			if clientClosed {
				attrs = append(attrs, "client_closed", true)
			}
			level := slog.LevelInfo
			if code >= 500 && !clientClosed {
				level = slog.LevelError
				if rw.err != nil {
					attrs = append(attrs, "err", rw.err.Error())
				}
			} else if rw.err != nil {
				attrs = append(attrs, "err", rw.err.Error())
			}
			s.log.Log(r.Context(), level, "request", attrs...)
		}()
		next.ServeHTTP(rw, r)
	})
}

// statusClientClosed is the status logged for a request whose client
// closed the connection before its answer (nginx's 499; nothing is sent).
const statusClientClosed = 499

// methodLabel is the metrics label of an HTTP method: the method itself
// for the methods of RFC 9110 and PATCH, "other" for anything else.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "other"
}

// validRequestID admits client ids of up to 64 safe characters.
func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func (s *server) healthz(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *server) readyz(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if s.cfg.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if err := s.cfg.Ready(ctx); errors.Is(err, apiv1.ErrInsufficientStorage) {
			writeError(w, err) // 507: the disk is full
			return
		} else if err != nil {
			writeError(w, fmt.Errorf("%w: %v", apiv1.ErrNotReady, err))
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
