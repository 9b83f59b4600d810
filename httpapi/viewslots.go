package httpapi

import (
	"context"
	"sync"
)

// DefaultMaxViewsPerKey is how many requests that carry a whole job (GET
// of a job, the list, PATCH) one key has served at once; more wait their
// turn. A job with the largest cut list costs about 15 MB to read, encode
// and answer: the cap bounds what one key makes the server hold, whatever
// the number of its connections, and leaves the other keys' polls alone.
const DefaultMaxViewsPerKey = 4

// viewSlots lets each owner run up to max job views at once; the others
// wait (not refused: polls of a busy key are slower, not failed).
type viewSlots struct {
	max int // <= 0: no cap
	mu  sync.Mutex
	sem map[string]*ownerSem
}

// ownerSem is one owner's slots and how many requests hold or wait for one.
type ownerSem struct {
	ch    chan struct{}
	users int
}

func newViewSlots(max int) *viewSlots {
	if max == 0 {
		max = DefaultMaxViewsPerKey
	}
	return &viewSlots{max: max, sem: make(map[string]*ownerSem)}
}

// acquire waits for a slot of owner (or for the end of ctx, ctx's error);
// release gives it back.
func (v *viewSlots) acquire(ctx context.Context, owner string) (release func(), err error) {
	if v.max < 0 {
		return func() {}, nil
	}
	v.mu.Lock()
	s := v.sem[owner]
	if s == nil {
		s = &ownerSem{ch: make(chan struct{}, v.max)}
		v.sem[owner] = s
	}
	s.users++
	v.mu.Unlock()
	done := func() {
		v.mu.Lock()
		if s.users--; s.users == 0 {
			delete(v.sem, owner)
		}
		v.mu.Unlock()
	}
	select {
	case s.ch <- struct{}{}:
	case <-ctx.Done():
		done()
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-s.ch
			done()
		})
	}, nil
}
