package transcode

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/autocut-dev/autocut/plan"
)

// onesSource is frames frames of 1.0 at rate, mono.
type onesSource struct {
	rate        int
	frames, pos int64
}

func (s *onesSource) Format() dsp.Format { return dsp.Format{SampleRate: s.rate, Channels: 1} }
func (s *onesSource) Read(p []float32) (int, error) {
	n := min(int64(len(p)), s.frames-s.pos)
	if n <= 0 {
		return 0, io.EOF
	}
	for i := range n {
		p[i] = 1
	}
	s.pos += n
	return int(n), nil
}

// TestGateSourceGain: the gate is open (gain 1) over each owned range and
// its hold, closed (-gateBleedDb) a hold and a fade away from any, and
// moves between them monotonically; ranges nearer than two fades are one
// opening; a skip keeps it aligned.
func TestGateSourceGain(t *testing.T) {
	const rate = 1000 // a frame per ms
	floor := float32(math.Pow(10, -gateBleedDb/20))
	hold, fade := int64(gateHoldMs), int64(gateFadeMs)
	for _, c := range []struct {
		name   string
		owned  []dsp.Range
		open   [][2]int64 // frames where the gain is 1
		closed [][2]int64 // frames where it is floor
	}{
		{"one range", []dsp.Range{{Start: 0.2, End: 0.3}}, [][2]int64{{200 - hold, 300 + hold}},
			[][2]int64{{0, 200 - hold - fade}, {300 + hold + fade, 1000}}},
		{"near ranges join", []dsp.Range{{Start: 0.3, End: 0.4}, {Start: 0.1, End: 0.2}, {Start: 0.2 + 2*(gateHoldMs)/1000 + 0.02, End: 0.25 + 2*gateHoldMs/1000}},
			[][2]int64{{100 - hold, 250 + 3*hold}, {300 - hold, 400 + hold}}, [][2]int64{{0, 100 - hold - fade}, {400 + hold + fade, 1000}}},
		{"none: closed throughout", nil, nil, [][2]int64{{0, 1000}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			read := func(skip int64) []float32 {
				g, err := newGateSource(&onesSource{rate: rate, frames: 1000}, c.owned)
				if err != nil {
					t.Fatal(err)
				}
				out := make([]float32, 1000)
				if _, err := g.Skip(skip); err != nil {
					t.Fatal(err)
				}
				for at := skip; at < 1000; {
					n, err := g.Read(out[at:min(at+37, 1000)])
					at += int64(n)
					if err != nil {
						break
					}
				}
				return out
			}
			x := read(0)
			for _, r := range c.open {
				for f := r[0]; f < r[1]; f++ {
					if x[f] != 1 {
						t.Fatalf("gain %v at %d ms, want 1 (open over %v)", x[f], f, r)
					}
				}
			}
			for _, r := range c.closed {
				for f := r[0]; f < r[1]; f++ {
					if x[f] != floor {
						t.Fatalf("gain %v at %d ms, want %v (closed over %v)", x[f], f, floor, r)
					}
				}
			}
			for f := 1; f < len(x); f++ {
				// A raised cosine from floor to 1 over fade frames moves by
				// (1-floor)*pi/2/fade a frame at most.
				if d, most := math.Abs(float64(x[f]-x[f-1])), float64(1-floor)*math.Pi/2/float64(fade)+1e-6; d > most {
					t.Errorf("the gain jumps by %.3f at %d ms (a ramp of %d ms moves by %.3f a ms at most)", d, f, fade, most)
				}
			}
			if diff := cmp.Diff(x[333:], read(333)[333:]); diff != "" {
				t.Errorf("after a skip the gain is not where it was (-read +skipped):\n%s", diff)
			}
		})
	}
	if _, err := newGateSource(&onesSource{rate: rate, frames: 10}, []dsp.Range{{Start: math.NaN(), End: 1}}); err == nil {
		t.Error("a NaN owned range is taken")
	}
}

// levelDb is the RMS level (dBFS) of x (ch channels) over [from, to) s.
func levelDb(x []float32, ch, rate int, from, to float64) float64 {
	var sum float64
	a, b := int(from*float64(rate))*ch, int(to*float64(rate))*ch
	for _, v := range x[a:b] {
		sum += float64(v) * float64(v)
	}
	return 10 * math.Log10(sum/float64(b-a)+1e-30)
}

// maxJump is the largest sample-to-sample step of x (ch channels).
func maxJump(x []float32, ch int) float64 {
	var m float64
	for i := ch; i < len(x); i++ {
		m = max(m, math.Abs(float64(x[i]-x[i-ch])))
	}
	return m
}

