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

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/internal/testservers"
)

// TestFlowOnS3 runs a job with its media in an S3 bucket (versitygw on
// loopback): the upload goes up as a multipart upload, the worker reads the
// original through a scratch copy it removes, and the download seeks with
// ranged reads.
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
	ents, _ := os.ReadDir(filepath.Join(dir, "scratch"))
	if len(ents) != 0 {
		t.Errorf("scratch copies left behind: %d entries", len(ents))
	}
}

func headInput(bucket, key string) *s3.HeadObjectInput {
	return &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}
}
