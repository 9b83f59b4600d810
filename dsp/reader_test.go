package dsp

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"testing"
	"time"
)

// sizedStream is a stream that tells its size but cannot seek, like a
// blob storage reader.
type sizedStream struct {
	r    *bytes.Reader
	size int64
}

func (s *sizedStream) Read(p []byte) (int, error) { return s.r.Read(p) }
func (s *sizedStream) Size() int64                { return s.size }

// TestAnalyzeReader: the same analysis from a stream as from the file, the
// length limit from the header and while decoding, and progress by bytes
// when the header does not tell the length.
func TestAnalyzeReader(t *testing.T) {
	ctx := context.Background()
	src := []string{"-f", "lavfi", "-i", "anoisesrc=color=pink:seed=3:amplitude=0.3:d=12", "-af", "volume='if(lt(mod(t,4),3),1,0.02)':eval=frame"}
	for _, c := range []struct {
		file string
		args []string
	}{
		{"a.wav", []string{"-c:a", "pcm_s16le"}},
		{"a.mp3", []string{"-c:a", "libmp3lame", "-q:a", "2"}},
		{"a.ogg", []string{"-c:a", "libvorbis"}},
		{"a.mka", []string{"-c:a", "flac"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := ffmpegGen(t, c.file, append(append([]string{}, src...), c.args...)...)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want, err := AnalyzeFile(ctx, path, nil)
			if err != nil {
				t.Fatal(err)
			}
			var fractions []float64
			got, err := AnalyzeReader(ctx, &sizedStream{r: bytes.NewReader(data), size: int64(len(data))}, c.file,
				AnalyzeOptions{Progress: func(f float64) { fractions = append(fractions, f) }})
			if err != nil {
				t.Fatal(err)
			}
			if got.Input.Name != c.file || math.Abs(got.Input.Duration-want.Input.Duration) > 0.001 ||
				math.Abs(got.Loudness.Integrated-want.Loudness.Integrated) > 0.01 || got.Envelope.Frames() != want.Envelope.Frames() {
				t.Errorf("stream %s %.3f s %.2f LUFS %d frames; file %.3f s %.2f LUFS %d frames", got.Input.Name,
					got.Input.Duration, got.Loudness.Integrated, got.Envelope.Frames(),
					want.Input.Duration, want.Loudness.Integrated, want.Envelope.Frames())
			}
			// (Inputs whose header tells no length report the bytes read,
			// which run ahead by the first MiB that ffprobe looks at: these
			// small files are read at once.)
			if len(fractions) < 2 || fractions[len(fractions)-1] != 1 {
				t.Errorf("progress: %d reports, last %v", len(fractions), fractions[len(fractions)-1:])
			}
			for i := 1; i < len(fractions); i++ {
				if fractions[i] < fractions[i-1] {
					t.Fatalf("progress went back: %v", fractions)
				}
			}
			// Over the limit: refused, from the header or while decoding.
			_, err = AnalyzeReader(ctx, streamOnly(data), c.file, AnalyzeOptions{MaxDuration: 5 * time.Second})
			if !errors.Is(err, ErrTooLong) {
				t.Errorf("12 s input with a 5 s limit: %v, want ErrTooLong", err)
			}
			if _, err := AnalyzeReader(ctx, streamOnly(data), c.file, AnalyzeOptions{MaxDuration: 13 * time.Second}); err != nil {
				t.Errorf("12 s input with a 13 s limit: %v", err)
			}
		})
	}
}
