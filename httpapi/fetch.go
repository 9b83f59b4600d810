package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
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
)

// fetcher downloads Form A URLs. Its transport has no proxy, and its dialer
// checks every resolved address (so also each redirect hop and every DNS
// answer) with guard before connecting.
type fetcher struct {
	client *http.Client
	max    int64
}

// dialGuard decides whether a resolved address may be dialled.
type dialGuard func(network, address string) error

// ssrfGuard refuses loopback, private, link-local (cloud metadata),
// multicast and other non-public addresses, and ports other than 80, 443,
// 8080 and 8443.
func ssrfGuard() dialGuard {
	g := ssrf.New(ssrf.WithPorts(80, 443, 8080, 8443))
	return func(network, address string) error { return g.Safe(network, address, nil) }
}

func newFetcher(guard dialGuard, max int64) *fetcher {
	d := &net.Dialer{Timeout: fetchDialTimeout, KeepAlive: 30 * time.Second}
	if guard != nil {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			if err := guard(network, address); err != nil {
				return fmt.Errorf("%w: %v", apiv1.ErrURLRefused, err)
			}
			return nil
		}
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
				return fmt.Errorf("%w: more than %d redirects", apiv1.ErrURLUnreachable, fetchMaxRedirects)
			}
			return checkURL(req.URL)
		},
	}
	return &fetcher{client: c, max: max}
}

// checkURL admits absolute http and https URLs without credentials.
func checkURL(u *url.URL) error {
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%w: scheme %q is not http or https", apiv1.ErrURLRefused, u.Scheme)
	}
	if u.Host == "" {
		return fmt.Errorf("%w: no host", apiv1.ErrURLRefused)
	}
	if u.User != nil {
		return fmt.Errorf("%w: credentials in the url", apiv1.ErrURLRefused)
	}
	return nil
}

// open starts the download of raw. The returned body enforces the byte
// limit (apiv1.ErrFileTooLarge) and an idle timeout between reads; name is the
// last path segment of the final URL.
func (f *fetcher) open(ctx context.Context, raw string) (body io.ReadCloser, name string, err error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%w: url: %v", apiv1.ErrBadRequest, err)
	}
	if err := checkURL(u); err != nil {
		return nil, "", err
	}
	ctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		cancel()
		return nil, "", fmt.Errorf("%w: url: %v", apiv1.ErrBadRequest, err)
	}
	req.Header.Set("User-Agent", "autocut/1 (+media fetch)")
	resp, err := f.client.Do(req)
	if err != nil {
		cancel()
		if errors.Is(err, apiv1.ErrURLRefused) || errors.Is(err, apiv1.ErrURLUnreachable) {
			return nil, "", err
		}
		return nil, "", fmt.Errorf("%w: %v", apiv1.ErrURLUnreachable, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, "", fmt.Errorf("%w: the server answered %s", apiv1.ErrURLUnreachable, resp.Status)
	}
	if resp.ContentLength > f.max {
		resp.Body.Close()
		cancel()
		return nil, "", fmt.Errorf("%w: %d bytes declared, limit %d", apiv1.ErrFileTooLarge, resp.ContentLength, f.max)
	}
	name = path.Base(resp.Request.URL.Path)
	if name == "/" || name == "." {
		name = ""
	}
	return &limitedBody{r: resp.Body, left: f.max, cancel: cancel, idle: fetchIdleTimeout}, name, nil
}

// limitedBody fails with apiv1.ErrFileTooLarge once more than left bytes arrive,
// and cancels the request when a single read stalls longer than idle.
type limitedBody struct {
	r      io.ReadCloser
	left   int64
	cancel context.CancelFunc
	idle   time.Duration
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, fmt.Errorf("%w: the input exceeds the limit", apiv1.ErrFileTooLarge)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	var t *time.Timer
	if b.idle > 0 {
		t = time.AfterFunc(b.idle, b.cancel)
	}
	n, err := b.r.Read(p)
	if t != nil {
		t.Stop()
	}
	if int64(n) > b.left {
		n = int(b.left) // never hand out a byte past the limit
		b.left = -1
		return n, fmt.Errorf("%w: the input exceeds the limit", apiv1.ErrFileTooLarge)
	}
	b.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		if b.idle > 0 { // a download
			err = fmt.Errorf("%w: %v", apiv1.ErrURLUnreachable, err)
		} else { // the client's upload broke off
			err = fmt.Errorf("%w: upload interrupted: %v", apiv1.ErrBadRequest, err)
		}
	}
	return n, err
}

func (b *limitedBody) Close() error {
	err := b.r.Close()
	if b.cancel != nil {
		b.cancel()
	}
	return err
}
