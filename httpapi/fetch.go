package httpapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"

	"github.com/autocut-dev/autocut/apiv1"
)

// Timeouts and limits of Form A downloads.
const (
	fetchDialTimeout   = 10 * time.Second
	fetchHeaderTimeout = 30 * time.Second
	fetchIdleTimeout   = 60 * time.Second // longest pause between body reads
	fetchMaxRedirects  = 5

	// DefaultFetchTimeout bounds a whole Form A download: connection,
	// headers and body.
	DefaultFetchTimeout = time.Hour
	// DefaultFetchMinRate is the lowest average rate (bytes per second) of
	// a Form A download, measured from the request once
	// DefaultFetchRateGrace has passed.
	DefaultFetchMinRate = 16 << 10
	// DefaultFetchRateGrace is how long a download may stay under the
	// minimum rate before it is judged by it (slow starts, small files).
	DefaultFetchRateGrace = 30 * time.Second
)

// DefaultURLPorts returns the ports Form A downloads from unless
// Config.URLPorts says otherwise: 80, 443, 8080 and 8443.
func DefaultURLPorts() []uint16 { return []uint16{80, 443, 8080, 8443} }

// fetcher downloads Form A URLs. Its transport has no proxy, and its dialer
// checks every resolved address (so also each redirect hop and every DNS
// answer) with guard before connecting.
type fetcher struct {
	client  *http.Client
	max     int64
	timeout time.Duration // whole download; 0: none
	minRate int64         // bytes/s after grace; 0: none
	grace   time.Duration
	ports   []uint16 // allowed ports, for messages
}

// dialGuard decides whether a resolved address may be dialled.
type dialGuard func(network, address string) error

// ssrfGuard refuses loopback, private, link-local (cloud metadata),
// multicast and other non-public addresses, and ports other than ports
// (nil: DefaultURLPorts). allowPrivate admits the private and loopback
// ranges and nothing else.
func ssrfGuard(allowPrivate bool, ports []uint16) dialGuard {
	if len(ports) == 0 {
		ports = DefaultURLPorts()
	}
	opts := []ssrf.Option{ssrf.WithPorts(ports...)}
	if allowPrivate {
		// RFC 1918 private networks, loopback and IPv6 unique-local
		// addresses. Link-local (cloud metadata at 169.254.169.254),
		// "this network", shared (CGNAT), multicast, reserved and
		// documentation ranges stay refused.
		opts = append(opts,
			ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("172.16.0.0/12"),
				netip.MustParsePrefix("192.168.0.0/16"), netip.MustParsePrefix("127.0.0.0/8")),
			ssrf.WithAllowedV6Prefixes(netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("fc00::/7")))
	}
	g := ssrf.New(opts...)
	return func(network, address string) error { return g.Safe(network, address, nil) }
}

// newFetcher builds the Form A downloader from the handler's config.
func newFetcher(cfg Config) *fetcher {
	ports := cfg.URLPorts
	if len(ports) == 0 {
		ports = DefaultURLPorts()
	}
	guard := cfg.guard
	if guard == nil {
		guard = ssrfGuard(cfg.AllowPrivateURLs, ports)
	}
	d := &net.Dialer{Timeout: fetchDialTimeout, KeepAlive: 30 * time.Second, Resolver: cfg.resolver}
	d.Control = func(network, address string, _ syscall.RawConn) error {
		if err := guard(network, address); err != nil {
			return &guardError{err: err}
		}
		return nil
	}
	tr := &http.Transport{
		Proxy:                  nil, // never from the environment
		DialContext:            d.DialContext,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  fetchHeaderTimeout,
		MaxIdleConns:           10,
		IdleConnTimeout:        30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	c := &http.Client{
		Transport: tr,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= fetchMaxRedirects {
				return &fetchError{code: apiv1.ErrURLUnreachable, msg: fmt.Sprintf("more than %d redirects", fetchMaxRedirects)}
			}
			return checkURL(req.URL)
		},
	}
	f := &fetcher{client: c, max: cfg.MaxUploadBytes, timeout: cfg.FetchTimeout, minRate: cfg.FetchMinRate, grace: cfg.fetchRateGrace, ports: ports}
	switch {
	case f.timeout == 0:
		f.timeout = DefaultFetchTimeout
	case f.timeout < 0:
		f.timeout = 0
	}
	switch {
	case f.minRate == 0:
		f.minRate = DefaultFetchMinRate
	case f.minRate < 0:
		f.minRate = 0
	}
	if f.grace <= 0 {
		f.grace = DefaultFetchRateGrace
	}
	return f
}

// guardError is the dial guard's refusal: its text names the resolved
// address, which only the server log may show.
type guardError struct{ err error }

