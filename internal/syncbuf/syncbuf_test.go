package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestBuffer writes from many goroutines while reading (go test -race
// checks the locking) and finds every write whole.
func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = b.Write([]byte("line\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("line\n", 800) {
		t.Errorf("%d bytes, want 800 whole lines", len(got))
	}
}
