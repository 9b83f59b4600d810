package jobs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/riverqueue/river"
	"gocloud.dev/blob"

	"github.com/autocut-dev/autocut/apiv1"
)

// Orphan sweep defaults.
const (
	// DefaultOrphanGrace is how old an object that no record accounts for
	// must be before the orphan sweep removes it: longer than an upload or
	// a render stays silent (an upload idles at most 30 s, a blob write
	// touches its file at least every MiB).
	DefaultOrphanGrace = time.Hour
	// DefaultOrphanInterval is the orphan sweep's period.
	DefaultOrphanInterval = 15 * time.Minute
)

// orphanArgs queues an orphan sweep (a River periodic job, enqueued by
// the cluster's leader only: one sweep per cluster).
type orphanArgs struct{}

// Kind names the River job kind.
func (orphanArgs) Kind() string { return "autocut_orphans" }

type orphanWorker struct {
	river.WorkerDefaults[orphanArgs]
	m *Manager
}

// Work reconciles storage with the records (see Manager.sweepOrphans).
func (w *orphanWorker) Work(ctx context.Context, _ *river.Job[orphanArgs]) error {
	w.m.metrics.maintenance.WithLabelValues("orphans").Inc()
	n, err := w.m.sweepOrphans(ctx, time.Now())
	if n > 0 {
		w.m.log.Info("orphan sweep removed objects", "count", n)
	}
	return err
}

// A stored object's key names its job: every key the job layer writes is
// derived from the job's id (and a run's gen) before a byte is written,
// so the record (or its absence) accounts for each object, whatever the
// moment a process died:
//
//	originals/<id>                  the upload (written before the record exists)
//	analyses/<id>.bin               the analysis (the record learns the key when the run ends)
//	analyses/<id>.track<k>.bin      track k's analysis of a job of several tracks (k from 1; track 0's is <id>.bin)
//	outputs/<id>/<gen>/<name>       the rendered file of run gen
//
// fileblob writes each as <key>.<hex>.tmp first and renames it at the
// end; on object storage an unfinished write is an incomplete multipart
// upload of the key.
var (
	keyRe     = regexp.MustCompile(`^(originals|analyses|outputs)/(job_[a-z2-7]+)(?:(?:\.track\d+)?\.bin|/(\d+)/[^/]+)?$`)
	tmpSuffix = regexp.MustCompile(`\.[0-9a-f]+\.tmp$`)
)

// objectKey is a parsed key.
type objectKey struct {
	kind string // originals, analyses, outputs
	id   string
	gen  int64 // outputs only
	tmp  bool  // an unfinished fileblob write
}

// parseKey parses a key the job layer writes; ok is false for others.
func parseKey(key string) (k objectKey, ok bool) {
	if tmpSuffix.MatchString(key) {
		key, k.tmp = tmpSuffix.ReplaceAllString(key, ""), true
	}
	m := keyRe.FindStringSubmatch(key)
	if m == nil {
		return k, false
	}
	k.kind, k.id = m[1], m[2]
	switch {
	case k.kind == "originals" && key != "originals/"+k.id,
		k.kind == "analyses" && !strings.HasSuffix(key, ".bin"),
		k.kind == "outputs" && m[3] == "":
		return k, false
	}
	if m[3] != "" {
		k.gen, _ = strconv.ParseInt(m[3], 10, 64)
	}
	return k, true
}

// orphan reports whether the object at key (parsed as k) is one that
// rec (nil: no such job) does not account for. A busy job's objects of
// its current run are accounted for: the run writes them now.
func orphan(key string, k objectKey, rec *record) bool {
	if rec == nil {
		return true // the job is gone, or its upload never completed
	}
	busy := rec.Status.Busy()
	if k.tmp {
		return !busy
	}
	switch k.kind {
	case "originals":
		return key != rec.OriginalKey || rec.OriginalExpired
	case "analyses":
		return key != rec.AnalysisKey && !slices.ContainsFunc(rec.Tracks, func(t trackRecord) bool { return t.AnalysisKey == key }) && !busy
	case "outputs":
		return key != rec.OutputKey && !(busy && k.gen == rec.Gen)
	}
	return false
}

