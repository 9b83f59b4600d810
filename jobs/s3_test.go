package jobs

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	_ "gocloud.dev/blob/s3blob" // s3:// storage URLs: linked by who uses them

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/internal/testservers"
)

// TestFlowOnS3 runs jobs with their media in an S3 bucket (versitygw on
// loopback): the upload goes up as a multipart upload; the worker analyses
// the original straight from the bucket's stream, copying it on the way
// when the render needs a file (one download, the copy whole and removed
// afterwards), analyses an MP4 whose index follows its media from that
// copy, and the download seeks with ranged reads.
func TestFlowOnS3(t *testing.T) {
	srv := testservers.VersityGW(t)
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	eng := &gateEngine{}
	m := testManager(t, dir, eng, func(c *Config) { c.Storage = srv.URL(); c.PartSize = 5 << 20 })
	ctx := context.Background()
	// 12 MB of media: three parts of 5 MiB.
	media := "RIFF 10 " + strings.Repeat("x", 12<<20)
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "talk.wav"}, strings.NewReader(media))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "media")); !os.IsNotExist(err) {
		t.Errorf("a local media directory exists with S3 storage: %v", err)
	}
	head, err := srv.Client().HeadObject(ctx, headInput(srv.Bucket, "originals/"+j.ID))
	if err != nil || head.ContentLength == nil || *head.ContentLength != int64(len(media)) {
		t.Fatalf("original in the bucket: %+v, %v", head, err)
	}
	j = waitJob(t, m, "o", j.ID, 20*time.Second, isStatus(apiv1.StatusDone))
	if eng.fromFile.Load() != 0 {
		t.Errorf("the analysis read a file, not the bucket's stream")
	}
	if got := eng.renderedLen.Load(); got != int64(len(media)) {
		t.Errorf("the render's input (copied while analysing) has %d bytes of %d", got, len(media))
	}
	// Analysis only: never a copy.
	j2, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "notes.wav", Options: apiv1.Options{AutoExport: ptr(false)}}, strings.NewReader("RIFF 4 "+strings.Repeat("y", 1<<20)))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j2.ID, 20*time.Second, isStatus(apiv1.StatusDone))
	if eng.fromFile.Load() != 0 {
		t.Errorf("an analysis-only job read a file")
	}
	// An MP4 whose mdat comes before its moov needs the file.
	mp4 := "\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2" + "\x00\x00\x10\x08mdat" + "RIFF 4 " + strings.Repeat("z", 4089) + "\x00\x00\x00\x08moov"
	j3, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "clip.mp4", Options: apiv1.Options{AutoExport: ptr(false)}}, strings.NewReader(mp4))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j3.ID, 20*time.Second, isStatus(apiv1.StatusDone))
	if eng.fromFile.Load() != 1 {
		t.Errorf("the moov-at-end MP4 was analysed from a stream (%d file reads)", eng.fromFile.Load())
	}
	d, err := m.OpenOutput(ctx, "o", j.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	all, err := io.ReadAll(d)
	if err != nil || int64(len(all)) != d.Size {
		t.Fatalf("download: %d bytes of %d, %v", len(all), d.Size, err)
	}
	if _, err := d.Seek(3, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 4)
	if _, err := io.ReadFull(d, part); err != nil || string(part) != string(all[3:7]) {
		t.Fatalf("seek and read: %q, %v", part, err)
	}
	// A job is done before its run's deferred clean-up ends: Stop waits
	// for every run, then no scratch copy may be left.
	d.Close()
	if err := m.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "scratch"))
	if len(ents) != 0 {
		t.Errorf("scratch copies left behind: %d entries", len(ents))
	}
}

func headInput(bucket, key string) *s3.HeadObjectInput {
	return &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
}

// TestReadyWithoutBucket: a bucket nobody created makes Ready say so
// (it said "media storage not accessible: <nil>").
func TestReadyWithoutBucket(t *testing.T) {
	srv := testservers.VersityGW(t)
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	srv.Bucket = "nobody-made-this"
	m := testManager(t, t.TempDir(), &gateEngine{}, func(c *Config) { c.Storage = srv.URL() })
	err := m.Ready(context.Background())
	if err == nil || !strings.Contains(err.Error(), "does not exist") || strings.Contains(err.Error(), "<nil>") {
		t.Errorf("Ready without the bucket: %v", err)
	}
}