func (e *guardError) Error() string { return e.err.Error() }
func (e *guardError) Unwrap() error { return e.err }

// fetchError is a failed Form A download: msg is written for the client
// (no resolver address, no resolved IP, no fetched bytes), cause is the
// detail for the server log. Its code is that of code (an apiv1 sentinel).
type fetchError struct {
	code  error
	msg   string
	cause error
}

func (e *fetchError) Error() string { return e.code.Error() + ": " + e.msg }

// Unwrap gives the sentinel only: the cause's text and codes never reach
// the client through this error.
func (e *fetchError) Unwrap() error { return e.code }

// detail is the text for the server log.
func (e *fetchError) detail() string {
	if e.cause == nil {
		return e.Error()
	}
	return e.Error() + ": " + e.cause.Error()
}

// checkURL admits absolute http and https URLs without credentials.
func checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return &fetchError{code: apiv1.ErrURLRefused, msg: fmt.Sprintf("scheme %q is not http or https", u.Scheme)}
	}
	if u.Host == "" {
		return &fetchError{code: apiv1.ErrURLRefused, msg: "no host"}
	}
	if u.User != nil {
		return &fetchError{code: apiv1.ErrURLRefused, msg: "credentials in the url"}
	}
	return nil
}

// errFetchTimeout and errFetchTooSlow are the causes a download is
// cancelled with.
var (
	errFetchTimeout = errors.New("download deadline")
	errFetchTooSlow = errors.New("download too slow")
	errFetchIdle    = errors.New("download stalled")
)

// open starts the download of raw. The returned body enforces the byte
// limit (apiv1.ErrFileTooLarge), the whole download's deadline, the
// minimum average rate after the grace period and an idle timeout between
// reads; name is the last path segment of the final URL. Every error is a
// *fetchError (or wraps apiv1.ErrFileTooLarge).
func (f *fetcher) open(ctx context.Context, raw string) (body io.ReadCloser, name string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", &fetchError{code: apiv1.ErrBadRequest, msg: "url: not a valid URL", cause: err}
	}
	if err := checkURL(u); err != nil {
		return nil, "", err
	}
	start := time.Now()
	ctx, cancel := context.WithCancelCause(ctx)
	var stopTimer func() bool
	if f.timeout > 0 {
		stopTimer = time.AfterFunc(f.timeout, func() { cancel(errFetchTimeout) }).Stop
	}
	done := func() {
		if stopTimer != nil {
			stopTimer()
		}
		cancel(nil)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		done()
		return nil, "", &fetchError{code: apiv1.ErrBadRequest, msg: "url: not a valid URL", cause: err}
	}
	req.Header.Set("User-Agent", "autocut/1 (+media fetch)")
	resp, err := f.client.Do(req)
	if err != nil {
		err = f.classify(ctx, err)
		done()
		return nil, "", err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		done()
		return nil, "", &fetchError{code: apiv1.ErrURLUnreachable, msg: fmt.Sprintf("the server answered %s", resp.Status)}
	}
	if resp.ContentLength > f.max {
		resp.Body.Close()
		done()
		return nil, "", fmt.Errorf("%w: %d bytes declared, limit %d", apiv1.ErrFileTooLarge, resp.ContentLength, f.max)
	}
	name = path.Base(resp.Request.URL.Path)
	if name == "/" || name == "." {
		name = ""
	}
	return &fetchBody{f: f, ctx: ctx, r: resp.Body, left: f.max, cancel: cancel, done: done, start: start, size: max(resp.ContentLength, 0)}, name, nil
}

// withoutQuery is a URL for the log: without its query and fragment,
// which may hold secrets ("?…" says there was a query).
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			return raw[:i] + "?…"
		}
		return raw
	}
	had := u.RawQuery != "" || u.Fragment != "" || u.ForceQuery
	u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery, u.User = "", "", "", false, nil
	if had {
		return u.String() + "?…"
	}
	return u.String()
}