// TestRenderTracksGateBleed: two microphones, each voice (a tone) leaking
// into the other track 15 dB down and 3 ms late over a faint noise bed.
// Gated by plan.OwnedSpeech's ranges, the guest track's part of the mix
// (the mix rendered with the host track's audio silent, its analysis
// kept, so that the gains are the mix's) is gateBleedDb lower in the
// host's turns and within 0.5 dB in the guest's own; no step of the mix,
// nor of the guest's part, is larger than without the gate (no click).
func TestRenderTracksGateBleed(t *testing.T) {
	ctx := context.Background()
	const rate, sec, bleedDb = 48000, 12.0, 15.0
	bleed := math.Pow(10, -bleedDb/20)
	host := "0.3*sin(2*PI*440*t)*(between(t,0.5,3.5)+between(t,8,10.5))"
	guest := "0.1*sin(2*PI*660*t)*between(t,4.5,7.5)"
	late := func(e string) string { return fmt.Sprintf("%g*(%s)", bleed, replaceT(e, "(t-0.003)")) }
	bed := func(seed int) string { return fmt.Sprintf("0.0005*(2*random(%d)-1)", seed) }
	src := func(e string) []string {
		return []string{"-f", "lavfi", "-i", fmt.Sprintf("aevalsrc='%s':s=%d:d=%g", e, rate, sec)}
	}
	hostWav := gen(t, "host.wav", append(src(host+"+"+late(guest)+"+"+bed(0)), "-c:a", "pcm_f32le")...)
	guestWav := gen(t, "guest.wav", append(src(guest+"+"+late(host)+"+"+bed(1)), "-c:a", "pcm_f32le")...)
	silent := gen(t, "silent.wav", append(src("0"), "-c:a", "pcm_f32le")...)

	tracks := analyzeTracks(t, []dsp.TrackRef{{Path: hostWav, Channel: -1}, {Path: guestWav, Channel: -1}})
	as := []*dsp.Analysis{tracks[0].Analysis, tracks[1].Analysis}
	owned, err := plan.OwnedSpeech(as, plan.DefaultPreset().Params)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("owned: host %v, guest %v", owned[0], owned[1])
	p := planOf(sec, dsp.Range{Start: 0, End: sec}) // all kept: the output's time is the input's
	o := Options{Format: "wav", Normalize: "none"}
	render := func(name string, gate, hostSilent bool) []float32 {
		tr := make([]Track, len(tracks))
		copy(tr, tracks)
		for k := range tr {
			tr[k].Gate, tr[k].Owned = gate, owned[k]
		}
		if hostSilent {
			tr[0].Ref.Path = silent
		}
		out := filepath.Join(t.TempDir(), name+".wav")
		if _, err := RenderTracks(ctx, tr, p, o, out, nil); err != nil {
			t.Fatal(err)
		}
		x, _ := readAll(t, out)
		return x
	}
	open, gated := render("open", false, true), render("gated", true, true)
	mixOpen, mixGated := render("mix-open", false, false), render("mix-gated", true, false)

	// Away from the turns' edges by the hold, the fade and the bleed's delay.
	margin := (gateHoldMs+gateFadeMs)/1000 + 0.05
	hostTurns := []dsp.Range{{Start: 0.5 + margin, End: 3.5 - margin}, {Start: 8 + margin, End: 10.5 - margin}}
	guestTurn := dsp.Range{Start: 4.5, End: 7.5}
	for _, r := range hostTurns {
		before, after := levelDb(open, 1, rate, r.Start, r.End), levelDb(gated, 1, rate, r.Start, r.End)
		t.Logf("host's turn %.2f-%.2f s: the guest track's bleed in the mix %.1f dBFS open, %.1f gated (%.1f dB)", r.Start, r.End, before, after, after-before)
		if after-before > -gateBleedDb+0.5 {
			t.Errorf("host's turn %v: the bleed is %.1f dB down with the gate, want %.0f", r, before-after, gateBleedDb)
		}
		mb, ma := levelDb(mixOpen, 1, rate, r.Start, r.End), levelDb(mixGated, 1, rate, r.Start, r.End)
		t.Logf("  the whole mix: %.2f dBFS open, %.2f gated", mb, ma)
	}
	before, after := levelDb(open, 1, rate, guestTurn.Start, guestTurn.End), levelDb(gated, 1, rate, guestTurn.Start, guestTurn.End)
	t.Logf("guest's own turn: %.2f dBFS open, %.2f gated (%+.2f dB)", before, after, after-before)
	if math.Abs(after-before) > 0.5 {
		t.Errorf("the guest's own speech moved by %+.2f dB with the gate, want within 0.5", after-before)
	}
	for _, c := range []struct {
		name        string
		open, gated []float32
	}{{"the guest's part", open, gated}, {"the mix", mixOpen, mixGated}} {
		jo, jg := maxJump(c.open, 1), maxJump(c.gated, 1)
		t.Logf("%s: largest step %.4f open, %.4f gated", c.name, jo, jg)
		if jg > jo*1.01 {
			t.Errorf("%s: a step of %.4f with the gate, %.4f without: the gate clicks", c.name, jg, jo)
		}
	}
}

// replaceT puts at for every t (a variable of its own) in an aevalsrc
// expression.
func replaceT(e, at string) string {
	var out []byte
	for i := 0; i < len(e); i++ {
		isVar := e[i] == 't' && (i == 0 || !isIdent(e[i-1])) && (i+1 == len(e) || !isIdent(e[i+1]))
		if isVar {
			out = append(out, at...)
			continue
		}
		out = append(out, e[i])
	}
	return string(out)
}

func isIdent(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
