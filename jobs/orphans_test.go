package jobs

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"github.com/autocut-dev/autocut/apiv1"
	"github.com/autocut-dev/autocut/internal/syncbuf"
	"github.com/autocut-dev/autocut/internal/testservers"
)

func TestParseKeyAndOrphan(t *testing.T) {
	const id = "job_abcdefghijklmnop"
	done := &record{ID: id, Status: apiv1.StatusDone, Gen: 3, OriginalKey: "originals/" + id,
		AnalysisKey: "analyses/" + id + ".bin", OutputKey: "outputs/" + id + "/3/a-autocut.mp3"}
	busy := &record{ID: id, Status: apiv1.StatusRendering, Gen: 4, OriginalKey: "originals/" + id,
		AnalysisKey: "analyses/" + id + ".bin", OutputKey: ""}
	analysing := &record{ID: id, Status: apiv1.StatusAnalyzing, Gen: 1, OriginalKey: "originals/" + id}
	tracks := &record{ID: id, Status: apiv1.StatusDone, Gen: 1, OriginalKey: "originals/" + id, AnalysisKey: "analyses/" + id + ".bin",
		Tracks: []trackRecord{{AnalysisKey: "analyses/" + id + ".bin"}, {AnalysisKey: "analyses/" + id + ".track1.bin"}}}
	expired := &record{ID: id, Status: apiv1.StatusDone, Gen: 1, OriginalKey: "originals/" + id, OriginalExpired: true}
	tests := []struct {
		key    string
		rec    *record
		ours   bool
		orphan bool
	}{
		{"originals/" + id, done, true, false},
		{"originals/" + id, nil, true, true},
		{"originals/" + id, expired, true, true},
		{"originals/" + id + ".18a3f0c2b1.tmp", nil, true, true},
		{"originals/" + id + ".18a3f0c2b1.tmp", done, true, true},
		{"originals/" + id + ".18a3f0c2b1.tmp", analysing, true, false},
		{"analyses/" + id + ".bin", done, true, false},
		{"analyses/" + id + ".bin", analysing, true, false}, // its run writes it now
		{"analyses/" + id + ".bin", nil, true, true},
		{"analyses/" + id + ".bin", expired, true, true},
		{"analyses/" + id + ".bin.7f.tmp", busy, true, false},
		{"analyses/" + id + ".track1.bin", tracks, true, false}, // a job of several tracks' track 1
		{"analyses/" + id + ".track2.bin", tracks, true, true},  // a track it does not have
		{"analyses/" + id + ".track1.bin", done, true, true},
		{"analyses/" + id + ".track1.bin", nil, true, true},
		{"analyses/" + id + ".track1.bin", analysing, true, false},
		{"analyses/" + id + ".trackx.bin", nil, false, false},
		{"outputs/" + id + "/3/a-autocut.mp3", done, true, false},
		{"outputs/" + id + "/2/a-autocut.mp3", done, true, true},  // an earlier run's
		{"outputs/" + id + "/4/a-autocut.mp3", busy, true, false}, // the running run's
		{"outputs/" + id + "/3/a-autocut.mp3", busy, true, true},  // replaced by the running run
		{"outputs/" + id + "/4/a-autocut.mp3.1f2e.tmp", busy, true, false},
		{"outputs/" + id + "/4/a-autocut.mp3", nil, true, true},
		{"outputs/" + id, nil, false, false},
		{"originals/README", nil, false, false},
		{"analyses/" + id + ".json", nil, false, false},
		{"other/" + id, nil, false, false},
	}
	for _, tc := range tests {
		k, ok := parseKey(tc.key)
		if ok != tc.ours {
			t.Errorf("parseKey(%q) ok = %v, want %v", tc.key, ok, tc.ours)
			continue
		}
		if !ok {
			continue
		}
		if k.id != id {
			t.Errorf("parseKey(%q) id = %q", tc.key, k.id)
		}
		if got := orphan(strings.TrimSuffix(tc.key, ""), k, tc.rec); got != tc.orphan {
			t.Errorf("orphan(%q, %+v) = %v, want %v", tc.key, tc.rec, got, tc.orphan)
		}
	}
}

