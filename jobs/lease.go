package jobs

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/autocut-dev/autocut/apiv1"

	"github.com/riverqueue/river/rivertype"
)

// A run holds a lease on its record: lease_owner names the node, and
// lease_until is renewed every LeaseTTL/3 while the run goes on. A run whose
// lease expired (its node was killed or cut off) is taken over by a rescue
// pass of any worker node, which bumps the record's gen and enqueues a new run; the old run,
// if its node still lives, fails to renew, cancels itself, and every write it
// tries is refused by the gen check. So a job is never worked by two runs at
// once and never left behind.

// errLeaseHeld reports that another live worker holds the job.
var errLeaseHeld = errors.New("job is held by another worker")

// claim takes the lease of a run (the record's gen must still be gen).
func (m *Manager) claim(ctx context.Context, id string, gen int64) error {
	now := time.Now()
	n, err := m.db.write.Exec(ctx, `UPDATE autocut_job SET lease_owner = ?, lease_until = ?
		WHERE id = ? AND gen = ? AND (lease_owner = '' OR lease_owner = ? OR lease_until < ?)`,
		m.cfg.NodeID, now.Add(m.cfg.LeaseTTL).UnixNano(), id, gen, m.cfg.NodeID, now.UnixNano())
	if err != nil {
		return fmt.Errorf("claim job %s: %w", id, err)
	}
	if n == 0 {
		return errLeaseHeld
	}
	return nil
}

// renew extends the lease; errStale when the run lost it (re-run, deleted,
// or taken over).
func (m *Manager) renew(ctx context.Context, id string, gen int64) error {
	n, err := m.db.write.Exec(ctx, `UPDATE autocut_job SET lease_until = ? WHERE id = ? AND gen = ? AND lease_owner = ?`,
		time.Now().Add(m.cfg.LeaseTTL).UnixNano(), id, gen, m.cfg.NodeID)
	if err != nil {
		return fmt.Errorf("renew lease of job %s: %w", id, err)
	}
	if n == 0 {
		return errStale
	}
	return nil
}

// release gives the lease up when a run ends, so that a retry can start at once.
func (m *Manager) release(ctx context.Context, id string, gen int64) {
	_, _ = m.db.write.Exec(ctx, `UPDATE autocut_job SET lease_owner = '', lease_until = 0 WHERE id = ? AND gen = ? AND lease_owner = ?`,
		id, gen, m.cfg.NodeID)
}

// rescueLoop runs a rescue pass once per LeaseTTL/2 across the cluster
// until ctx ends. Every worker node takes part, not River's leader alone:
// when the killed node was the leader, River elects a new one only after its
// leadership expires (15 s), and a rescue should not wait for that. Nodes
// look every eighth to sixteenth of the period and the first to find the
// task's last run at least 7/8 period old advances it and does the pass
// (claimTask), so that passes are never more than a period apart, even
// with one node left: an expired lease is taken over within LeaseTTL/2. A
// takeover is one transaction that checks the record's gen anyway, so even
// two passes at once re-enqueue a run only once.
func (m *Manager) rescueLoop(ctx context.Context) {
	every := max(m.cfg.LeaseTTL/2, 100*time.Millisecond)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(every/16 + time.Duration(rand.Int64N(int64(every)/16))):
		}
		ok, err := m.claimTask(ctx, "rescue", every-every/8)
		if err != nil || !ok {
			if err != nil && ctx.Err() == nil {
				m.log.Warn("rescue pass not claimed", "err", err)
			}
			continue
		}
		m.metrics.maintenance.WithLabelValues("rescue").Inc()
		if err := m.rescue(ctx, false); err != nil && ctx.Err() == nil {
			m.log.Warn("rescue pass failed", "err", err)
		}
	}
}

// claimTask reports whether this node runs the periodic task now: true for
// the one node that moves its last run forward once it is at least gap
// old. The task's row is seeded by the schema (taskSeed).
func (m *Manager) claimTask(ctx context.Context, name string, gap time.Duration) (bool, error) {
	now := time.Now()
	n, err := m.db.write.Exec(ctx, `UPDATE autocut_task SET last_run = ? WHERE name = ? AND last_run <= ?`,
		now.UnixNano(), name, now.Add(-gap).UnixNano())
	if err != nil {
		return false, fmt.Errorf("task %s: %w", name, err)
	}
	return n == 1, nil
}

// rescue re-enqueues busy jobs that no live run holds. With all (a
// single-node SQLite server starting up) every busy job that River will not
// run again counts: nothing else can be running it.
func (m *Manager) rescue(ctx context.Context, all bool) error {
	now := time.Now()
	q := `SELECT id, gen, river_id, lease_owner FROM autocut_job WHERE status IN (?, ?, ?)`
	args := []any{apiv1.StatusAnalyzing, apiv1.StatusTranscribing, apiv1.StatusRendering}
	if !all {
		q += ` AND lease_until < ?`
		args = append(args, now.UnixNano())
	}
	rs, err := m.db.read.Query(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("rescue jobs: %w", err)
	}
	type pending struct {
		id, owner    string
		gen, riverID int64
	}
	var todo []pending
	for rs.Next() {
		var p pending
		if err := rs.Scan(&p.id, &p.gen, &p.riverID, &p.owner); err != nil {
			rs.Close()
			return fmt.Errorf("rescue jobs: %w", err)
		}
		todo = append(todo, p)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return fmt.Errorf("rescue jobs: %w", err)
	}
	for _, p := range todo {
		row, err := m.q.Job(ctx, p.riverID)
		if err != nil {
			return fmt.Errorf("rescue job %s: %w", p.id, err)
		}
		if row != nil {
			switch row.State {
			case rivertype.JobStateAvailable, rivertype.JobStateScheduled,
				rivertype.JobStateRetryable, rivertype.JobStatePending:
				continue // River will run it
			case rivertype.JobStateRunning:
				// A run that has not claimed its lease yet was only just
				// fetched: give it one lease period.
				if !all && p.owner == "" && row.AttemptedAt != nil && now.Sub(*row.AttemptedAt) < m.cfg.LeaseTTL {
					continue
				}
			}
		}
		err = m.q.InTx(ctx, func(ex execer, enqueue enqueueFunc) error {
			rid, err := enqueue(ctx, processArgs{JobID: p.id, Gen: p.gen + 1}, processInsertOpts())
			if err != nil {
				return err
			}
			n, err := ex.Exec(ctx, `UPDATE autocut_job SET gen = ?, river_id = ?, lease_owner = '', lease_until = 0
				WHERE id = ? AND gen = ?`, p.gen+1, rid, p.id, p.gen)
			if err != nil {
				return err
			}
			if n == 0 {
				return errStale
			}
			return nil
		})
		if errors.Is(err, errStale) {
			continue
		}
		if err != nil {
			return fmt.Errorf("rescue job %s: %w", p.id, err)
		}
		if row != nil && row.State == rivertype.JobStateRunning {
			_ = m.q.Cancel(ctx, p.riverID) // the dead run's River job
		}
		m.metrics.rescued.Inc()
		state := "gone"
		if row != nil {
			state = string(row.State)
		}
		m.log.Warn("re-enqueued a run no worker holds", "job", p.id, "gen", p.gen+1, "leaseOwner", p.owner, "riverState", state)
	}
	return nil
}
