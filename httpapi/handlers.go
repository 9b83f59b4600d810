package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/jobs"
	"github.com/autocut-dev/autocut/plan"
	"github.com/autocut-dev/autocut/timeline"
)

// errEmptyBody answers an upload without a byte (Content-Length: 0 or an
// empty chunked body).
var errEmptyBody = fmt.Errorf("%w: empty body: send the file as the body, or JSON with a url", apiv1.ErrBadRequest)

// maxJSONBody limits JSON request bodies (Form A) and X-Options.
const maxJSONBody = 64 << 10

// maxPatchBody limits a PATCH body, which may carry an explicit cut list
// (jobs.MaxCuts cuts of about 40 bytes, with room for whitespace).
const maxPatchBody = 4 << 20

func (s *server) create(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	id := identity(r)
	release, err := s.uploads.acquire(id.Owner)
	if err != nil {
		s.createFailed(w, r, err)
		return
	}
	defer release()
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var (
		req   = jobs.CreateRequest{Owner: id.Owner}
		media io.Reader
	)
	if mt == "application/json" {
		var b apiv1.CreateFromURL
		if err := decodeBody(r, maxJSONBody, &b); err != nil {
			writeError(w, err)
			return
		}
		if b.URL == "" {
			writeError(w, fmt.Errorf("%w: field url is required in a JSON request (or send the file as the body)", apiv1.ErrBadRequest))
			return
		}
		if err := jobs.CheckOptions(b.Options); err != nil {
			writeError(w, err)
			return
		}
		body, name, err := s.fetch.open(r.Context(), b.URL)
		if err != nil {
			s.createFailed(w, r, err)
			return
		}
		defer body.Close()
		req.Name, req.Options, media = sanitizeName(name), b.Options, body
		if sz, ok := body.(interface{ Size() int64 }); ok {
			req.Size = sz.Size()
		}
	} else {
		if r.ContentLength > s.cfg.MaxUploadBytes {
			w.Header().Set("Connection", "close")
			writeError(w, fmt.Errorf("%w: %d bytes declared, limit %d", apiv1.ErrFileTooLarge, r.ContentLength, s.cfg.MaxUploadBytes))
			return
		}
		if r.ContentLength == 0 {
			writeError(w, errEmptyBody)
			return
		}
		var o apiv1.Options
		if x := r.Header.Get("X-Options"); strings.TrimSpace(x) != "" {
			if err := decodeJSON(strings.NewReader(x), maxJSONBody, &o, "X-Options"); err != nil {
				writeError(w, err)
				return
			}
		}
		if err := jobs.CheckOptions(o); err != nil {
			writeError(w, err)
			return
		}
		req.Name, req.Options = sanitizeName(r.Header.Get("X-Filename")), o
		req.Size = max(r.ContentLength, 0)
		// A body of unknown length (chunked) may be empty too: it gets the
		// answer of Content-Length: 0.
		body := bufio.NewReaderSize(&limitedBody{r: newUploadBody(w, r, s.cfg.UploadIdleTimeout), left: s.cfg.MaxUploadBytes}, 16)
		if _, err := body.Peek(1); err != nil {
			if errors.Is(err, io.EOF) {
				err = errEmptyBody
			}
			s.createFailed(w, r, err)
			return
		}
		media = body
	}
	j, err := s.cfg.Service.Create(r.Context(), req, media)
	if err != nil {
		s.createFailed(w, r, err)
		return
	}
	w.Header().Set("Location", s.baseURL(r)+"/api/v1/jobs/"+j.ID)
	writeJSON(w, http.StatusAccepted, s.view(r, j))
}

// sanitizeName reduces a client file name to a safe base name: percent
// escapes decoded, directories dropped (both separators), control and
// format characters removed, leading dots and surrounding spaces trimmed,
// at most 200 bytes. An empty result becomes "upload".
func sanitizeName(name string) string {
	if u, err := url.PathUnescape(name); err == nil {
		name = u
	}
	if !utf8.ValidString(name) {
		name = strings.ToValidUTF8(name, "_")
	}
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '"' || r == ':' || r == '*' || r == '?' || r == '<' || r == '>' || r == '|' {
			return -1
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ".")
	name = strings.TrimSpace(name)
	for len(name) > 200 {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" {
		return "upload"
	}
	return name
}

// viewSlot waits for one of the key's job view slots (viewSlots); false
// when the client left meanwhile (answered).
func (s *server) viewSlot(w http.ResponseWriter, r *http.Request) (release func(), ok bool) {
	release, err := s.views.acquire(r.Context(), identity(r).Owner)
	if err != nil {
		writeError(w, err)
		return nil, false
	}
	return release, true
}

