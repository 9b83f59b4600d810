package transcribe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTo16kWAVErrors: input ffmpeg cannot read, a missing file and a
// cancelled conversion give an error saying so, never a WAV file.
func TestTo16kWAVErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.wav")
	if err := os.WriteFile(text, []byte("not audio at all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{text, filepath.Join(dir, "missing.wav")} {
		if _, err := to16kWAV(context.Background(), in, t.TempDir()); err == nil || !strings.Contains(err.Error(), "convert to 16 kHz") {
			t.Errorf("%s: error %v, want one about the conversion", filepath.Base(in), err)
		}
	}
	mono, _ := buildSpeech(t, []piece{{"Let me tell you about the time.", false}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := to16kWAV(ctx, mono, t.TempDir()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