// files lists the files and directories under root, relative, sorted
// (fileblob's .attrs sidecars left out).
func files(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." || strings.HasSuffix(rel, ".attrs") {
			return nil
		}
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// plant writes a file under the media directory with a modification time.
func plant(t *testing.T, media, key string, mtime time.Time) {
	t.Helper()
	p := filepath.Join(media, filepath.FromSlash(key))
	d := filepath.Dir(p)
	if strings.HasSuffix(key, "/") {
		d = p
	}
	if err := os.MkdirAll(d, 0o750); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(key, "/") {
		if err := os.WriteFile(p, []byte("orphan?"), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	for d := p; d != media && len(d) > len(media); d = filepath.Dir(d) {
		if err := os.Chtimes(d, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOrphanSweepFileStore: the sweep removes what a crash left (an
// upload's temp file, a deleted job's analysis and output, an earlier
// run's output, empty output directories) once older than the grace, and
// keeps the live job's files, young files and keys that are not ours.
func TestOrphanSweepFileStore(t *testing.T) {
	dir := t.TempDir()
	m := testManager(t, dir, &gateEngine{}, func(c *Config) { c.OrphanGrace, c.OrphanInterval = time.Minute, time.Hour })
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	media := filepath.Join(dir, "media")
	live := files(t, media)
	old, now := time.Now().Add(-2*time.Minute), time.Now()
	const gone = "job_gonegonegonegone"
	for _, k := range []string{
		"originals/" + gone + ".18a3f0c2b1d.tmp",  // kill -9 during an upload
		"originals/" + j.ID + ".18a3f0c2b1e.tmp",  // a finished job's stale temp file
		"analyses/" + gone + ".bin",               // DELETE during a render, then kill -9
		"outputs/" + gone + "/2/talk-autocut.mp3", // likewise
		"outputs/" + j.ID + "/0/old-autocut.mp3",  // an earlier run's output
		"outputs/" + j.ID + "/7/",                 // an empty directory
		"originals/notes.txt",                     // not a key of ours
	} {
		plant(t, media, k, old)
	}
	plant(t, media, "analyses/job_youngyoungyoungyo.bin", now) // within the grace
	n, err := m.sweepOrphans(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 {
		t.Errorf("removed %d objects, want 5", n)
	}
	if _, err := os.Stat(filepath.Join(media, "analyses", "job_youngyoungyoungyo.bin")); err != nil {
		t.Errorf("an orphan within the grace was removed: %v", err)
	}
	// Directories emptied by this sweep are newer than the grace: the next
	// sweep after the grace removes them (and the orphan that was young).
	if _, err := m.sweepOrphans(ctx, now.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(live), "originals/notes.txt")
	slices.Sort(want)
	if diff := cmp.Diff(want, files(t, media)); diff != "" {
		t.Errorf("media after the sweeps (-want +got):\n%s", diff)
	}
	// The job still works from its files.
	if _, err := m.Preview(ctx, "o", j.ID, apiv1.ParamsInput{}); err != nil {
		t.Errorf("preview after the sweep: %v", err)
	}
	d, err := m.OpenOutput(ctx, "o", j.ID)
	if err != nil {
		t.Fatalf("download after the sweep: %v", err)
	}
	d.Close()
}

// TestNoEmptyOutputDirs: a re-render and a delete leave no empty
// outputs/<id>/<gen>/ directory behind.
func TestNoEmptyOutputDirs(t *testing.T) {
	dir := t.TempDir()
	m := testManager(t, dir, &gateEngine{}, nil)
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	outputs := filepath.Join(dir, "media", "outputs")
	if got := files(t, outputs); len(got) != 3 || got[0] != j.ID+"/" || got[1] != j.ID+"/1/" {
		t.Fatalf("outputs after the first run: %v", got)
	}
	if _, err := m.Update(ctx, "o", j.ID, apiv1.Patch{Action: apiv1.ActionExport}); err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j.ID, 10*time.Second, func(j *apiv1.Job) bool { return j.Status == apiv1.StatusDone && j.Output != nil })
	if got := files(t, outputs); len(got) != 3 || got[1] != j.ID+"/2/" {
		t.Errorf("outputs after a re-render: %v, want only run 2's", got)
	}
	if err := m.Delete(ctx, "o", j.ID); err != nil {
		t.Fatal(err)
	}
	if got := files(t, outputs); len(got) != 0 {
		t.Errorf("outputs after delete: %v", got)
	}
}

// TestOrphanSweepS3: on object storage the sweep removes the objects no
// record accounts for and aborts incomplete multipart uploads (a process
// killed during an upload), keeping a live job's objects.
func TestOrphanSweepS3(t *testing.T) {
	srv := testservers.VersityGW(t)
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	m := testManager(t, dir, &gateEngine{}, func(c *Config) {
		c.Storage, c.PartSize, c.OrphanGrace, c.OrphanInterval = srv.URL(), 5<<20, time.Minute, time.Hour
	})
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j.ID, 20*time.Second, isStatus(apiv1.StatusDone))
	c := srv.Client()
	const gone = "job_gonegonegonegone"
	for _, k := range []string{"analyses/" + gone + ".bin", "outputs/" + gone + "/2/x-autocut.mp3", "originals/notes.txt"} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(srv.Bucket), Key: aws.String(k), Body: bytes.NewReader([]byte("orphan?"))}); err != nil {
			t.Fatal(err)
		}
	}
	mp, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(srv.Bucket), Key: aws.String("originals/" + gone)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(srv.Bucket), Key: aws.String("originals/" + gone),
		UploadId: mp.UploadId, PartNumber: aws.Int32(1), Body: bytes.NewReader(bytes.Repeat([]byte("x"), 1<<20))}); err != nil {
		t.Fatal(err)
	}
	keys := func() []string {
		out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(srv.Bucket)})
		if err != nil {
			t.Fatal(err)
		}
		var ks []string
		for _, o := range out.Contents {
			ks = append(ks, aws.ToString(o.Key))
		}
		slices.Sort(ks)
		return ks
	}
	uploads := func() int {
		out, err := c.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: aws.String(srv.Bucket)})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Uploads)
	}
	if uploads() != 1 {
		t.Fatalf("incomplete multipart uploads before the sweep: %d, want 1", uploads())
	}
	// Everything is younger than the grace: nothing goes.
	before := keys()
	if n, err := m.sweepOrphans(ctx, time.Now()); err != nil || n != 0 {
		t.Fatalf("sweep within the grace: removed %d, %v", n, err)
	}
	if diff := cmp.Diff(before, keys()); diff != "" || uploads() != 1 {
		t.Fatalf("young objects removed (-before +after):\n%s", diff)
	}
	n, err := m.sweepOrphans(ctx, time.Now().Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("removed %d, want 3 (two objects, one multipart upload)", n)
	}
	want := []string{"analyses/" + j.ID + ".bin", storeIDKey, "originals/" + j.ID, "originals/notes.txt"}
	for _, k := range before {
		if strings.HasPrefix(k, "outputs/"+j.ID+"/") {
			want = append(want, k)
		}
	}
	slices.Sort(want)
	if diff := cmp.Diff(want, keys()); diff != "" {
		t.Errorf("bucket after the sweep (-want +got):\n%s", diff)
	}
	if uploads() != 0 {
		t.Errorf("incomplete multipart uploads after the sweep: %d", uploads())
	}
}