func (s *server) get(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	release, ok := s.viewSlot(w, r)
	if !ok {
		return
	}
	defer release()
	j, err := s.cfg.Service.Get(r.Context(), identity(r).Owner, ps.ByName("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, s.view(r, j))
}

func (s *server) list(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	q := r.URL.Query()
	limit := apiv1.MaxListLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > apiv1.MaxListLimit {
			writeError(w, fmt.Errorf("%w: limit must be an integer from 1 to %d", apiv1.ErrBadRequest, apiv1.MaxListLimit))
			return
		}
		limit = n
	}
	release, ok := s.viewSlot(w, r)
	if !ok {
		return
	}
	defer release()
	js, next, err := s.cfg.Service.List(r.Context(), identity(r).Owner, limit, q.Get("cursor"))
	if err != nil {
		writeError(w, err)
		return
	}
	resp := apiv1.JobList{Jobs: make([]apiv1.Job, 0, len(js))}
	for _, j := range js {
		resp.Jobs = append(resp.Jobs, s.view(r, j))
	}
	if next != "" {
		resp.NextCursor = &next
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *server) patch(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	release, ok := s.viewSlot(w, r)
	if !ok {
		return
	}
	defer release()
	var p apiv1.Patch
	if err := decodeBody(r, maxPatchBody, &p); err != nil {
		writeError(w, err)
		return
	}
	if err := jobs.CheckPatch(p); err != nil {
		writeError(w, err)
		return
	}
	j, err := s.cfg.Service.Update(r.Context(), identity(r).Owner, ps.ByName("id"), p)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusAccepted, s.view(r, j))
}

func (s *server) delete(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	if err := s.cfg.Service.Delete(r.Context(), identity(r).Owner, ps.ByName("id")); err != nil {
		writeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// trackOpener is what a Service also does to serve one track of a job of
// several tracks alone (download ?track=N; jobs.Manager has it).
type trackOpener interface {
	OpenTrackOutput(ctx context.Context, owner, id string, k int) (*jobs.Download, error)
}

func (s *server) download(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	id := ps.ByName("id")
	if v, ok := r.URL.Query()["track"]; ok {
		k, err := strconv.Atoi(strings.Join(v, ","))
		if err != nil || k < 0 || k >= apiv1.MaxTracks {
			writeError(w, fmt.Errorf("%w: track must be a track's index, 0 to %d, got %q", apiv1.ErrBadRequest, apiv1.MaxTracks-1, strings.Join(v, ",")))
			return
		}
		to, ok := s.cfg.Service.(trackOpener)
		if !ok {
			writeError(w, fmt.Errorf("%w: this server does not serve a job's tracks alone", apiv1.ErrBadRequest))
			return
		}
		d, err := to.OpenTrackOutput(r.Context(), identity(r).Owner, id, k)
		if err != nil {
			writeError(w, err)
			return
		}
		defer d.Close()
		serveDownload(w, r, fmt.Sprintf("%s-track%d", id, k), d)
		return
	}
	d, err := s.cfg.Service.OpenOutput(r.Context(), identity(r).Owner, id)
	if err != nil {
		writeError(w, err)
		return
	}
	defer d.Close()
	serveDownload(w, r, id, d)
}

// original serves the uploaded original while it is kept, with ranges, so
// that a player can seek in it (the page plays it beside the cut).
func (s *server) original(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	d, err := s.cfg.Service.OpenOriginal(r.Context(), identity(r).Owner, ps.ByName("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	defer d.Close()
	serveDownload(w, r, ps.ByName("id"), d)
}

// serveDownload answers a stored file: its type, its name as an
// attachment, an ETag from the job, time and size, and ranges.
func serveDownload(w http.ResponseWriter, r *http.Request, id string, d *jobs.Download) {
	h := w.Header()
	ct := d.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.Name}))
	h.Set("ETag", fmt.Sprintf(`"%s-%x-%x"`, id, d.ModTime.UnixNano(), d.Size))
	h.Set("Cache-Control", "private, no-cache")
	if v, ok := r.Header["Range"]; ok {
		rng, satisfiable := cleanRange(strings.Join(v, ","))
		if !satisfiable {
			h.Del("Content-Disposition")
			h.Set("Content-Range", fmt.Sprintf("bytes */%d", d.Size))
			writeError(w, fmt.Errorf("%w: the Range header asks for no byte of the file (a suffix of 0 bytes)", apiv1.ErrRangeNotSatisfiable))
			return
		}
		if rng == "" {
			r.Header.Del("Range")
		} else {
			r.Header.Set("Range", rng)
		}
	}
	http.ServeContent(&contentErrorWriter{ResponseWriter: w}, r, d.Name, d.ModTime, d)
}

// cleanRange prepares a Range header for http.ServeContent as RFC 9110
// 14.2 reads it: a range unit other than bytes is ignored ("", the whole
// file is sent: ServeContent would answer 416), the unit matches without
// regard to case, and a suffix of 0 bytes ("-0") is a range no byte
// satisfies (ServeContent answers it 206 with an invalid Content-Range):
// it is dropped, and a set of such ranges only is not satisfiable.
func cleanRange(v string) (rng string, satisfiable bool) {
	unit, set, ok := strings.Cut(v, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return "", true
	}
	var keep []string
	for _, spec := range strings.Split(set, ",") {
		spec = strings.TrimSpace(spec)
		if start, length, ok := strings.Cut(spec, "-"); ok && strings.TrimSpace(start) == "" {
			if n, err := strconv.ParseInt(strings.TrimSpace(length), 10, 64); err == nil && n == 0 {
				continue // a suffix of no byte
			}
		}
		keep = append(keep, spec)
	}
	if len(keep) == 0 {
		return "", false
	}
	return "bytes=" + strings.Join(keep, ","), true
}

// contentErrorWriter answers the errors http.ServeContent writes with
// http.Error (text/plain: 416 for a range outside the file, 500 when the
// file cannot seek) as JSON error bodies without Content-Disposition;
// every other answer passes.
type contentErrorWriter struct {
	http.ResponseWriter
	swallow bool // the text body of an error answered as JSON
}

func (w *contentErrorWriter) WriteHeader(code int) {
	if code < 400 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.swallow = true
	// The JSON error is no attachment: the file's name goes with the file.
	w.Header().Del("Content-Disposition")
	err := fmt.Errorf("serve content: status %d", code) // internal
	if code == http.StatusRequestedRangeNotSatisfiable {
		err = fmt.Errorf("%w: the Range header is outside the file (see Content-Range for its size)", apiv1.ErrRangeNotSatisfiable)
	}
	writeError(w.ResponseWriter, err)
}

func (w *contentErrorWriter) Write(p []byte) (int, error) {
	if w.swallow {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *contentErrorWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *server) timeline(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	kind := timeline.Kind(ps.ByName("kind"))
	if !kind.Valid() {
		writeError(w, fmt.Errorf("%w: %q (one of %s)", errUnknownTimelineKind, kind, kindList()))
		return
	}
	o, err := timelineOptions(r.URL.Query())
	if err != nil {
		writeError(w, err)
		return
	}
	src, err := s.cfg.Service.TimelineSource(r.Context(), identity(r).Owner, ps.ByName("id"))
	if err != nil {
		writeError(w, err)
		return
	}
	var buf bytes.Buffer // timelines are small (one entry per kept range)
	if err := s.cfg.Timelines(&buf, kind, src, o); err != nil {
		writeError(w, timelineError(kind, err))
		return
	}
	base := strings.TrimSuffix(src.Info.Name, path.Ext(src.Info.Name))
	if base == "" {
		base = ps.ByName("id")
	}
	h := w.Header()
	h.Set("Content-Type", kind.ContentType())
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": base + "-autocut" + kind.Ext()}))
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = buf.WriteTo(w)
}

// timelineError words a timeline writer's error for the client. An EDL
// over 999 events says what to ask the API for instead: the writer's own
// text sends Go callers to timeline.WriteFiles, which splits the list into
// files, something the API does not offer.
func timelineError(kind timeline.Kind, err error) error {
	if errors.Is(err, timeline.ErrTooManyEvents) {
		return fmt.Errorf("%w: a CMX 3600 EDL holds at most 999 events and this plan needs more; "+
			"ask for another kind (%s) or for fewer cuts (a longer minSilenceSec)", timeline.ErrTooManyEvents, otherKinds(kind))
	}
	return fmt.Errorf("timeline %s: %w", kind, err)
}

// otherKinds names the timeline kinds other than k for messages.
func otherKinds(k timeline.Kind) string {
	var names []string
	for _, o := range timeline.Kinds() {
		if o != k {
			names = append(names, string(o))
		}
	}
	return strings.Join(names, ", ")
}

// timelineOptions parses mediaPath, rate (timeline.ParseRate),
// fcpxmlVersion (one of timeline.FCPXMLVersions) and dropFrame.
func timelineOptions(q url.Values) (TimelineOptions, error) {
	var o TimelineOptions
	o.MediaPath = q.Get("mediaPath")
	if strings.ContainsFunc(o.MediaPath, unicode.IsControl) {
		return o, fmt.Errorf("%w: mediaPath has control characters", apiv1.ErrBadRequest)
	}
	if v := q.Get("rate"); v != "" {
		r, err := timeline.ParseRate(v)
		if err != nil {
			return o, fmt.Errorf("%w: rate must be a frame rate from %d to %d such as 25, 29.97 or 30000/1001, got %q",
				apiv1.ErrBadRequest, timeline.MinRate, timeline.MaxRate, v)
		}
		o.Rate = r
	}
	if v := q.Get("fcpxmlVersion"); v != "" {
		if !slices.Contains(timeline.FCPXMLVersions(), v) {
			return o, fmt.Errorf("%w: fcpxmlVersion must be one of %s, got %q", apiv1.ErrBadRequest, strings.Join(timeline.FCPXMLVersions(), ", "), v)
		}
		o.FCPXMLVersion = v
	}
	if v := q.Get("dropFrame"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return o, fmt.Errorf("%w: dropFrame must be true or false, got %q", apiv1.ErrBadRequest, v)
		}
		o.DropFrame = b
	}
	return o, nil
}

// kindList names the timeline kinds for messages.
func kindList() string {
	ks := timeline.Kinds()
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

func (s *server) preview(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	q := r.URL.Query()
	var p apiv1.ParamsInput
	for _, f := range []struct {
		name string
		dst  **float64
	}{{"thresholdDb", &p.ThresholdDb}, {"minSilenceSec", &p.MinSilenceSec}, {"keepSilenceMs", &p.KeepSilenceMs}, {"minSpeechMs", &p.MinSpeechMs}} {
		if v := q.Get(f.name); v != "" {
			x, err := strconv.ParseFloat(v, 64)
			if err != nil {
				writeError(w, fmt.Errorf("%w: %s must be a number, got %q", plan.ErrInvalidParams, f.name, v))
				return
			}
			*f.dst = &x
		}
	}
	if v := q.Get("crosstalk"); v != "" {
		p.Crosstalk = &v
	}
	if err := jobs.CheckParams(&p); err != nil {
		writeError(w, err)
		return
	}
	pv, err := s.cfg.Service.Preview(r.Context(), identity(r).Owner, ps.ByName("id"), p)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, pv)
}

// envelopeFloorDb replaces silence (-Inf) and anything quieter, so the
// answer is valid JSON.
const envelopeFloorDb = -120

func (s *server) envelope(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	points := 2000
	if v := r.URL.Query().Get("points"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 10 || n > 20000 {
			writeError(w, fmt.Errorf("%w: points must be an integer from 10 to 20000, got %q", apiv1.ErrBadRequest, v))
			return
		}
		points = n
	}
	q := jobs.EnvelopeQuery{Points: points}
	for _, b := range []struct {
		name string
		v    *float64
	}{{"from", &q.From}, {"to", &q.To}} {
		v := r.URL.Query().Get(b.name)
		if v == "" {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			writeError(w, fmt.Errorf("%w: %s must be a number of seconds, 0 or more, got %q", apiv1.ErrBadRequest, b.name, v))
			return
		}
		*b.v = f
	}
	if r.URL.Query().Get("to") != "" && q.To <= q.From {
		writeError(w, fmt.Errorf("%w: to (%g s) must be after from (%g s)", apiv1.ErrBadRequest, q.To, q.From))
		return
	}
	env, err := s.cfg.Service.Envelope(r.Context(), identity(r).Owner, ps.ByName("id"), q)
	if err != nil {
		writeError(w, err)
		return
	}
	level := func(l float64) float64 {
		v := math.Round(l*100) / 100
		if math.IsNaN(v) || v < envelopeFloorDb {
			v = envelopeFloorDb
		}
		return v
	}
	out := apiv1.Envelope{Start: math.Round(env.Start*1000) / 1000, FrameSec: env.FrameSec, FloorDb: envelopeFloorDb, Levels: make([]float64, len(env.Levels)),
		NoiseFloorDb: level(env.NoiseFloorDb), SpeechLevelDb: level(env.SpeechLevelDb), ThresholdDb: level(env.ThresholdDb)}
	for i, l := range env.Levels {
		out.Levels[i] = level(float64(l))
	}
	for _, t := range env.Tracks {
		lv := make([]float64, len(t))
		for i, l := range t {
			lv[i] = level(float64(l))
		}
		out.Tracks = append(out.Tracks, lv)
	}
	writeJSON(w, http.StatusOK, out)
}
