package store

// The job layer's tables. autocut_job is the API's source of truth
// (River's own rows are deleted after a day): the columns that queries
// filter on are real columns, the rest of the record is a JSON document
// (doc). Each driver creates the table with its own column types, then
// runs CommonSchema.

// JobColumns are autocut_job's columns, in the order the job layer reads
// and writes them; every driver's CREATE TABLE has them all.
const JobColumns = `id, owner, status, progress, gen, version, river_id, created_at, updated_at, original_at, output_at, doc`

// addedColumns are the columns added after the first release (a driver
// whose table predates them adds them): a run's lease, and summary, the
// document without the parts that grow with the input (the plan's cut and
// keep lists, an explicit cut list), which the job list reads instead of
// doc (” in rows written before it: the list reads doc then).
var addedColumns = [...]AddedColumn{
	{"lease_owner", "TEXT NOT NULL DEFAULT ''", "TEXT NOT NULL DEFAULT ''"},
	{"lease_until", "INTEGER NOT NULL DEFAULT 0", "BIGINT NOT NULL DEFAULT 0"},
	{"summary", "TEXT NOT NULL DEFAULT ''", "TEXT NOT NULL DEFAULT ''"},
}

// AddedColumn is a column added after the first release, with its type in
// each database.
type AddedColumn struct{ Name, SQLiteType, PostgresType string }

// AddedColumns returns the columns added after the first release.
func AddedColumns() []AddedColumn {
	out := make([]AddedColumn, len(addedColumns))
	copy(out, addedColumns[:])
	return out
}

// CommonSchema returns what follows each driver's CREATE TABLE: the
// indexes; autocut_task, which records when each cluster-wide periodic
// task last ran, with its one row seeded; and autocut_meta, facts about the
// database itself (the job layer writes the database's identity there, the
// row store_id, the first time it opens it).
func CommonSchema() []string {
	return []string{
		`CREATE INDEX IF NOT EXISTS autocut_job_owner_created ON autocut_job (owner, created_at DESC, id DESC)`,
		`CREATE INDEX IF NOT EXISTS autocut_job_status ON autocut_job (status)`,
		`CREATE INDEX IF NOT EXISTS autocut_job_original_at ON autocut_job (original_at)`,
		`CREATE INDEX IF NOT EXISTS autocut_job_output_at ON autocut_job (output_at)`,
		`CREATE TABLE IF NOT EXISTS autocut_task (name TEXT PRIMARY KEY, last_run BIGINT NOT NULL DEFAULT 0)`,
		`INSERT INTO autocut_task (name, last_run) VALUES ('rescue', 0) ON CONFLICT (name) DO NOTHING`,
		`CREATE TABLE IF NOT EXISTS autocut_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	}
}
