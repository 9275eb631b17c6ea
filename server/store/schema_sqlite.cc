// SQLite's DDL for each schema version: migration N brings the database from version N-1 to N.
// Never edit a released migration; add the next one here and in schema_postgres.cc (the two
// lists have the same versions and the same tables), and raise JobStore::kSchemaVersion.
#include <iterator>

#include "server/store/schema.h"

namespace kbench::store::internal {
namespace {

constexpr const char* kSqliteMigrations[] = {
    // 1: jobs and artifacts' metadata.
    // seq is the rowid (INTEGER PRIMARY KEY AUTOINCREMENT): SQLite then guarantees it only
    // grows and is never reused, which paging by seq relies on; the job id is a UNIQUE key.
    // idempotency_key is NULL when the client gave none (NULLs never collide under UNIQUE).
    // The (column, seq) indexes serve List's filters in seq order and ListByState.
    R"sql(
CREATE TABLE jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL
    CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  device TEXT NOT NULL,
  kernel TEXT NOT NULL,
  kind TEXT NOT NULL,
  priority INTEGER NOT NULL,
  idempotency_key TEXT UNIQUE,
  create_time_ns INTEGER NOT NULL,
  start_time_ns INTEGER NOT NULL DEFAULT 0,
  finish_time_ns INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '',
  error_code TEXT NOT NULL DEFAULT '',
  spec BLOB NOT NULL,
  result BLOB NOT NULL DEFAULT x''
);
CREATE INDEX jobs_by_state ON jobs (state, seq);
CREATE INDEX jobs_by_kernel ON jobs (kernel, seq);
CREATE INDEX jobs_by_device ON jobs (device, seq);
CREATE TABLE artifacts (
  job_id TEXT NOT NULL REFERENCES jobs (id),
  name TEXT NOT NULL,
  relative_path TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL CHECK (size_bytes >= 0),
  sha256 TEXT NOT NULL,
  create_time_ns INTEGER NOT NULL,
  PRIMARY KEY (job_id, name)
);
CREATE INDEX artifacts_by_age ON artifacts (create_time_ns);
)sql",
    // 2: GPU time per run, for fair share, daily quotas and queue estimates (usage_store.h).
    // One row per run of a job (a re-queued job runs again as its next attempt). Durations in
    // microseconds: the statement wrapper binds integers, and a microsecond is plenty.
    R"sql(
CREATE TABLE usage_charges (
  job_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  owner TEXT NOT NULL,
  device TEXT NOT NULL,
  similar_key TEXT NOT NULL,
  succeeded INTEGER NOT NULL CHECK (succeeded IN (0, 1)),
  gpu_microseconds INTEGER NOT NULL CHECK (gpu_microseconds >= 0),
  end_time_ns INTEGER NOT NULL,
  PRIMARY KEY (job_id, attempt)
);
CREATE INDEX usage_charges_by_end ON usage_charges (end_time_ns);
)sql",
    // 3: sweeps (issue 13): a sweep, the job of each of its points, and its report's artifacts
    // (files under <data-dir>/sweeps/<id>/). A sweep's jobs are ordinary jobs; sweep_points only
    // ties them to the sweep, so the scheduler and its fair share see nothing new.
    // cancel_requested: CancelSweep was called; the reporter then ends it as 'cancelled'.
    R"sql(
CREATE TABLE sweeps (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'reporting', 'done', 'cancelled')),
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  idempotency_key TEXT UNIQUE,
  create_time_ns INTEGER NOT NULL,
  finish_time_ns INTEGER NOT NULL DEFAULT 0,
  spec BLOB NOT NULL,
  error TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sweeps_by_state ON sweeps (state, seq);