// TestOrphanSweepNeedsItsDatabase: a sweep over a database that is not the
// one the media's files were written for (a lost SQLite file made again
// empty, another server's database) deletes nothing and logs why; over
// the media's own database it removes orphans as before.
func TestOrphanSweepNeedsItsDatabase(t *testing.T) {
	media := t.TempDir()
	storage := "file://" + media
	ctx := context.Background()
	open := func(dir string, logs *syncbuf.Buffer) *Manager {
		return testManager(t, dir, &gateEngine{}, func(c *Config) {
			c.Storage, c.OrphanGrace, c.OrphanInterval = storage, time.Minute, time.Hour
			if logs != nil {
				c.Logger = slog.New(slog.NewTextHandler(logs, nil))
			}
		})
	}
	first := t.TempDir()
	a := open(first, nil)
	j, err := a.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, a, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	kept := files(t, media)
	if !slices.Contains(kept, storeIDKey) {
		t.Fatalf("the media does not record its database's identity: %v", kept)
	}
	later := time.Now().Add(2 * time.Hour) // every file is past the grace

	for _, tc := range []struct {
		name   string
		prep   func(t *testing.T)
		newJob bool // the new database holds a job of its own
		says   string
	}{
		{"an empty new database", func(*testing.T) {}, false, "belongs to the database"},
		{"a new database with a job", func(*testing.T) {}, true, "belongs to the database"},
		{"media without an identity, empty database", func(t *testing.T) {
			for _, p := range []string{storeIDKey, storeIDKey + ".attrs"} {
				if err := os.Remove(filepath.Join(media, p)); err != nil {
					t.Fatal(err)
				}
			}
		}, false, "holds no job while the media storage holds files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.prep(t)
			logs := &syncbuf.Buffer{}
			b := open(t.TempDir(), logs)
			own := ""
			if tc.newJob {
				j, err := b.Create(ctx, CreateRequest{Owner: "o", Name: "b.wav"}, fakeMedia(4))
				if err != nil {
					t.Fatal(err)
				}
				waitJob(t, b, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
				if err := b.Delete(ctx, "o", j.ID); err != nil {
					t.Fatal(err)
				}
				// A record that is not a, so that the database is not empty.
				j, err = b.Create(ctx, CreateRequest{Owner: "o", Name: "c.wav"}, fakeMedia(4))
				if err != nil {
					t.Fatal(err)
				}
				waitJob(t, b, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
				own = j.ID
			}
			before := files(t, media)
			n, err := b.sweepOrphans(ctx, later)
			if err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("the sweep removed %d files", n)
			}
			if diff := cmp.Diff(before, files(t, media)); diff != "" {
				t.Errorf("media after the sweep (-before +after):\n%s", diff)
			}
			if !strings.Contains(logs.String(), "orphan sweep deletes nothing") || !strings.Contains(logs.String(), tc.says) {
				t.Errorf("the log does not say why nothing was deleted (%q):\n%s", tc.says, logs.String())
			}
			if own != "" {
				if err := b.Delete(ctx, "o", own); err != nil {
					t.Fatal(err)
				}
			}
			if err := b.Stop(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}

	// The media's own database: its identity is the media's again (the
	// case without one records it), and an orphan goes.
	a = open(first, nil)
	plant(t, media, "analyses/job_gonegonegonegone.bin", time.Now().Add(-time.Hour))
	n, err := a.sweepOrphans(ctx, later)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("the media's own database: removed %d files, want 1 (the orphan)", n)
	}
	if _, err := a.OpenOutput(ctx, "o", j.ID); err != nil {
		t.Errorf("the job's download after the sweeps: %v", err)
	}
}

// TestOrphanSweepStrayAttrs: the attribute sidecar of a file deleted by a
// process killed before it removed the sidecar (kill -9 during DELETE) is
// removed by the sweep once past the grace; a live file's sidecar stays.
func TestOrphanSweepStrayAttrs(t *testing.T) {
	dir := t.TempDir()
	m := testManager(t, dir, &gateEngine{}, func(c *Config) { c.OrphanGrace, c.OrphanInterval = time.Minute, time.Hour })
	ctx := context.Background()
	j, err := m.Create(ctx, CreateRequest{Owner: "o", Name: "a.wav"}, fakeMedia(4))
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, m, "o", j.ID, 10*time.Second, isStatus(apiv1.StatusDone))
	media := filepath.Join(dir, "media")
	old := time.Now().Add(-2 * time.Minute)
	const gone = "job_gonegonegonegone"
	stray := []string{"originals/" + gone + ".attrs", "outputs/" + gone + "/1/a-autocut.mp3.attrs"}
	for _, k := range append(stray, "originals/"+gone+".18a3f0c2b1d.tmp.attrs") {
		plant(t, media, k, old)
	}
	young := filepath.Join(media, "analyses", gone+".bin.attrs")
	if err := os.WriteFile(young, []byte("{}"), 0o640); err != nil {
		t.Fatal(err)
	}
	live := filepath.Join(media, "originals", j.ID+".attrs")
	if _, err := os.Stat(live); err != nil {
		t.Fatalf("the live original has no sidecar: %v", err)
	}
	if err := os.Chtimes(live, old, old); err != nil {
		t.Fatal(err)
	}
	n, err := m.sweepOrphans(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("removed %d, want 3 (the old stray sidecars)", n)
	}
	for _, k := range append(stray, "originals/"+gone+".18a3f0c2b1d.tmp.attrs") {
		if _, err := os.Stat(filepath.Join(media, k)); !os.IsNotExist(err) {
			t.Errorf("%s: still there (%v)", k, err)
		}
	}
	for _, p := range []string{young, live} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

// TestOrphanSweepEmptyOwnDatabase: over the media's own database holding
// no job (every job deleted, or the first upload of a new server killed),
// the sweep removes unfinished writes only: a finished file that no record
// accounts for is kept, since the records cannot vouch for it.
func TestOrphanSweepEmptyOwnDatabase(t *testing.T) {
	dir := t.TempDir()
	logs := &syncbuf.Buffer{}
	m := testManager(t, dir, &gateEngine{}, func(c *Config) {
		c.OrphanGrace, c.OrphanInterval = time.Minute, time.Hour
		c.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	ctx := context.Background()
	media := filepath.Join(dir, "media")
	old := time.Now().Add(-2 * time.Minute)
	const gone = "job_gonegonegonegone"
	plant(t, media, "originals/"+gone+".18a3f0c2b1d.tmp", old) // a killed upload
	plant(t, media, "originals/"+gone, old)                    // finished, no record
	n, err := m.sweepOrphans(ctx, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("removed %d, want 1 (the unfinished upload)", n)
	}
	if _, err := os.Stat(filepath.Join(media, "originals", gone+".18a3f0c2b1d.tmp")); !os.IsNotExist(err) {
		t.Errorf("the unfinished upload is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(media, "originals", gone)); err != nil {
		t.Errorf("a finished original removed over an empty database: %v", err)
	}
	if !strings.Contains(logs.String(), "orphan sweep removes unfinished writes only") {
		t.Errorf("the log does not say why:\n%s", logs.String())
	}
}
