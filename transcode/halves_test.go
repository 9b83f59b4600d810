package transcode

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/autocut-dev/autocut/dsp"
	"github.com/google/go-cmp/cmp"
)

// speechLoop returns about sec seconds of real speech (the Allison
// recording, looped) at rate and ch channels, in memory.
func speechLoop(t *testing.T, rate, ch, sec int) []float32 {
	t.Helper()
	in := gen(t, "loop.wav", "-stream_loop", "-1", "-i", recording("en_asterisk_allison_demo-instruct_73s.wav"),
		"-t", strconv.Itoa(sec), "-ar", strconv.Itoa(rate), "-ac", strconv.Itoa(ch), "-c:a", "pcm_f32le")
	x, f := readAll(t, in)
	if f.SampleRate != rate || f.Channels != ch {
		t.Fatalf("format %+v", f)
	}
	return x
}

// sliceHalves returns a halfSource over x; offB is added to what a window
// starting past 0 yields (0: the same samples).
func sliceHalves(x []float32, f dsp.Format, offB float32) halfSource {
	return func(ctx context.Context, from, to int64) (dsp.Source, func(), error) {
		end := int64(len(x) / f.Channels)
		if to >= 0 {
			end = min(end, to)
		}
		part := x[from*int64(f.Channels) : end*int64(f.Channels)]
		if from > 0 && offB != 0 {
			part = append([]float32(nil), part...)
			for i := range part {
				part[i] += offB
			}
		}
		return &sliceSource{f: f, x: part, max: 4096}, func() {}, nil
	}
}

// decodeMP3 decodes path with ffmpeg to interleaved float samples,
// failing on any message ffmpeg's decoder prints.
func decodeMP3(t *testing.T, path string, ch int) []float32 {
	t.Helper()
	cmd := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-ac", strconv.Itoa(ch), "-")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("ffmpeg decoding %s: %v: %s", filepath.Base(path), err, stderr.String())
	}
	b := out.Bytes()
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}

// errEnergy returns the energy of y - x over frames [from, to).
func errEnergy(x, y []float32, ch int, from, to int64) float64 {
	e := 0.0
	for i := from * int64(ch); i < to*int64(ch); i++ {
		d := float64(y[i] - x[i])
		e += d * d
	}
	return e
}