CREATE TABLE sweep_points (
  sweep_id TEXT NOT NULL REFERENCES sweeps (id),
  idx INTEGER NOT NULL CHECK (idx >= 0),
  job_id TEXT NOT NULL REFERENCES jobs (id),
  point BLOB NOT NULL,
  PRIMARY KEY (sweep_id, idx)
);
CREATE TABLE sweep_artifacts (
  sweep_id TEXT NOT NULL REFERENCES sweeps (id),
  name TEXT NOT NULL,
  relative_path TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size_bytes INTEGER NOT NULL CHECK (size_bytes >= 0),
  sha256 TEXT NOT NULL,
  create_time_ns INTEGER NOT NULL,
  PRIMARY KEY (sweep_id, name)
);
)sql",
    // 4: the result index (issue 13): one row per variant of a succeeded benchmark job, keyed
    // so that history and leaderboards are queries, not scans of every job's result blob.
    // job_id is not a foreign key: history outlives --job-retention's pruning of the job.
    // shape is "4096x4096", params "name=value,..." sorted by name, dtype and mode are the
    // API's words ("f32", "cold"). Rows are written after the job's own row turns succeeded.
    R"sql(
CREATE TABLE result_index (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  variant TEXT NOT NULL,
  module_sha256 TEXT NOT NULL DEFAULT '',
  kernel TEXT NOT NULL,
  shape TEXT NOT NULL,
  dtype TEXT NOT NULL,
  params TEXT NOT NULL,
  mode TEXT NOT NULL,
  device TEXT NOT NULL,
  device_model TEXT NOT NULL,
  driver_version TEXT NOT NULL,
  kbench_version TEXT NOT NULL,
  owner TEXT NOT NULL,
  finish_time_ns INTEGER NOT NULL,
  median_seconds REAL NOT NULL,
  median_ci_low_seconds REAL NOT NULL,
  median_ci_high_seconds REAL NOT NULL,
  samples INTEGER NOT NULL,
  correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
  impossible INTEGER NOT NULL CHECK (impossible IN (0, 1)),
  contended INTEGER NOT NULL CHECK (contended IN (0, 1)),
  UNIQUE (job_id, variant, module_sha256)
);
CREATE INDEX result_index_by_kernel ON result_index (kernel, seq);
CREATE INDEX result_index_by_board ON result_index (kernel, dtype, device_model, shape);
)sql",
    // 5: the fleet (issue 14): several kbenchd nodes sharing one queue. Used on PostgreSQL; on
    // SQLite (one host) the columns hold this node's name and the tables stay small or empty.
    // jobs.node: the node that claimed the job ('' while no node has); jobs.target: what the
    // submitter asked for ("gpu-a/cuda:0", "any/cuda", "model/h100"); jobs.owner: the
    // authenticated owner (fair share orders claims by it); lease_expires_ns: a claiming node
    // renews it while alive, and any node re-queues the job once it passes; cancel_requested:
    // a CancelJob that reached another node than the one running the job.
    // nodes: one row per node, its devices (a serialized kbench.v1.DeviceList) and heartbeat.
    // job_transitions: every claim, start and end with the node that made it (an audit trail
    // that shows no job ever ran on two nodes at once). artifact_chunks: artifact bytes, so any
    // node serves any artifact.
    R"sql(
ALTER TABLE jobs ADD COLUMN node TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN target TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN lease_expires_ns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
CREATE INDEX jobs_claimable ON jobs (state, node, seq);
CREATE TABLE nodes (
  name TEXT PRIMARY KEY,
  address TEXT NOT NULL,
  version TEXT NOT NULL,
  start_time_ns INTEGER NOT NULL,
  heartbeat_ns INTEGER NOT NULL,
  devices BLOB NOT NULL
);
CREATE TABLE job_transitions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  node TEXT NOT NULL,
  device TEXT NOT NULL,
  state TEXT NOT NULL,
  time_ns INTEGER NOT NULL
);
CREATE INDEX job_transitions_by_job ON job_transitions (job_id, seq);
CREATE TABLE artifact_chunks (
  job_id TEXT NOT NULL,
  name TEXT NOT NULL,
  idx INTEGER NOT NULL CHECK (idx >= 0),
  data BLOB NOT NULL,
  PRIMARY KEY (job_id, name, idx)
);
)sql",
    // 6: registered user variants (issue 10): a user kernel stored under a name per operation
    // ("@my_online" of softmax), so that any job can list it among its variants. kernel: a
    // serialized kbench.v1.UserKernel (code, entry, launch, options, Triton metadata);
    // sha256: of its code; owner: who registered it (only they or an admin remove it).
    R"sql(
