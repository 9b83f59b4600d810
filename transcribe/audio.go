package transcribe

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/autocut-dev/autocut/internal/proc"
)

// to16kWAV converts any media file to 16 kHz mono 16-bit WAV in dir (what
// both engines read), returning its path.
func to16kWAV(ctx context.Context, in, dir string) (string, error) {
	out := filepath.Join(dir, "speech-16k.wav")
	cmd := proc.Command(ctx, "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", in, "-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("transcribe: convert to 16 kHz: %v: %s", err, strings.TrimSpace(string(b)))
	}
	return out, nil
}

// scratch makes a temporary directory removed by the returned func.
func scratch() (string, func(), error) {
	d, err := os.MkdirTemp("", "autocut-transcribe-")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}
