package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/autocut-dev/autocut/apiv1"

	"github.com/riverqueue/river"
)

// retentionArgs queues a retention sweep (a River periodic job).
type retentionArgs struct{}

// Kind names the River job kind.
func (retentionArgs) Kind() string { return "autocut_retention" }

type retentionWorker struct {
	river.WorkerDefaults[retentionArgs]
	m *Manager
}

// Work deletes originals older than OriginalsTTL and rendered files older
// than OutputsTTL. Records stay; an expired output becomes null.
func (w *retentionWorker) Work(ctx context.Context, _ *river.Job[retentionArgs]) error {
	w.m.metrics.maintenance.WithLabelValues("retention").Inc()
	w.m.log.Debug("retention sweep")
	return w.m.sweep(ctx, time.Now())
}

func (m *Manager) sweep(ctx context.Context, now time.Time) error {
	origBefore := now.Add(-m.cfg.OriginalsTTL).UnixNano()
	outBefore := now.Add(-m.cfg.OutputsTTL).UnixNano()
	rows, err := m.db.read.Query(ctx, `SELECT id FROM autocut_job
		WHERE status IN (?, ?) AND ((original_at > 0 AND original_at < ?) OR (output_at > 0 AND output_at < ?))`,
		apiv1.StatusDone, apiv1.StatusFailed, origBefore, outBefore)
	if err != nil {
		return fmt.Errorf("retention: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("retention: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("retention: %w", err)
	}
	for _, id := range ids {
		var del []string
		err := m.q.InTx(ctx, func(ex execer, _ enqueueFunc) error {
			r, err := getRecord(ctx, ex, "", id)
			if err != nil || r.Status.Busy() {
				return err
			}
			del = del[:0]
			if !r.OriginalAt.IsZero() && r.OriginalAt.UnixNano() < origBefore {
				del = append(del, r.OriginalKey)
				r.OriginalAt, r.OriginalExpired = time.Time{}, true
			}
			if !r.OutputAt.IsZero() && r.OutputAt.UnixNano() < outBefore {
				del = append(del, r.OutputKey)
				r.Output, r.OutputKey, r.OutputAt, r.OutputExpired = nil, "", time.Time{}, true
			}
			if len(del) == 0 {
				return nil
			}
			r.UpdatedAt = now.UTC()
			return saveRecord(ctx, ex, r, r.Gen)
		})
		if err != nil {
			m.log.Warn("retention", "job", id, "err", err)
			continue
		}
		m.deleteBlobs(ctx, del...)
		if len(del) > 0 {
			m.log.Info("retention deleted files", "job", id, "keys", del)
		}
	}
	return nil
}
