/**
 * The jobs of one drive. A job's state is not stored: it is read from the clock (see
 * job-view.ts). What a job does to the drive is applied once, when `settle` first sees it
 * stopped, so a project changes when its job finishes rather than when it is queued.
 */

export type JobType = 'import/project_media' | 'agent';

export interface JobRecord {
  id: string;
  type: JobType;
  projectId: string;
  projectUrl: string;
  createdAtMs: number;
  durationMs: number;
  /** Progress labels, shown in turn while the job runs. */
  steps: readonly string[];
  /** The `result` object the job answers once stopped. */
  result: Record<string, unknown>;
  /** The project URL once stopped, when the job created a composition the URL can point at. */
  stoppedProjectUrl?: string;
  effect?: (stoppedAtMs: number) => void;
}

export interface JobQuery {
  projectId?: string;
  type?: JobType;
  createdAfter: number;
  createdBefore: number;
  /** The last job of the previous page. */
  after?: { createdAtMs: number; id: string };
  limit: number;
}

export class JobStore {
  private readonly jobs: JobRecord[] = [];
  private readonly byId = new Map<string, JobRecord>();
  private pending: JobRecord[] = [];

  get count(): number {
    return this.jobs.length;
  }

  add(job: JobRecord): void {
    this.jobs.push(job);
    this.byId.set(job.id, job);
    if (job.effect) this.pending.push(job);
  }

  get(id: string): JobRecord | undefined {
    return this.byId.get(id.toLowerCase());
  }

  /** Applies the effects of jobs that have stopped by `nowMs`, in the order they stopped. */
  settle(nowMs: number): void {
    const stopped = this.pending.filter((job) => job.createdAtMs + job.durationMs <= nowMs);
    if (stopped.length === 0) return;
    this.pending = this.pending.filter((job) => !stopped.includes(job));
    stopped.sort((a, b) => a.createdAtMs + a.durationMs - (b.createdAtMs + b.durationMs));
    for (const job of stopped) job.effect?.(job.createdAtMs + job.durationMs);
  }

  /** Newest first, keyset-paginated by (created_at, job id). */
  list(query: JobQuery): { jobs: JobRecord[]; more: boolean } {
    const newestFirst = (a: JobRecord, b: JobRecord) =>
      b.createdAtMs - a.createdAtMs || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    const after = query.after;
    const matching = this.jobs
      .filter(
        (job) =>
          job.createdAtMs >= query.createdAfter &&
          job.createdAtMs <= query.createdBefore &&
          (query.projectId === undefined || job.projectId === query.projectId.toLowerCase()) &&
          (query.type === undefined || job.type === query.type) &&
          (after === undefined ||
            job.createdAtMs < after.createdAtMs ||
            (job.createdAtMs === after.createdAtMs && job.id < after.id)),
      )
      .sort(newestFirst);
    return { jobs: matching.slice(0, query.limit), more: matching.length > query.limit };
  }
}
