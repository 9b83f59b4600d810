package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/autocut-dev/autocut/apiv1"
)

// JSONErrorListener wraps the listener of a plain-HTTP http.Server so that
// the answers net/http writes by itself, before any handler runs, are JSON
// error bodies like every other answer: 431 for a request line and headers
// over Server.MaxHeaderBytes (code headers_too_large), 400 for a malformed
// request line, header name or value, a missing or malformed Host (code
// bad_request), and the 505 (HTTP version) and 501 (transfer coding)
// net/http would send, which become 400 bad_request so that each code keeps
// its one status.
//
// net/http writes these answers in one write straight to the connection,
// with the headers "Content-Type: text/plain; charset=utf-8" then
// "Connection: close" and no Date; a response written through the server's
// buffered writer always has its headers sorted (Connection first) and a
// Date, so the wrapper recognises them exactly and passes every other
// write through unchanged. Not for TLS listeners (the server must see the
// *tls.Conn).
func JSONErrorListener(l net.Listener) net.Listener { return &jsonErrorListener{Listener: l} }

type jsonErrorListener struct{ net.Listener }

func (l *jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c}, nil
}

// jsonErrorConn rewrites net/http's plain-text protocol errors.
type jsonErrorConn struct{ net.Conn }

func (c *jsonErrorConn) Write(p []byte) (int, error) {
	if b, ok := jsonProtocolError(p); ok {
		if _, err := c.Conn.Write(b); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// ReadFrom keeps the sendfile path of *net.TCPConn for downloads.
func (c *jsonErrorConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// CloseWrite lets net/http half-close after a 431, as it does on a bare
// *net.TCPConn.
func (c *jsonErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// netHTTPErrorHeaders are the headers of net/http's own error answers.
const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// jsonProtocolError returns the JSON form of p when p is one of net/http's
// plain-text protocol error answers.
func jsonProtocolError(p []byte) ([]byte, bool) {
	const proto = "HTTP/1.1 "
	if len(p) > 1024 || !bytes.HasPrefix(p, []byte(proto)) {
		return nil, false
	}
	i := bytes.Index(p, []byte(netHTTPErrorHeaders))
	if i < 0 || i < len(proto)+3 {
		return nil, false
	}
	statusLine, body := p[len(proto):i], p[i+len(netHTTPErrorHeaders):]
	status, err := strconv.Atoi(string(statusLine[:3]))
	if err != nil || status < 400 || status > 599 || bytes.ContainsAny(statusLine, "\r\n") {
		return nil, false
	}
	var e error
	switch {
	case status == http.StatusRequestHeaderFieldsTooLarge:
		e = fmt.Errorf("%w: the request line and headers are over the server's limit", apiv1.ErrHeadersTooLarge)
	case status == http.StatusNotImplemented && string(body) == "Unsupported transfer encoding":
		e = fmt.Errorf("%w: unsupported Transfer-Encoding (only chunked is accepted)", apiv1.ErrBadRequest)
	case !bytes.HasPrefix(body, statusLine[:3]):
		return nil, false
	case status == http.StatusHTTPVersionNotSupported:
		e = fmt.Errorf("%w: unsupported HTTP version (use HTTP/1.1)", apiv1.ErrBadRequest)
	default:
		// "400 Bad Request" or "400 Bad Request: <net/http's fixed text>".
		what := "malformed request line or header"
		if _, text, ok := bytes.Cut(body, []byte(": ")); ok && len(text) > 0 {
			what = "malformed request: " + string(text)
		}
		e = fmt.Errorf("%w: %s", apiv1.ErrBadRequest, what)
	}
	status, code := statusOf(e)
	b, _ := json.Marshal(apiv1.ErrorBody{Error: e.Error(), Code: code})
	b = append(b, '\n')
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nConnection: close\r\nContent-Length: %d\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n\r\n%s",
		status, http.StatusText(status), len(b), b), true
}
