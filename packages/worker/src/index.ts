export { postgresCredentialStore } from './credentials.js';
export type { PostgresCredentialStoreOptions } from './credentials.js';
export {
  CredentialUnreadableError,
  DatabaseUnavailableError,
  SchemaVersionError,
  StoreValueTooLargeError,
} from './errors.js';
export { database } from './database.js';
export type { Database } from './database.js';
export { LIMITS } from './limits.js';
export { assertMigrated, migrate } from './migrations.js';
export type { Migration, MigrationReport } from './migrations.js';
export { postgresStores } from './stores.js';
export { EvictionPolicyError, QueueUnavailableError } from './queue/errors.js';
export { READS_QUEUE, WRITES_QUEUE } from './queue/jobs.js';
export type { RunJob, RunProgress } from './queue/jobs.js';
export type { Run, RunStatus } from './queue/runs.js';
export { createSubmitter, submitRun } from './queue/submit.js';
export type { RunSubmission, Submission, Submitter, SubmitterOptions, SubmitRunOptions } from './queue/submit.js';
export { startWorker } from './queue/worker.js';
export type { RunWorker, StartWorkerOptions } from './queue/worker.js';
export type { PluginPoolOptions } from './queue/plugin-pool.js';
export { followRun } from './queue/follow.js';
export type { FollowHandlers, FollowRunOptions } from './queue/follow.js';
export { SinkCheckpointMovedError } from './sink/errors.js';
export { SINK_LIMITS } from './sink/page.js';
export { postgresSink } from './sink/postgres-sink.js';
export type {
  PostgresSink,
  PostgresSinkOptions,
  SinkPage,
  SinkStream,
  SinkWriteOptions,
} from './sink/postgres-sink.js';
export { runSourceIntoSink } from './sink/run.js';
export type { SinkRunOutcome, SinkRunRequest } from './sink/run.js';
export { addSchedule, listSchedules, MAX_INTERVAL_MINUTES, removeSchedule } from './schedules/manage.js';
export type { AddScheduleOptions, ScheduleTarget } from './schedules/manage.js';
export { reconcileSchedules, SCHEDULES_QUEUE } from './schedules/reconcile.js';
export type { Reconciliation, ReconcileOptions, TickJob } from './schedules/reconcile.js';
export type { Schedule, ScheduleState } from './schedules/store.js';
export { listRuns, MAX_LISTED_RUNS, showRun } from './observe/runs-report.js';
export type { ListRunsOptions, RunReport, ShowRunOptions } from './observe/runs-report.js';
export { CANCEL_CHANNEL, cancelRun } from './observe/cancel.js';
export type { CancelRunOptions, Cancellation } from './observe/cancel.js';
export { serveMetrics } from './observe/metrics-server.js';
export type { MetricsServer } from './observe/metrics-server.js';
export { openMigratedPool, openPostgresStores } from './observe/open-stores.js';
export type { MigratedPool, OpenedStores } from './observe/open-stores.js';
