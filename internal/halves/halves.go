// Package halves runs the two halves of a job side by side: the analysis
// of a long input (dsp) and the render's measure and encode (transcode)
// each split their work in two this way.
package halves

import (
	"context"
	"errors"
	"sync"
)

// Error is the failure of one half, which cancelled the other. Its
// message is the failure's own.
type Error struct {
	Half int // 0 (the first half) or 1
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Run runs a in a goroutine of its own and b in this one, each with a
// context that is cancelled as soon as either fails, and returns when both
// have returned. The error is nil when both succeeded; the parent
// context's error when it was cancelled; else an *Error naming the half
// that failed first (the other's failure is most often the cancellation
// that one caused).
func Run(ctx context.Context, a, b func(ctx context.Context) error) error {
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	var first *Error
	run := func(half int, f func(context.Context) error) {
		if err := f(ctx); err != nil {
			once.Do(func() { first = &Error{Half: half, Err: err} })
			cancel()
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		run(0, a)
	}()
	run(1, b)
	wg.Wait()
	if first == nil {
		return nil
	}
	if err := parent.Err(); err != nil {
		return err
	}
	return first
}

// Cause returns the error a half failed with (err itself when it is not
// an *Error).
func Cause(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e.Err
	}
	return err
}

// Progress splits progress into the reports of two halves, share of the
// whole being the first half's (0..1): each half reports the fraction of
// its own work done, and progress receives their weighted sum whenever it
// rises. A nil progress gives nil reports.
func Progress(progress func(float64), share float64) (a, b func(float64)) {
	if progress == nil {
		return nil, nil
	}
	var mu sync.Mutex
	var done [2]float64
	last := 0.0
	part := func(i int) func(float64) {
		return func(f float64) {
			mu.Lock()
			defer mu.Unlock()
			done[i] = f
			if v := done[0]*share + done[1]*(1-share); v > last {
				last = v
				progress(v)
			}
		}
	}
	return part(0), part(1)
}
