package dsp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// raggedSource hands out its samples in reads of random lengths (whole
// frames), as a pipe does.
type raggedSource struct {
	Source
	rng *rand.Rand
}

func (r *raggedSource) Read(p []float32) (int, error) {
	ch := r.Format().Channels
	n := min(len(p)/ch, 1+r.rng.IntN(9000)) * ch
	return r.Source.Read(p[:n])
}

// TestAnalyzeMatchesWrite checks that Analyze, which spreads the work over
// goroutines (a reader, the lanes of the odd channels, the voice
// detector), returns exactly what writing the same samples to an analyzer
// on one goroutine in the same batches does: every field, to the bit. The inputs span several
// batches, mono to 6 channels, and beds loud enough for the voice network
// to run on most frames.
func TestAnalyzeMatchesWrite(t *testing.T) {
	tests := []struct {
		rate, ch int
		sec      float64
		noiseDb  float64
	}{
		{16000, 1, 12, -32},
		{44100, 2, 9, -30},
		{44100, 2, 7, -70},
		{48000, 3, 5, -34},
		{22050, 6, 7, -33},
		// A whole number of batches: the last read returns nothing.
		{48000, 1, 4 * batchFrames / 48000.0, -70},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%dHz_%dch_%gdB", tc.rate, tc.ch, tc.noiseDb), func(t *testing.T) {
			mk := func() Source { return newSpeechLike(tc.rate, tc.ch, tc.sec, -20, tc.noiseDb, 17) }
			s := mk()
			an, err := newAnalyzer(s.Format())
			if err != nil {
				t.Fatal(err)
			}
			// Written in Analyze's batches: the sums of a 10 ms frame
			// split between two writes round differently (by 1e-16).
			buf := make([]float32, batchFrames*tc.ch)
			for {
				n, err := fill(s, buf, tc.ch)
				if werr := an.Write(buf[:n]); werr != nil {
					t.Fatal(werr)
				}
				if err != nil {
					break
				}
			}
			want := an.Result(Info{Name: "x"})
			src := &raggedSource{Source: mk(), rng: rand.New(rand.NewPCG(3, 4))}
			got, err := Analyze(context.Background(), src, Info{Name: "x"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if frames := int64(tc.sec * float64(tc.rate)); frames <= batchFrames {
				t.Fatalf("%d frames: one batch, the test needs several", frames)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Analyze differs from Write (-write +analyze):\n%s", d)
			}
			if r, v := len(got.Envelope.RMSDb), len(got.Envelope.Voice); r != v {
				t.Errorf("%d envelope frames, %d voice frames", r, v)
			}
			classified := 0
			for _, v := range got.Envelope.Voice {
				if v != VoiceFloor && v != VoiceLoud {
					classified++
				}
			}
			t.Logf("%d of %d frames classified by the network", classified, len(got.Envelope.Voice))
			if tc.noiseDb > -40 && classified < len(got.Envelope.Voice)/4 {
				t.Errorf("only %d of %d frames classified: the voice network must run here", classified, len(got.Envelope.Voice))
			}
		})
	}
}

// badAt is a Source whose samples turn to NaN, or whose read fails, after
// at frames.
type badAt struct {
	Source
	at   int64
	pos  int64
	fail error // returned instead of NaN when set
}

func (b *badAt) Read(p []float32) (int, error) {
	n, err := b.Source.Read(p)
	ch := b.Format().Channels
	for i := 0; i < n; i += ch {
		if b.pos >= b.at {
			if b.fail != nil {
				return i, b.fail
			}
			p[i] = float32(math.NaN())
		}
		b.pos++
	}
	return n, err
}

// TestAnalyzeStageErrors checks that an error in any stage (bad samples
// the merge finds, a read error, a cancelled context) ends Analyze with
// that error, its goroutines stopped (go test -race and the leak of a
// blocked goroutine would show).
func TestAnalyzeStageErrors(t *testing.T) {
	readErr := errors.New("disk on fire")
	for _, tc := range []struct {
		name string
		fail error
		want error
	}{
		{"nan", nil, ErrBadSamples},
		{"read", readErr, readErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &badAt{Source: newSpeechLike(44100, 2, 10, -20, -60, 1), at: 300000, fail: tc.fail}
			_, err := Analyze(context.Background(), src, Info{}, nil)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		src := newSpeechLike(44100, 2, 60, -20, -60, 1)
		_, err := Analyze(ctx, src, Info{Frames: src.length}, func(float64) {
			if calls++; calls == 3 {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
		// The reader stopped: it did not read the whole input.
		if src.pos >= src.length {
			t.Errorf("read all %d frames after the cancel", src.pos)
		}
	})
}

// panicAt is a Source that panics after at frames, as a decoder may on a
// malformed input.
type panicAt struct {
	Source
	at, pos int64
}

func (p *panicAt) Read(b []float32) (int, error) {
	if p.pos >= p.at {
		panic("decoder bug")
	}
	n, err := p.Source.Read(b)
	p.pos += int64(n / p.Format().Channels)
	return n, err
}

// TestAnalyzeSourcePanic checks that a panic of the source, which runs on
// Analyze's reader goroutine, reaches the caller's goroutine (where a
// recover sees it, as before the stages), with the goroutines stopped.
func TestAnalyzeSourcePanic(t *testing.T) {
	var got any
	func() {
		defer func() { got = recover() }()
		Analyze(context.Background(), &panicAt{Source: newSpeechLike(44100, 2, 10, -20, -60, 1), at: 200000}, Info{}, nil)
	}()
	if got != "decoder bug" {
		t.Fatalf("recovered %v, want the source's panic", got)
	}
}
