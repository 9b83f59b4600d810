package jobs

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/internal/syncbuf"
)

// TestDiskFull: with the disk full (writes fail with ENOSPC, the free
// space is under the minimum), an upload fails with insufficient_storage
// (507) and a fixed message, nothing is kept, and Ready says so; a render
// that runs out of space waits, showing its phase, and ends done once
// there is space again (it failed for good with render_failed before).
func TestDiskFull(t *testing.T) {
	var full, outputsFull atomic.Bool
	enospc := func(key string) error {
		return &os.PathError{Op: "write", Path: "/data/media/" + key, Err: syscall.ENOSPC}
	}
	logs := &syncbuf.Buffer{}
	dir := t.TempDir()
	m := testManager(t, dir, &gateEngine{}, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
		c.freeSpace = func(string) (uint64, error) {
			if full.Load() {
				return 1 << 20, nil
			}
			return 1 << 40, nil
		}
		c.writeFault = func(key string) error {
			if full.Load() || (outputsFull.Load() && strings.HasPrefix(key, "outputs/")) {
				return enospc(key)
			}
			return nil
		}
	})
	ctx := context.Background()

	full.Store(true)
	_, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if code := ErrorCode(err); code != apiv1.CodeInsufficientStorage || code.HTTPStatus() != 507 {
		t.Errorf("upload on a full disk: %v (code %s), want insufficient_storage (507)", err, code)
	}
	if msg := ClientMessage(err); strings.Contains(msg, "/data") || !strings.Contains(msg, "disk is full") {
		t.Errorf("the client message %q", msg)
	}
	if err := m.Ready(ctx); !errors.Is(err, apiv1.ErrInsufficientStorage) {
		t.Errorf("Ready on a full disk: %v, want insufficient storage", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "media", "originals")); len(ents) > 0 {
		t.Errorf("an upload refused for want of space left %d files", len(ents))
	}
	full.Store(false)
	if err := m.Ready(ctx); err != nil {
		t.Errorf("Ready once there is space: %v", err)
	}

	outputsFull.Store(true)
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "b.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs.String(), "no space left on the server's disk") {
		if time.Now().After(deadline) {
			t.Fatalf("no run waited for space:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got, err := m.Get(ctx, "o", j.ID); err != nil || got.Status != apiv1.StatusRendering {
		t.Errorf("a render waiting for space: %+v %v, want status rendering", got, err)
	}
	outputsFull.Store(false)
	done := waitJob(t, m, "o", j.ID, 20*time.Second, func(j *apiv1.Job) bool { return j.Status != apiv1.StatusRendering })
	if done.Status != apiv1.StatusDone || done.Output == nil {
		t.Errorf("the render once there is space: %s %+v", done.Status, done.Error)
	}
}
