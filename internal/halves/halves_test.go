package halves

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunFailureCancelsTheOther: the half that fails cancels the other,
// which sees its context done (it waits for nothing else), and Run returns
// the failure, naming its half.
func TestRunFailureCancelsTheOther(t *testing.T) {
	boom := errors.New("boom")
	for _, failing := range []int{0, 1} {
		t.Run([]string{"first fails", "second fails"}[failing], func(t *testing.T) {
			cancelled := make(chan error, 1)
			fail := func(context.Context) error { return boom }
			wait := func(ctx context.Context) error {
				<-ctx.Done() // only the other's failure ends this half
				cancelled <- ctx.Err()
				return ctx.Err()
			}
			halves := [2]func(context.Context) error{wait, wait}
			halves[failing] = fail
			err := Run(context.Background(), halves[0], halves[1])
			var he *Error
			if !errors.As(err, &he) || he.Half != failing || !errors.Is(err, boom) {
				t.Fatalf("Run = %v, want half %d's %v", err, failing, boom)
			}
			if err.Error() != boom.Error() {
				t.Errorf("message %q, want the failure's own %q", err, boom)
			}
			if got := <-cancelled; !errors.Is(got, context.Canceled) {
				t.Errorf("the other half saw %v, want context.Canceled", got)
			}
			if Cause(err) != boom {
				t.Errorf("Cause = %v, want %v", Cause(err), boom)
			}
		})
	}
}

// TestRunParentCancelled: a cancelled parent is reported as itself, not as
// the halves' failures it caused.
func TestRunParentCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	a := func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return errors.New("a: stopped")
	}
	b := func(ctx context.Context) error {
		<-started
		cancel()
		<-ctx.Done()
		return errors.New("b: stopped")
	}
	if err := Run(ctx, a, b); err != context.Canceled {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
}

func TestRunBothSucceed(t *testing.T) {
	var ran [2]bool
	err := Run(context.Background(),
		func(ctx context.Context) error { ran[0] = ctx.Err() == nil; return nil },
		func(ctx context.Context) error { ran[1] = ctx.Err() == nil; return nil })
	if err != nil || ran != [2]bool{true, true} {
		t.Fatalf("Run = %v, ran %v", err, ran)
	}
}

func TestProgress(t *testing.T) {
	var got []float64
	a, b := Progress(func(f float64) { got = append(got, f) }, 0.25)
	a(0.5) // 0.125
	b(0.5) // 0.125 + 0.375
	a(0.4) // lower: not reported
	a(1)   // 0.25 + 0.375
	b(1)   // 1
	want := []float64{0.125, 0.5, 0.625, 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
	if a, b := Progress(nil, 0.5); a != nil || b != nil {
		t.Errorf("a nil progress gives reports")
	}
}