CREATE TABLE user_variants (
  operation TEXT NOT NULL,
  name TEXT NOT NULL,
  owner TEXT NOT NULL,
  form TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  code_bytes INTEGER NOT NULL,
  kernel BLOB NOT NULL,
  create_time_ns INTEGER NOT NULL,
  PRIMARY KEY (operation, name)
);
CREATE INDEX user_variants_by_owner ON user_variants (owner);
)sql",
    // 7: buffer placements (JobSpec.placements) in the result key: a result pooled over N
    // placements is not compared with one of a single placement. Earlier rows had one.
    R"sql(
ALTER TABLE result_index ADD COLUMN placements INTEGER NOT NULL DEFAULT 1;
)sql",
    // 8: a running job's latest progress (a serialized kbench.v1.Progress; empty when none was
    // shared), written by the fleet node that runs it so that the other nodes' GetJob and
    // WatchJob show it too. A single host keeps progress in memory and leaves it empty.
    R"sql(
ALTER TABLE jobs ADD COLUMN progress BLOB NOT NULL DEFAULT x'';
)sql",
    // 9: ranked runs (issue 23): a leaderboard counts only results of the ranked protocol that
    // converged without drifting, and a rank is final once kbenchd's own re-run confirmed it.
    // Earlier rows were neither.
    R"sql(
ALTER TABLE result_index ADD COLUMN ranked INTEGER NOT NULL DEFAULT 0;
ALTER TABLE result_index ADD COLUMN confirmation INTEGER NOT NULL DEFAULT 0;
)sql",
    // 10: idempotency keys unique per owner (issue 24), of jobs and of sweeps: with one key
    // space, bob could submit under alice's key first and her retry would find his job. SQLite
    // cannot drop the column's
    // UNIQUE without rebuilding the table, so the key moves to a new column unique with the
    // owner, and idempotency_key stays, always NULL. Rows from before migration 5 have owner
    // '': their keys no longer match anyone's retry.
    R"sql(
ALTER TABLE jobs ADD COLUMN owner_idempotency_key TEXT;
UPDATE jobs SET owner_idempotency_key = idempotency_key, idempotency_key = NULL
  WHERE idempotency_key IS NOT NULL;
CREATE UNIQUE INDEX jobs_by_owner_key ON jobs (owner, owner_idempotency_key);
ALTER TABLE sweeps ADD COLUMN owner_idempotency_key TEXT;
UPDATE sweeps SET owner_idempotency_key = idempotency_key, idempotency_key = NULL
  WHERE idempotency_key IS NOT NULL;
CREATE UNIQUE INDEX sweeps_by_owner_key ON sweeps (owner, owner_idempotency_key);
)sql",
    // 11: a single host's jobs log their transitions too (issue 25), as PostgreSQL's trigger
    // does since migration 5: every insert, and every change of state or node, with the time
    // (millisecond precision: SQLite 3.40 has no sub-second unixepoch). The audit trail an
    // operator (and the chaos test) reads to see that no job ended twice or ran twice.
    R"sql(
CREATE TRIGGER jobs_inserted AFTER INSERT ON jobs BEGIN
  INSERT INTO job_transitions (job_id, node, device, state, time_ns)
    VALUES (NEW.id, NEW.node, NEW.device, NEW.state,
            CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) * 1000000);
END;
CREATE TRIGGER jobs_changed AFTER UPDATE OF state, node ON jobs
  WHEN OLD.state IS NOT NEW.state OR OLD.node IS NOT NEW.node BEGIN
  INSERT INTO job_transitions (job_id, node, device, state, time_ns)
    VALUES (NEW.id, NEW.node, NEW.device, NEW.state,
            CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) * 1000000);
END;
)sql",
    // 12: stored bytes per owner (issue 24, item 8): a job's spec carries its user kernels' code
    // inline (up to 32 MiB), so an owner's bound on stored bytes sums spec_bytes. The index
    // answers that sum, and the ids its artifacts join on, without reading a row.
    R"sql(
