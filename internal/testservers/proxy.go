package testservers

import (
	"errors"
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections from a loopback port to a server, and can
// cut them, as an outage of that server would: Cut closes every open
// connection and makes new ones close as soon as they are accepted, until
// Restore.
type Proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]struct{}
}

// NewProxy listens on a free loopback port and forwards to target
// ("host:port") until the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	done := make(chan struct{})
	go func() { defer close(done); p.serve() }()
	t.Cleanup(func() {
		ln.Close()
		<-done
		p.Cut()
	})
	return p
}

// Addr is the proxy's "127.0.0.1:port".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Cut closes every forwarded connection and refuses new ones (each is
// closed once accepted).
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Restore forwards new connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if errors.Is(err, net.ErrClosed) {
			return
		}
		if err != nil {
			continue
		}
		go p.forward(c)
	}
}

// forward joins c to a new connection to the target while the proxy is up.
func (p *Proxy) forward(c net.Conn) {
	if !p.track(c) {
		c.Close()
		return
	}
	s, err := net.Dial("tcp", p.target)
	if err != nil || !p.track(s) {
		c.Close()
		if s != nil {
			s.Close()
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	pipe := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		dst.Close()
		src.Close()
	}
	go pipe(s, c)
	go pipe(c, s)
	wg.Wait()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
}

// track records an open connection, or reports false while cut.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}