func TestMP3HalvesStitch(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed")
	}
	cases := []struct {
		format   string
		rate, ch int
	}{
		{"mp3", 44100, 2},
		{"mp3", 48000, 1},
		{"mp3_320", 32000, 2},
	}
	for _, c := range cases {
		t.Run(c.format+"/"+strconv.Itoa(c.rate)+"/"+strconv.Itoa(c.ch), func(t *testing.T) {
			f := dsp.Format{SampleRate: c.rate, Channels: c.ch}
			x := speechLoop(t, c.rate, c.ch, 95)
			total := int64(len(x) / c.ch)
			info := dsp.Info{SampleRate: c.rate, Channels: c.ch}
			o := Options{Format: c.format}
			dir := t.TempDir()
			halves := filepath.Join(dir, "halves.mp3")
			if err := os.WriteFile(halves, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			var last float64
			frames, stitch, err := encodeMP3Halves(context.Background(), sliceHalves(x, f, 0), info, o, halves, total, func(p float64) {
				if p < last {
					t.Errorf("progress went back from %.3f to %.3f", last, p)
				}
				last = p
			})
			if err != nil {
				t.Fatal(err)
			}
			if frames != total || last != 1 {
				t.Fatalf("%d frames of %d, progress %.3f", frames, total, last)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*half*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			one := filepath.Join(dir, "one.mp3")
			if err := encodeFFmpeg(context.Background(), &sliceSource{f: f, x: x}, "", info, nil, o, output{path: one}); err != nil {
				t.Fatal(err)
			}

			// The file is one valid stream: its Info frame counts its frames,
			// and ffmpeg and go-mp3 decode exactly the samples encoded.
			m, err := scanMP3(halves, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if lay := infoLayout(m.info); lay.lame < 0 || int(binary.BigEndian.Uint32(m.info[lay.frames:])) != m.frames {
				t.Errorf("Info frame: LAME tag at %d, %d frames counted for %d", lay.lame, binary.BigEndian.Uint32(m.info[lay.frames:]), m.frames)
			}
			if d, err := probeDuration(context.Background(), o, halves); err != nil || math.Abs(d-float64(total)/float64(c.rate)) > 1e-6 {
				t.Errorf("gapless duration: %.6f s (%v), encoded %.6f s", d, err, float64(total)/float64(c.rate))
			}
			y := decodeMP3(t, halves, c.ch)
			z := decodeMP3(t, one, c.ch)
			if len(y) != len(x) || len(z) != len(x) {
				t.Fatalf("decoded %d and %d samples, encoded %d", len(y), len(z), len(x))
			}
			st, err := dsp.NativeDecoder{}.Open(context.Background(), halves)
			if err != nil {
				t.Fatal(err)
			}
			nat := readSource(t, st, 8192)
			st.Close()
			if len(nat) != len(x) {
				t.Errorf("go-mp3 decoded %d samples, encoded %d", len(nat), len(x))
			}

			// Around the stitch (with the encoder's delay of 576 and the
			// granules' overlap) the coding error is that of one piece.
			at := int64(stitch)*1152 - 576
			near := [2]int64{at - 2304, at + 2304}
			eh, e1 := errEnergy(x, y, c.ch, near[0], near[1]), errEnergy(x, z, c.ch, near[0], near[1])
			sig := errEnergy(make([]float32, len(x)), x, c.ch, near[0], near[1])
			allH, all1 := errEnergy(x, y, c.ch, 0, total), errEnergy(x, z, c.ch, 0, total)
			sigAll := errEnergy(make([]float32, len(x)), x, c.ch, 0, total)
			t.Logf("stitch at frame %d (%.2f s): signal %.1f dB, error %.1f dB (one piece %.1f dB); whole file SNR %.2f dB (one piece %.2f dB); %d and %d bytes",
				stitch, float64(at)/float64(c.rate), 10*math.Log10(sig), 10*math.Log10(eh), 10*math.Log10(e1),
				10*math.Log10(sigAll/allH), 10*math.Log10(sigAll/all1), fileSize(t, halves), fileSize(t, one))
			if eh > 4*e1+1e-9 {
				t.Errorf("error around the stitch %.1f dB, one piece %.1f dB", 10*math.Log10(eh), 10*math.Log10(e1))
			}
			if math.Abs(10*math.Log10(allH/all1)) > 0.5 {
				t.Errorf("whole-file SNR %.2f dB, one piece %.2f dB", 10*math.Log10(sigAll/allH), 10*math.Log10(sigAll/all1))
			}
			// No granule of the file is much worse than the one-piece encode's.
			for g := int64(0); g+576 <= total; g += 576 {
				gh, g1 := errEnergy(x, y, c.ch, g, g+576), errEnergy(x, z, c.ch, g, g+576)
				if gh > 8*g1+1e-7 {
					t.Errorf("granule at %.3f s: error %.1f dB, one piece %.1f dB", float64(g)/float64(c.rate), 10*math.Log10(gh), 10*math.Log10(g1))
				}
			}
		})
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestMP3HalvesNeedSameSamples: when the second chain's samples are not the
// first's (here 2e-6 over them), no candidate fits and the caller is told
// to encode in one piece; a failing encoder is an error of its own.
func TestMP3HalvesNeedSameSamples(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed")
	}
	f := dsp.Format{SampleRate: 44100, Channels: 2}
	x := speechLoop(t, 44100, 2, 70)
	info := dsp.Info{SampleRate: 44100, Channels: 2}
	dir := t.TempDir()
	out := filepath.Join(dir, "o.mp3")
	_, _, err := encodeMP3Halves(context.Background(), sliceHalves(x, f, 2e-6), info, Options{Format: "mp3"}, out, int64(len(x)/2), nil)
	if !errors.Is(err, errNoStitch) {
		t.Errorf("err = %v, want errNoStitch", err)
	}
	_, _, err = encodeMP3Halves(context.Background(), sliceHalves(x, f, 0), info, Options{Format: "mp3", FFmpeg: "false"}, out, int64(len(x)/2), nil)
	if err == nil || errors.Is(err, errNoStitch) || !strings.Contains(err.Error(), "ffmpeg") {
		t.Errorf("err = %v, want ffmpeg's failure", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*half*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestRenderMP3InHalves renders real speech (90 s, 44.1 kHz stereo, cut,
// podcast loudness, rumble filter) to MP3 in halves and in one piece
// (GOMAXPROCS 1): both meet the loudness target and true-peak ceiling as
// ffmpeg measures them, last as long as the plan, and progress only rises.
func TestRenderMP3InHalves(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed")
	}
	in := gen(t, "in.wav", "-stream_loop", "-1", "-i", recording("en_asterisk_allison_demo-instruct_73s.wav"),
		"-t", "90", "-ar", "44100", "-ac", "2", "-c:a", "pcm_s16le")
	a := analyze(t, in)
	p := planOf(90, dsp.Range{Start: 0.5, End: 30}, dsp.Range{Start: 31.25, End: 70.1}, dsp.Range{Start: 71, End: 89.5})
	want, _ := normalizationOf("podcast")
	var outs [2][]byte
	for i, procs := range []int{runtime.GOMAXPROCS(0), 1} {
		if procs < 2 {
			if i == 0 {
				t.Skip("one core: no halves")
			}
		}
		prev := runtime.GOMAXPROCS(procs)
		out := filepath.Join(t.TempDir(), "o.mp3")
		var seen []float64
		res, err := Render(context.Background(), in, a, p, Options{Format: "mp3", Normalize: "podcast", Rumble: true}, out, func(f float64) { seen = append(seen, f) })
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		li, tp := ebur128(t, out)
		t.Logf("GOMAXPROCS %d: I %.2f LUFS (target %.0f), TP %.2f dBTP, %.4f s (plan %.4f s)", procs, li, want, tp, res.Duration, p.Stats.FinalSec)
		if math.Abs(li-want) > 0.5 || tp > -1 || math.Abs(res.Duration-p.Stats.FinalSec) > 0.001 {
			t.Errorf("GOMAXPROCS %d: I %.2f LUFS, TP %.2f dBTP, %.4f s", procs, li, tp, res.Duration)
		}
		for j := 1; j < len(seen); j++ {
			if seen[j] < seen[j-1] {
				t.Fatalf("progress went back: %v", seen)
			}
		}
		if len(seen) == 0 || seen[len(seen)-1] != 1 {
			t.Errorf("progress ended at %v", seen[max(0, len(seen)-1):])
		}
		if outs[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if bytes.Equal(outs[0], outs[1]) {
		t.Error("the render in halves wrote the one-piece file")
	}
}

// TestStitchMP3WithItself: a file stitched with itself (d = 0) anywhere it
// may be is the file again, byte for byte: the kept frames, the reservoir
// bytes moved, and every field of the Info frame rebuilt (frame and byte
// counts, seek table, padding, music length, both CRCs) as ffmpeg wrote them.
func TestStitchMP3WithItself(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed")
	}
	for _, ch := range []string{"1", "2"} {
		in := gen(t, "in"+ch+".mp3", "-i", recording("en_asterisk_allison_demo-instruct_73s.wav"), "-t", "20",
			"-ar", "44100", "-ac", ch, "-c:a", "libmp3lame", "-q:a", "2")
		orig, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		all, err := scanMP3(in, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		m, err := scanMP3(in, 0, all.frames)
		if err != nil {
			t.Fatal(err)
		}
		tried := 0
		for c := 20; c < m.frames-1 && tried < 12; c += 37 {
			if !stitchable(m, m, c, 0) {
				continue
			}
			tried++
			out := filepath.Join(t.TempDir(), "o.mp3")
			f, err := os.Create(out)
			if err != nil {
				t.Fatal(err)
			}
			n, err := stitchMP3(f, m, m, c, 0)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(out)
			// The tag's CRC must check (the seek table below may change it).
			if l := infoLayout(m.info).lame; l >= 0 && len(got) > int(m.id3)+l+36 {
				at := int(m.id3) + l + 34
				if binary.BigEndian.Uint16(got[at:]) != lameTagCRC(got[m.id3:], l) {
					t.Errorf("%s channels, stitch at %d: the LAME tag's CRC does not check", ch, c)
				}
				got[at], got[at+1] = orig[at], orig[at+1]
			}
			// The seek table (and so the CRC): ffmpeg samples the frame positions every few
			// frames, stitchMP3 takes the exact ones: they may differ a little.
			toc := int(m.id3) + infoLayout(m.info).toc
			for i := toc; i < toc+100 && i < len(got); i++ {
				if d := int(got[i]) - int(orig[i]); d < -2 || d > 2 {
					t.Errorf("%s channels, stitch at %d: seek table entry %d: %d, ffmpeg wrote %d", ch, c, i-toc, got[i], orig[i])
				}
				got[i] = orig[i]
			}
			if n != int64(len(got)) || !bytes.Equal(got, orig) {
				i := 0
				for i < min(len(got), len(orig)) && got[i] == orig[i] {
					i++
				}
				t.Fatalf("%s channels, stitch at %d: %d bytes (said %d), the input's %d; first difference at byte %d", ch, c, len(got), n, len(orig), i)
			}
		}
		if tried < 5 {
			t.Errorf("%s channels: only %d stitch points in %d frames", ch, tried, m.frames)
		}
	}
}

// FuzzScanMP3 feeds the frame walk and the stitch checks arbitrary files:
// they fail or succeed, never panic, and a stitch of a file with itself
// stays within its bytes.
func FuzzScanMP3(f *testing.F) {
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		for _, args := range [][]string{
			{"-f", "lavfi", "-i", "sine=d=0.5", "-ac", "2", "-c:a", "libmp3lame", "-q:a", "2"},
			{"-f", "lavfi", "-i", "sine=d=0.5:sample_rate=32000", "-c:a", "libmp3lame", "-b:a", "32k"},
		} {
			p := gen(f, "seed.mp3", args...)
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte("ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in.mp3")
		if err := os.WriteFile(in, b, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := scanMP3(in, 0, 64)
		if err != nil {
			if !errors.Is(err, errNoStitch) {
				t.Fatalf("error %v is not errNoStitch", err)
			}
			return
		}
		infoLayout(m.info)
		for c := 1; c < min(m.frames, 63); c++ {
			if !stitchable(m, m, c, 0) {
				continue
			}
			f, err := os.Create(filepath.Join(dir, "o.mp3"))
			if err != nil {
				t.Fatal(err)
			}
			n, err := stitchMP3(f, m, m, c, 0)
			f.Close()
			if err == nil && n != m.end {
				t.Fatalf("stitched %d bytes of %d", n, m.end)
			}
		}
	})
}

// TestMP3HalvesCancelled: cancelling mid-encode stops both encoders and
// leaves no temporary file.
func TestMP3HalvesCancelled(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed")
	}
	f := dsp.Format{SampleRate: 44100, Channels: 2}
	x := speechLoop(t, 44100, 2, 70)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, _, err := encodeMP3Halves(ctx, sliceHalves(x, f, 0), dsp.Info{SampleRate: 44100, Channels: 2}, Options{Format: "mp3"},
		filepath.Join(dir, "o.mp3"), int64(len(x)/2), func(p float64) {
			if p > 0.3 {
				cancel()
			}
		})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
		t.Errorf("files left: %v", left)
	}
}

// TestKeepWindow: a window of the keep stage gives the same frames as the
// whole output cut to it, fades included, whether the input skips by
// reading (a slice) or without converting (a WAV file, dsp.Skip).
func TestKeepWindow(t *testing.T) {
	const rate, ch = 8000, 2
	x := make([]float32, 10*rate*ch)
	for i := range x {
		x[i] = float32(math.Sin(float64(i) * 0.001))
	}
	f := dsp.Format{SampleRate: rate, Channels: ch}
	wav := filepath.Join(t.TempDir(), "x.wav")
	var b bytes.Buffer
	ww, err := newWAVWriter(&b, f, 16, int64(len(x)/ch))
	if err != nil {
		t.Fatal(err)
	}
	if err := ww.write(x); err != nil {
		t.Fatal(err)
	}
	if err := ww.finish(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wav, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	spans := [][2]int64{{100, 20000}, {20100, 20101}, {30000, 55555}, {60000, 80000}}
	total := framesOf(spans)
	for _, src := range []string{"slice", "wav"} {
		open := func() dsp.Source {
			if src == "slice" {
				return &sliceSource{f: f, x: x, max: 999}
			}
			st, err := dsp.Open(context.Background(), wav)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}
		if _, ok := open().(dsp.Skipper); ok != (src == "wav") {
			t.Fatalf("%s: Skipper %v", src, ok)
		}
		whole := readSource(t, newKeepSource(open(), spans, 80000, 0.005), 777)
		if int64(len(whole)) != total*ch {
			t.Fatalf("%s: whole output %d frames, want %d", src, len(whole)/ch, total)
		}
		for _, w := range [][2]int64{{0, 5}, {0, -1}, {19899, 19901}, {19900, 30000}, {25000, -1}, {total - 3, -1}, {total, -1}} {
			k := newKeepSource(open(), spans, 80000, 0.005)
			k.window(w[0], w[1])
			got := readSource(t, k, 500)
			end := w[1]
			if end < 0 {
				end = total
			}
			if len(got) == 0 && end == w[0] {
				continue
			}
			if diff := cmp.Diff(whole[w[0]*ch:end*ch], got); diff != "" {
				t.Errorf("%s: window %v (-whole +window):\n%.400s", src, w, diff)
			}
		}
	}
}

// TestMeasureHalvesMatchesOnePiece: the normalization's measurement in two
// halves side by side gives the one-piece measurement: every 2 ms cell's
// energy and peak within two codes (0.012 dB), the 100 ms blocks within
// 1e-6, and the same gain to 0.01 dB, with interpolated peaks measured
// near big samples and everywhere.
func TestMeasureHalvesMatchesOnePiece(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed")
	}
	in := gen(t, "in.wav", "-stream_loop", "-1", "-i", recording("en_asterisk_allison_demo-instruct_73s.wav"),
		"-t", "80", "-ar", "44100", "-ac", "2", "-c:a", "pcm_s16le")
	a := analyze(t, in)
	keep := []dsp.Range{{Start: 0.5, End: 30}, {Start: 31.25, End: 70.1}, {Start: 71, End: 79.5}}
	spans := spansOf(keep, 44100)
	o := Options{Format: "wav", Normalize: "podcast", Rumble: true}
	for _, maxGain := range []float64{4, 0} {
		t.Run("maxGain="+ftoa(maxGain), func(t *testing.T) {
			ctx := context.Background()
			c := chain{input: in, a: a, spans: spans, o: o}
			pk := peakSpec{ceilingDb: -2, maxGain: maxGain}
			one, err := c.measureWindow(ctx, pk, 0, -1, 0, framesOf(spans))
			if err != nil {
				t.Fatal(err)
			}
			two, ok, err := c.measureHalves(ctx, pk)
			if err != nil || !ok {
				t.Fatalf("halves: ok %v, %v", ok, err)
			}
			if len(two.cells) != len(one.cells) || len(two.blockE) != len(one.blockE) {
				t.Fatalf("%d cells, %d blocks; one piece %d, %d", len(two.cells), len(two.blockE), len(one.cells), len(one.blockE))
			}
			worst := 0
			for i, c := range one.cells {
				d := c.e - two.cells[i].e
				if c.e < two.cells[i].e {
					d = -d
				}
				p := c.peak - two.cells[i].peak
				if c.peak < two.cells[i].peak {
					p = -p
				}
				worst = max(worst, int(d), int(p))
				if d > 2 || p > 2 {
					t.Fatalf("cell %d: %+v, one piece %+v", i, two.cells[i], c)
				}
			}
			for i, e := range one.blockE {
				if math.Abs(two.blockE[i]-e) > 1e-6*e+1e-12 {
					t.Fatalf("block %d: %g, one piece %g", i, two.blockE[i], e)
				}
			}
			l1, l2 := integrated(one.blocks(1, nil)), integrated(two.blocks(1, nil))
			g1, g2 := one.solveGain(-16, l1, -2, limiterLook), two.solveGain(-16, l2, -2, limiterLook)
			t.Logf("worst cell difference %d codes; loudness %.4f / %.4f LUFS, gain %.4f / %.4f dB", worst, l2, l1, g2, g1)
			if math.Abs(l1-l2) > 0.001 || math.Abs(g1-g2) > 0.01 {
				t.Errorf("halves: %.4f LUFS, gain %.4f dB; one piece %.4f LUFS, %.4f dB", l2, g2, l1, g1)
			}
		})
	}
}

// TestDitherAt: jumping the WAV writer's dither state ahead gives the
// state of drawing one by one.
func TestDitherAt(t *testing.T) {
	x := uint32(wavDither0)
	for n := int64(0); n <= 100000; n++ {
		if n%997 == 0 || n < 70 {
			if got := ditherAt(wavDither0, n); got != x {
				t.Fatalf("ditherAt(%d) = %#x, want %#x", n, got, x)
			}
		}
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
	}
}

// TestRenderWAVInHalves: a WAV render written in two halves side by side
// is the one-piece render (GOMAXPROCS 1) byte for byte: the chains agree
// past the middle and the dither goes on where the first half stops. For
// 16- and 24-bit, stereo and mono; progress only rises.
func TestRenderWAVInHalves(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: no halves")
	}
	for _, c := range []struct{ codec, ch string }{{"pcm_s16le", "2"}, {"pcm_s24le", "1"}} {
		t.Run(c.codec+"/"+c.ch, func(t *testing.T) {
			in := gen(t, "in.wav", "-stream_loop", "-1", "-i", recording("en_asterisk_allison_demo-instruct_73s.wav"),
				"-t", "75", "-ar", "48000", "-ac", c.ch, "-c:a", c.codec)
			a := analyze(t, in)
			p := planOf(75, dsp.Range{Start: 0.5, End: 30}, dsp.Range{Start: 31.25, End: 70.1}, dsp.Range{Start: 71, End: 74.5})
			var outs [2][]byte
			for i, procs := range []int{runtime.GOMAXPROCS(0), 1} {
				prev := runtime.GOMAXPROCS(procs)
				out := filepath.Join(t.TempDir(), "o.wav")
				var seen []float64
				_, err := Render(context.Background(), in, a, p, Options{Format: "wav", Normalize: "podcast", Rumble: true}, out, func(f float64) { seen = append(seen, f) })
				runtime.GOMAXPROCS(prev)
				if err != nil {
					t.Fatal(err)
				}
				for j := 1; j < len(seen); j++ {
					if seen[j] < seen[j-1] {
						t.Fatalf("progress went back: %v", seen)
					}
				}
				if outs[i], err = os.ReadFile(out); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(outs[0], outs[1]) {
				i := 0
				for i < min(len(outs[0]), len(outs[1])) && outs[0][i] == outs[1][i] {
					i++
				}
				t.Fatalf("halves: %d bytes, one piece %d; first difference at byte %d", len(outs[0]), len(outs[1]), i)
			}
		})
	}
}

// TestWAVHalvesNeedSameSamples: when the second chain's samples are not
// the first's, the halves say so (the caller writes the file in one piece).
func TestWAVHalvesNeedSameSamples(t *testing.T) {
	f := dsp.Format{SampleRate: 8000, Channels: 2}
	x := make([]float32, 2*8000*70)
	for i := range x {
		x[i] = float32(math.Sin(float64(i)*0.01)) * 0.3
	}
	out, err := os.Create(filepath.Join(t.TempDir(), "o.wav"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	for _, c := range []struct {
		off  float32
		want bool
	}{{0, true}, {2e-6, false}} {
		frames, ok, err := encodeWAVHalves(context.Background(), sliceHalves(x, f, c.off), out, f, 16, int64(len(x)/2), nil)
		if err != nil || ok != c.want || ok && frames != int64(len(x)/2) {
			t.Errorf("offset %g: %d frames, ok %v, %v; want ok %v", c.off, frames, ok, err, c.want)
		}
	}
}

// TestHalvesOnlyForPCMWAVInputs: the render's halves run only where the
// second chain can skip the input's first half without decoding it, so
// every pass decodes the input once.
func TestHalvesOnlyForPCMWAVInputs(t *testing.T) {
	for _, c := range []struct {
		info dsp.Info
		want bool
	}{
		{dsp.Info{Format: "wav", Codec: "pcm_s16le"}, true},
		{dsp.Info{Format: "wav", Codec: "pcm_f32le"}, true},
		{dsp.Info{Format: "wav", Codec: "adpcm_ms"}, false},
		{dsp.Info{Format: "mp3", Codec: "mp3"}, false},
		{dsp.Info{Format: "flac", Codec: "flac"}, false},
	} {
		if got := skipsCheaply(c.info); got != c.want {
			t.Errorf("%+v: %v, want %v", c.info, got, c.want)
		}
		info := c.info
		info.SampleRate, info.Channels = 44100, 2
		if got := useMP3Halves(Options{Format: "mp3"}, output{path: "x.mp3"}, info, 44100*120); got != (c.want && runtime.GOMAXPROCS(0) > 1) {
			t.Errorf("%+v: MP3 halves %v", c.info, got)
		}
	}
}