ALTER TABLE jobs ADD COLUMN spec_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET spec_bytes = length(spec);
CREATE INDEX jobs_stored_by_owner ON jobs (owner, spec_bytes, id);
)sql",
    // 13: whether a result's job set a stopping rule of its own (issue 26): a verdict reads the
    // between-job noise of a key only from results of the same kind of stopping rule as its
    // baseline's. Earlier rows read as the default rule.
    R"sql(
ALTER TABLE result_index ADD COLUMN custom_stopping INTEGER NOT NULL DEFAULT 0;
)sql",
    // 14: users' kernel code kept once (issue 24; server/store/code_blobs.h): a job's or a
    // registered variant's kernel larger than 4 KiB keeps only its sha256 inline and its code
    // here, whoever refers to it. A job refers to a blob by a job_code_refs row (owner copied,
    // so an owner's charge is an indexed read), a variant by user_variants.sha256; a blob no
    // row refers to is deleted in the transaction that dropped its last reference. Earlier
    // jobs and variants keep their code inline.
    R"sql(
CREATE TABLE code_blobs (
  sha256 TEXT PRIMARY KEY,
  code BLOB NOT NULL,
  owner TEXT NOT NULL,
  size_bytes INTEGER NOT NULL,
  create_time_ns INTEGER NOT NULL
);
CREATE TABLE job_code_refs (
  job_id TEXT NOT NULL REFERENCES jobs (id),
  sha256 TEXT NOT NULL REFERENCES code_blobs (sha256),
  owner TEXT NOT NULL,
  PRIMARY KEY (job_id, sha256)
);
CREATE INDEX job_code_refs_by_sha256 ON job_code_refs (sha256);
CREATE INDEX job_code_refs_by_owner ON job_code_refs (owner, sha256);
CREATE INDEX user_variants_by_sha256 ON user_variants (sha256);
)sql",
    // 15: every result's conditions (issue 29): whether its clean-measurement stamp found the
    // sampling window clean (results before the stamp, and those of a device that takes no
    // readings, count as clean), and its energy per launch in joules (0: not measured; a measured
    // energy is never 0). History, verdict baselines and leaderboards leave unclean rows out
    // unless asked; leaderboards by energy rank by the second column.
    R"sql(
ALTER TABLE result_index ADD COLUMN clean INTEGER NOT NULL DEFAULT 1;
ALTER TABLE result_index ADD COLUMN joules_per_launch REAL NOT NULL DEFAULT 0;
)sql",
    // 16: a job's status code as its number (issue 27), absl::StatusCode's and the API's
    // StatusCode's, where error_code held its name. Each name is backfilled as its number (the
    // numbering of google.rpc.Code); a name that is no code (or none) reads as UNKNOWN on a
    // failed job and OK on any other. As migration 10 did with idempotency_key, error_code stays
    // (SQLite cannot drop it without rebuilding the table), always '': nothing reads it.
    R"sql(
ALTER TABLE jobs ADD COLUMN status_code INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET error_code = '', status_code = CASE error_code
  WHEN 'CANCELLED' THEN 1 WHEN 'UNKNOWN' THEN 2 WHEN 'INVALID_ARGUMENT' THEN 3
  WHEN 'DEADLINE_EXCEEDED' THEN 4 WHEN 'NOT_FOUND' THEN 5 WHEN 'ALREADY_EXISTS' THEN 6
  WHEN 'PERMISSION_DENIED' THEN 7 WHEN 'RESOURCE_EXHAUSTED' THEN 8
  WHEN 'FAILED_PRECONDITION' THEN 9 WHEN 'ABORTED' THEN 10 WHEN 'OUT_OF_RANGE' THEN 11
  WHEN 'UNIMPLEMENTED' THEN 12 WHEN 'INTERNAL' THEN 13 WHEN 'UNAVAILABLE' THEN 14
  WHEN 'DATA_LOSS' THEN 15 WHEN 'UNAUTHENTICATED' THEN 16
  ELSE CASE WHEN state = 'failed' THEN 2 ELSE 0 END END;
)sql",
};

}  // namespace

std::vector<std::string_view> SqliteMigrations() {
  return {std::begin(kSqliteMigrations), std::end(kSqliteMigrations)};
}

}  // namespace kbench::store::internal
