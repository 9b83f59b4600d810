package main

// Tests of the real binary against slow clients and crashes: a stalled
// upload is closed and its partial file removed; the partial file of an
// upload killed with the process is removed by the orphan sweep.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// wavHeader is a valid 44-byte header of a 48 kHz mono 16-bit WAV whose
// data chunk declares dataBytes.
func wavHeader(dataBytes uint32) []byte {
	h := make([]byte, 44)
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], 36+dataBytes)
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], 1)
	binary.LittleEndian.PutUint32(h[24:], 48000)
	binary.LittleEndian.PutUint32(h[28:], 96000)
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], dataBytes)
	return h
}

// startStalledUpload sends an upload's headers (10 MB declared), a valid
// WAV header and 64 kB of silence, then nothing, and waits until the
// partial upload is on disk under data/media/originals.
func startStalledUpload(t *testing.T, s *server, key string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	const declared = 10 << 20
	fmt.Fprintf(c, "POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nX-Filename: stalled.wav\r\nContent-Length: %d\r\n\r\n", key, declared)
	body := append(wavHeader(declared-44), make([]byte, 64<<10)...)
	if _, err := c.Write(body); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(tempFiles(t, s.data)) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no partial upload on disk:\n%s", lastLines(s.stderr.String(), 10))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c
}

// tempFiles lists the partial uploads (*.tmp) under data/media/originals.
func tempFiles(t *testing.T, data string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(data, "media", "originals", "*.tmp"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBinaryStalledUploadClosed: an upload that sends a valid WAV header
// and some silence, then nothing, is answered 408 and closed within 45 s
// with the default idle limit (and within a few seconds with a small
// --upload-idle-timeout), and its partial file is removed.
func TestBinaryStalledUploadClosed(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name   string
		args   []string
		within time.Duration
	}{
		{"default", nil, 45 * time.Second},
		{"flag 1s", []string{"--upload-idle-timeout", "1s"}, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, bin, t.TempDir(), []string{"AUTOCUT_API_KEYS=k1:pro"}, tc.args...)
			c := startStalledUpload(t, s, "k1")
			start := time.Now()
			_ = c.SetReadDeadline(time.Now().Add(tc.within + 15*time.Second))
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			took := time.Since(start)
			if err != nil {
				t.Fatalf("no answer to the stalled upload after %v: %v", took, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), `"code":"request_timeout"`) || !resp.Close {
				t.Errorf("answer %d %s (Connection: close %v), want 408 request_timeout closing the connection", resp.StatusCode, b, resp.Close)
			}
			if took > tc.within {
				t.Errorf("closed after %v, want within %v", took, tc.within)
			}
			if _, err := br.ReadByte(); err == nil {
				t.Errorf("the connection stays open after the answer")
			}
			deadline := time.Now().Add(5 * time.Second)
			for len(tempFiles(t, s.data)) > 0 {
				if time.Now().After(deadline) {
					t.Fatalf("partial upload left on disk: %v", tempFiles(t, s.data))
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Logf("stalled upload closed after %v", took.Round(10*time.Millisecond))
		})
	}
}

// TestBinaryKilledUploadSwept: kill -9 during an upload leaves its partial
// file; after a restart the orphan sweep removes it once the grace period
// (--orphan-grace) has passed.
func TestBinaryKilledUploadSwept(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	data := t.TempDir()
	env := []string{"AUTOCUT_API_KEYS=k1:pro"}
	args := []string{"--orphan-grace", "2s", "--orphan-interval", "1s", "--upload-idle-timeout", "10m"}
	s := startServer(t, bin, data, env, args...)
	startStalledUpload(t, s, "k1")
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-s.done
	left := tempFiles(t, data)
	if len(left) != 1 {
		t.Fatalf("partial uploads after kill -9: %v, want one", left)
	}
	st, err := os.Stat(left[0])
	if err != nil {
		t.Fatal(err)
	}
	s2 := startServer(t, bin, data, env, args...)
	deadline := time.Now().Add(60 * time.Second)
	for len(tempFiles(t, data)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("partial upload still there %v after the kill:\n%s", time.Since(st.ModTime()), lastLines(s2.stderr.String(), 20))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if age := time.Since(st.ModTime()); age < 2*time.Second {
		t.Errorf("removed %v after its last write, before the 2s grace", age)
	}
	if !strings.Contains(s2.stderr.String(), "orphan removed") {
		t.Errorf("the sweep did not log the removal:\n%s", lastLines(s2.stderr.String(), 20))
	}
}