// sweepOrphans removes, when the records are the media's (sweepRefusal),
// the objects no record accounts for (orphan) that are older than OrphanGrace, the incomplete multipart uploads of object
// storage likewise, and on a media directory the empty directories older
// than the grace (outputs/<id>/<gen>/ of deleted or re-rendered jobs). It
// returns how many objects it removed.
func (m *Manager) sweepOrphans(ctx context.Context, now time.Time) (int, error) {
	why, partialOnly, err := m.sweepRefusal(ctx)
	if err != nil {
		return 0, fmt.Errorf("orphans: %w", err)
	}
	switch {
	case why != "" && partialOnly:
		m.log.Warn("orphan sweep removes unfinished writes only", "why", why)
	case why != "":
		m.log.Error("orphan sweep deletes nothing: it cannot prove any file orphaned", "why", why)
		return 0, nil
	}
	before := now.Add(-m.cfg.OrphanGrace)
	recs := map[string]*record{}
	lookup := func(id string) (*record, error) {
		if r, ok := recs[id]; ok {
			return r, nil
		}
		r, err := getRecord(ctx, m.db.read, "", id)
		if errors.Is(err, apiv1.ErrNotFound) {
			r, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		recs[id] = r
		return r, nil
	}
	removed := 0
	var errs []error
	for _, err := range m.walkMedia(ctx, func(obj *blob.ListObject) bool {
		if !obj.ModTime.Before(before) {
			return true
		}
		k, ok := parseKey(obj.Key)
		if !ok || (partialOnly && !k.tmp) {
			return true // not a key of ours, or a finished file the records cannot vouch for: left alone
		}
		rec, err := lookup(k.id)
		if err != nil {
			errs = append(errs, fmt.Errorf("orphans: %w", err))
			return true
		}
		if !orphan(obj.Key, k, rec) {
			return true
		}
		// A key that a new run may write again (analyses/<id>.bin)
		// is checked once more just before it goes.
		if a, err := m.bucket.Attributes(ctx, obj.Key); err != nil || !a.ModTime.Before(before) {
			return true
		}
		if err := m.bucket.Delete(ctx, obj.Key); err != nil && !isBlobNotFound(err) {
			errs = append(errs, fmt.Errorf("orphans: delete %s: %w", obj.Key, err))
			return true
		}
		m.log.Info("orphan removed", "key", obj.Key, "job", k.id, "job_exists", rec != nil, "modified", obj.ModTime)
		removed++
		return true
	}) {
		errs = append(errs, fmt.Errorf("orphans: %w", err))
	}
	n, err := m.abortUploads(ctx, before, lookup)
	removed += n
	if err != nil {
		errs = append(errs, err)
	}
	if m.mediaDir != "" {
		removed += m.removeStrayAttrs(before)
		m.removeEmptyDirs(before)
	}
	return removed, errors.Join(errs...)
}

// attrsSuffix ends the name of fileblob's sidecar of a file's attributes.
const attrsSuffix = ".attrs"

// removeStrayAttrs removes the attribute sidecars (<file>.attrs) under the
// media directory's outputs/, originals/ and analyses/ whose file is gone
// and that are older than before: fileblob deletes the file first, so a
// process killed during a delete leaves its sidecar, which List hides.
func (m *Manager) removeStrayAttrs(before time.Time) int {
	n := 0
	for _, top := range []string{"outputs", "originals", "analyses"} {
		_ = filepath.WalkDir(filepath.Join(m.mediaDir, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, attrsSuffix) {
				return nil
			}
			if _, err := os.Lstat(strings.TrimSuffix(p, attrsSuffix)); !errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if st, err := d.Info(); err != nil || !st.ModTime().Before(before) {
				return nil
			}
			if err := os.Remove(p); err == nil {
				m.log.Info("orphan removed", "file", p, "why", "the attributes of a deleted file")
				n++
			}
			return nil
		})
	}
	return n
}

// abortUploads aborts the incomplete multipart uploads (object storage)
// of keys no record accounts for, whose last part is older than before.
func (m *Manager) abortUploads(ctx context.Context, before time.Time, lookup func(string) (*record, error)) (int, error) {
	var c *s3.Client
	if m.mediaDir != "" || !m.bucket.As(&c) {
		return 0, nil
	}
	bucket, prefix, err := s3BucketOf(m.cfg.Storage)
	if err != nil {
		return 0, err
	}
	removed := 0
	in := &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix)}
	for {
		out, err := c.ListMultipartUploads(ctx, in)
		if err != nil {
			return removed, fmt.Errorf("orphans: list multipart uploads: %w", err)
		}
		for _, u := range out.Uploads {
			key := strings.TrimPrefix(aws.ToString(u.Key), prefix)
			k, ok := parseKey(key)
			if !ok {
				continue
			}
			k.tmp = true // unfinished: the record cannot reference it yet
			last := aws.ToTime(u.Initiated)
			parts, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: u.Key, UploadId: u.UploadId})
			if err == nil {
				for _, p := range parts.Parts {
					if t := aws.ToTime(p.LastModified); t.After(last) {
						last = t
					}
				}
			}
			if !last.Before(before) {
				continue
			}
			rec, err := lookup(k.id)
			if err != nil {
				return removed, fmt.Errorf("orphans: %w", err)
			}
			if !orphan(key, k, rec) {
				continue
			}
			if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: u.Key, UploadId: u.UploadId}); err != nil {
				return removed, fmt.Errorf("orphans: abort the multipart upload of %s: %w", key, err)
			}
			m.log.Info("orphan multipart upload aborted", "key", key, "job", k.id, "job_exists", rec != nil, "last_part", last)
			removed++
		}
		if !aws.ToBool(out.IsTruncated) {
			return removed, nil
		}
		in.KeyMarker, in.UploadIdMarker = out.NextKeyMarker, out.NextUploadIdMarker
	}
}

// s3BucketOf returns the bucket and key prefix of an s3:// storage URL.
func s3BucketOf(storage string) (bucket, prefix string, err error) {
	u, err := url.Parse(storage)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return "", "", fmt.Errorf("orphans: storage %q is not an s3:// URL", storage)
	}
	return u.Host, u.Query().Get("prefix"), nil
}

// removeEmptyDirs removes the empty directories under the media
// directory's outputs/, originals/ and analyses/ that are older than
// before (a write creates its directory just before its file).
func (m *Manager) removeEmptyDirs(before time.Time) {
	for _, top := range []string{"outputs", "originals", "analyses"} {
		root := filepath.Join(m.mediaDir, top)
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && p != root {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- { // deepest first
			if st, err := os.Stat(dirs[i]); err != nil || !st.ModTime().Before(before) {
				continue
			}
			if err := os.Remove(dirs[i]); err == nil {
				m.log.Info("empty directory removed", "dir", dirs[i])
			}
		}
	}
}

// pruneDirs removes the directories of a deleted key that it left empty
// (outputs/<id>/<gen>/ and outputs/<id>/) on a media directory; os.Remove
// leaves a directory that is not empty.
func (m *Manager) pruneDirs(key string) {
	if m.mediaDir == "" {
		return
	}
	for d := filepath.Dir(filepath.FromSlash(key)); strings.Contains(d, string(filepath.Separator)); d = filepath.Dir(d) {
		if os.Remove(filepath.Join(m.mediaDir, d)) != nil {
			return
		}
	}
}