// classify turns a failed download into a *fetchError whose message says
// what went wrong without the resolver's address, the resolved IPs or the
// transport's text.
func (f *fetcher) classify(ctx context.Context, err error) error {
	// The transport's error names the URL of the request that failed: its
	// query (a signed URL's signature, a token) stays out of the log.
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		ue.URL = withoutQuery(ue.URL)
	}
	var fe *fetchError
	if errors.As(err, &fe) {
		if fe.cause == nil {
			fe.cause = err
		}
		return fe
	}
	wrap := func(code error, msg string) error { return &fetchError{code: code, msg: msg, cause: err} }
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errFetchTimeout):
		return wrap(apiv1.ErrURLUnreachable, fmt.Sprintf("the download did not finish within %s", f.timeout))
	case errors.Is(cause, errFetchTooSlow):
		return wrap(apiv1.ErrURLUnreachable, fmt.Sprintf("the server sent the file slower than %s/s", sizeWords(f.minRate)))
	case errors.Is(cause, errFetchIdle):
		return wrap(apiv1.ErrURLUnreachable, fmt.Sprintf("the server sent nothing for %s", fetchIdleTimeout))
	case ctx.Err() != nil:
		return wrap(apiv1.ErrBadRequest, "the request was cancelled")
	}
	var ge *guardError
	if errors.As(err, &ge) {
		if errors.Is(err, ssrf.ErrProhibitedPort) {
			return wrap(apiv1.ErrURLRefused, "the port is not allowed (allowed: "+portList(f.ports)+")")
		}
		return wrap(apiv1.ErrURLRefused, "the host is not a public address this server may download from")
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var recordErr tls.RecordHeaderError
	var netErr net.Error
	switch {
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return wrap(apiv1.ErrURLUnreachable, "the host name does not resolve")
		}
		return wrap(apiv1.ErrURLUnreachable, "the host name could not be resolved")
	case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr):
		return wrap(apiv1.ErrURLUnreachable, "the server's TLS certificate is not valid for this host")
	case errors.As(err, &recordErr):
		return wrap(apiv1.ErrURLUnreachable, "the server does not speak TLS")
	case errors.Is(err, syscall.ECONNREFUSED):
		return wrap(apiv1.ErrURLUnreachable, "the server refused the connection")
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return wrap(apiv1.ErrURLUnreachable, "the server closed the connection")
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return wrap(apiv1.ErrURLUnreachable, "the host cannot be reached")
	case errors.As(err, &netErr) && netErr.Timeout():
		return wrap(apiv1.ErrURLUnreachable, "the server did not answer in time")
	}
	return wrap(apiv1.ErrURLUnreachable, "the download failed")
}

// portList names the allowed ports for a refusal.
func portList(ports []uint16) string {
	s := make([]string, len(ports))
	for i, p := range ports {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ", ")
}

// fetchBody is a download's body: it fails with apiv1.ErrFileTooLarge
// once more than left bytes arrive, and with a *fetchError when a read
// stalls longer than fetchIdleTimeout, the whole download outlasts its
// deadline, or the average rate since the request is under minRate once
// the grace period is over.
type fetchBody struct {
	f      *fetcher
	ctx    context.Context
	r      io.ReadCloser
	left   int64
	got    int64
	cancel context.CancelCauseFunc
	done   func()
	start  time.Time
	size   int64 // the length the origin declared, 0 when unknown
}

// Size returns the length the origin declared (0 when unknown).
func (b *fetchBody) Size() int64 { return b.size }

func (b *fetchBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("%w: the input exceeds the limit", apiv1.ErrFileTooLarge)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	// The read must end before the idle limit, and before the moment the
	// average rate would fall under the minimum.
	wait, cause := fetchIdleTimeout, errFetchIdle
	if b.f.minRate > 0 {
		due := max(b.f.grace, time.Duration(float64(b.got)/float64(b.f.minRate)*float64(time.Second)))
		if d := due - time.Since(b.start); d < wait {
			wait, cause = max(d, 0), errFetchTooSlow
		}
	}
	t := time.AfterFunc(wait, func() { b.cancel(cause) })
	n, err := b.r.Read(p)
	t.Stop()
	b.got += int64(n)
	if int64(n) > b.left {
		n = int(b.left) // never hand out a byte past the limit
		b.left = -1
		return n, fmt.Errorf("%w: the input exceeds the limit", apiv1.ErrFileTooLarge)
	}
	b.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		err = b.f.classify(b.ctx, err)
	}
	return n, err
}

func (b *fetchBody) Close() error {
	err := b.r.Close()
	b.done()
	return err
}

// limitedBody is an upload's body: it fails with apiv1.ErrFileTooLarge
// once more than left bytes arrive, and with a request timeout when the
// client sends nothing for idle (see uploadBody).
type limitedBody struct {
	r    io.Reader
	left int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("%w: the input exceeds the limit", apiv1.ErrFileTooLarge)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	if int64(n) > b.left {
		n = int(b.left) // never hand out a byte past the limit
		b.left = -1
		return n, fmt.Errorf("%w: the input exceeds the limit", apiv1.ErrFileTooLarge)
	}
	b.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, apiv1.ErrRequestTimeout) {
		err = fmt.Errorf("%w: upload interrupted", apiv1.ErrBadRequest)
	}
	return n, err
}

// isTimeout reports a read deadline's error.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
