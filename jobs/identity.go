package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"gocloud.dev/blob"
)

// The orphan sweep deletes the stored files no record accounts for, so it
// must know that the records it reads are the ones the files were written
// for: a database lost and made again empty (a deleted SQLite file, a new
// PostgreSQL database pointed at the old bucket) accounts for nothing, and
// a sweep over it would delete every user's files. The database therefore
// has an identity, a random id written into it (autocut_meta) the first
// time the job layer opens it, and the media storage records the identity
// of the database it belongs to (storeIDKey). A sweep whose database's
// identity is not the media's, or whose database holds no job while the
// media holds files of jobs, deletes nothing and logs why.

// storeIDKey is the key beside the media that holds the identity of the
// database it belongs to (the orphan sweep never lists it: it is outside
// originals/, analyses/ and outputs/).
const storeIDKey = "autocut-store-id"

// storeID returns the database's identity, writing one if it has none.
func (m *Manager) storeID(ctx context.Context) (string, error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	if _, err := m.db.write.Exec(ctx, `INSERT INTO autocut_meta (name, value) VALUES ('store_id', ?) ON CONFLICT (name) DO NOTHING`,
		"db_"+hex.EncodeToString(b[:])); err != nil {
		return "", fmt.Errorf("database identity: %w", err)
	}
	var id string
	if err := m.db.write.QueryRow(ctx, `SELECT value FROM autocut_meta WHERE name = 'store_id'`).Scan(&id); err != nil {
		return "", fmt.Errorf("database identity: %w", err)
	}
	return id, nil
}

// mediaStoreID returns the identity the media records ("" when none).
func (m *Manager) mediaStoreID(ctx context.Context) (string, error) {
	b, err := m.bucket.ReadAll(ctx, storeIDKey)
	if isBlobNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("media storage identity: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// storeEmpty reports whether the database holds no job.
func (m *Manager) storeEmpty(ctx context.Context) (bool, error) {
	var one int
	err := m.db.read.QueryRow(ctx, `SELECT 1 FROM autocut_job LIMIT 1`).Scan(&one)
	if isNoRows(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("count jobs: %w", err)
	}
	return false, nil
}

// mediaHoldsJobs reports whether the media storage holds a file of a job
// (a key the job layer writes).
func (m *Manager) mediaHoldsJobs(ctx context.Context) (bool, error) {
	holds := false
	errs := m.walkMedia(ctx, func(obj *blob.ListObject) bool {
		_, holds = parseKey(obj.Key)
		return !holds
	})
	if holds {
		return true, nil
	}
	return false, errors.Join(errs...)
}

// walkMedia calls f with each file listed under the prefixes the job layer
// writes (originals/, analyses/, outputs/) until f returns false. A listing
// error ends that prefix's walk; the errors are returned.
func (m *Manager) walkMedia(ctx context.Context, f func(*blob.ListObject) bool) []error {
	var errs []error
	for _, prefix := range []string{"originals/", "analyses/", "outputs/"} {
		it := m.bucket.List(&blob.ListOptions{Prefix: prefix})
		for {
			obj, err := it.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("list %s: %w", prefix, err))
				break
			}
			if obj.IsDir {
				continue
			}
			if !f(obj) {
				return errs
			}
		}
	}
	return errs
}

// sweepRefusal returns why the orphan sweep may not delete what it cannot
// prove orphaned now ("" when it may): the database file is not the one
// opened, the media belongs to another database, or the database holds no
// job while the media holds files of jobs. Media that records no identity
// yet (a new storage, or one older than identities) is given the
// database's, unless that is exactly the case of a lost database: no job
// in it, files in the media. partialOnly is true when the database is the
// media's own but holds no job while the media holds files: only
// unfinished writes (a .tmp file, an incomplete multipart upload, which no
// record ever accounts for) may go then, such as an upload killed on a
// server's first start.
func (m *Manager) sweepRefusal(ctx context.Context) (why string, partialOnly bool, err error) {
	if err := m.db.st.Check(); err != nil {
		return err.Error(), false, nil
	}
	dbID, err := m.storeID(ctx)
	if err != nil {
		return "", false, err
	}
	mediaID, err := m.mediaStoreID(ctx)
	if err != nil {
		return "", false, err
	}
	empty, err := m.storeEmpty(ctx)
	if err != nil {
		return "", false, err
	}
	holds := false
	if empty {
		if holds, err = m.mediaHoldsJobs(ctx); err != nil {
			return "", false, err
		}
	}
	const emptyWhy = "the database holds no job while the media storage holds files of jobs: the database may have been lost; restore it (the files are kept), or remove the files yourself"
	switch {
	case mediaID != "" && mediaID != dbID:
		return fmt.Sprintf("the media storage belongs to the database %s, not to this one (%s): the database was lost or replaced, or the storage is another server's; restore that database, or point the server at its own storage", mediaID, dbID), false, nil
	case mediaID == "" && empty && holds:
		return emptyWhy, false, nil
	case empty && holds:
		return emptyWhy, true, nil
	case mediaID == "":
		if err := m.bucket.WriteAll(ctx, storeIDKey, []byte(dbID+"\n"), nil); err != nil {
			return "", false, fmt.Errorf("record the database identity in the media storage: %w", err)
		}
		m.log.Info("media storage now records the database's identity", "store_id", dbID, "key", storeIDKey)
	}
	return "", false, nil
}
