import { statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Drive, defaultDriveId, defaultToken } from './drive/drive.js';
import { Drives } from './drive/registry.js';
import { FaultQueue, type Fault } from './http/faults.js';
import { RequestBudget } from './http/rate-limit.js';
import { RequestLog, type RecordedRequest } from './http/request-log.js';
import { BASE_PATH, requestListener } from './http/server.js';
import { jobView } from './jobs/job-view.js';
import { loadOpenApi, type OpenApiDocument } from './openapi/document.js';
import type { PublishState } from './drive/model.js';
import { DEFAULTS, type DescriptSimulatorOptions } from './options.js';
import { ROUTES } from './routes/index.js';
import { projectDetailJson } from './routes/projects.js';
import { uuidFor } from './util/prng.js';
import { DAY } from './util/time.js';

export interface DriveHandle {
  driveId: string;
  token: string;
}

/** Read access to the simulated drives, for tests. `driveId` defaults to the main drive. */
export interface SimulatorState {
  quota(driveId?: string): { mediaMinutes: number; aiCredits: number };
  projectCount(driveId?: string): number;
  /** A project as GET /projects/{id} answers it, by ordinal (0 is the oldest seeded project). */
  project(ordinal: number, driveId?: string): Record<string, unknown> | undefined;
  /** A job as GET /jobs/{id} answers it now. */
  job(jobId: string, driveId?: string): Record<string, unknown> | undefined;
  /** Share slugs of the drive's publishes in a state (default published), newest projects first. */
  publishSlugs(limit: number, options?: { state?: PublishState; driveId?: string }): string[];
}

export interface DescriptSimulator {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:40123/v1`. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  readonly driveId: string;
  readonly otherDrives: readonly DriveHandle[];
  /** Requests received so far (the most recent `requestLogSize`). */
  readonly requests: readonly RecordedRequest[];
  readonly state: SimulatorState;
  clearRequests(): void;
  /** Replaces the next matching answer(s) with a scripted status and body. */
  failNext(fault: Fault): void;
  clearFaults(): void;
  setQuota(quota: { mediaMinutes?: number; aiCredits?: number }, driveId?: string): void;
  /** Makes a publish processing or failed (GET /published_projects answers 409), or published again. */
  setPublishState(slug: string, state: PublishState): void;
  /** An admin switch: POST /jobs/agent answers 403 while disabled. */
  setAgentDisabled(disabled: boolean, driveId?: string): void;
  setEnterprise(enterprise: boolean, driveId?: string): void;
  close(): Promise<void>;
}

const SALT_REQUEST = 91;

/**
 * The OpenAPI document at a path, parsed and compiled once per process (and again when the
 * file changes): its validators compile on first use, and simulators that tests start by the
 * dozen would otherwise each pay for the YAML and every schema anew.
 */
const documents = new Map<string, { mtimeMs: number; document: OpenApiDocument }>();
function openApiAt(path: string): OpenApiDocument {
  const { mtimeMs } = statSync(path);
  const known = documents.get(path);
  if (known?.mtimeMs === mtimeMs) return known.document;
  const document = loadOpenApi(path);
  documents.set(path, { mtimeMs, document });
  return document;
}

export async function startDescriptSimulator(options: DescriptSimulatorOptions = {}): Promise<DescriptSimulator> {
  const clock = options.clock ?? Date.now;
  // Seeded timestamps count back from the start of the current UTC day: stable within a day, always in the past.
  const anchorMs = Math.floor(clock() / DAY) * DAY;
  const seed = options.seed ?? DEFAULTS.seed;
  const main = new Drive({
    seed,
    size: options.size ?? DEFAULTS.size,
    token: options.token ?? defaultToken(seed),
    driveId: options.driveId ?? defaultDriveId(seed),
    driveName: options.driveName ?? 'Simulated Drive',
    enterprise: options.enterprise ?? false,
    mediaMinutes: options.mediaMinutes ?? DEFAULTS.mediaMinutes,
    aiCredits: options.aiCredits ?? DEFAULTS.aiCredits,
    anchorMs,
  });
  const others = (options.otherDrives ?? [{}]).map((other, k) => {
    const otherSeed = other.seed ?? seed + k + 1;
    return new Drive({
      seed: otherSeed,
      size: other.size ?? DEFAULTS.otherDriveSize,
      token: other.token ?? defaultToken(otherSeed),
      driveId: other.driveId ?? defaultDriveId(otherSeed),
      driveName: other.driveName ?? `Simulated Drive ${k + 2}`,
      enterprise: other.enterprise ?? false,
      mediaMinutes: other.mediaMinutes ?? DEFAULTS.mediaMinutes,
      aiCredits: other.aiCredits ?? DEFAULTS.aiCredits,
      anchorMs,
    });
  });
  const drives = new Drives([main, ...others]);
  if (new Set(drives.all.map((d) => d.token)).size !== drives.all.length)
    throw new Error('every simulated drive needs its own token');

  const faults = new FaultQueue();
  const log = new RequestLog(options.requestLogSize ?? DEFAULTS.requestLogSize);
  let requestCount = 0;
  const listener = requestListener({
    drives,
    routes: ROUTES,
    clock,
    jobDurationMs: options.jobDurationMs ?? DEFAULTS.jobDurationMs,
    ...(options.rateLimit ? { budget: new RequestBudget(options.rateLimit) } : {}),
    publishedBudget: new RequestBudget(options.publishedRateLimit ?? DEFAULTS.publishedRateLimit),
    ...(options.openapiPath ? { openapi: openApiAt(options.openapiPath) } : {}),
    faults,
    log,
    nextRequestId: () => uuidFor(seed, requestCount++, SALT_REQUEST),
  });
  const latencyMs = options.latencyMs ?? 0;
  const server = createServer(
    latencyMs > 0 ? (request, response) => setTimeout(() => listener(request, response), latencyMs) : listener,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const driveOf = (driveId?: string): Drive => {
    const drive = driveId === undefined ? main : drives.all.find((d) => d.id === driveId);
    if (!drive) throw new Error(`no simulated drive ${driveId}`);
    return drive;
  };
  const state: SimulatorState = {
    quota: (driveId) => ({ mediaMinutes: driveOf(driveId).mediaMinutes, aiCredits: driveOf(driveId).aiCredits }),
    projectCount: (driveId) => driveOf(driveId).projects.count,
    project: (ordinal, driveId) => {
      const drive = driveOf(driveId);
      return ordinal >= 0 && ordinal < drive.projects.count
        ? projectDetailJson(drive.projects.detail(ordinal), drive)
        : undefined;
    },
    job: (jobId, driveId) => {
      const drive = driveOf(driveId);
      const job = drive.jobs.get(jobId);
      return job ? jobView(job, drive.id, clock()) : undefined;
    },
    publishSlugs: (limit, { state: wanted = 'published', driveId } = {}) => {
      const drive = driveOf(driveId);
      const slugs: string[] = [];
      for (let o = drive.projects.count - 1; o >= 0 && slugs.length < limit; o--) {
        for (const publish of drive.projects.detail(o).publishes) {
          if (slugs.length < limit && drive.publishState(publish) === wanted) slugs.push(publish.slug);
        }
      }
      return slugs;
    },
  };

  return {
    url: `http://127.0.0.1:${port}${BASE_PATH}`,
    port,
    token: main.token,
    driveId: main.id,
    otherDrives: others.map((drive) => ({ driveId: drive.id, token: drive.token })),
    get requests() {
      return log.all;
    },
    state,
    clearRequests: () => log.clear(),
    failNext: (fault) => faults.push(fault),
    clearFaults: () => faults.clear(),
    setQuota: (quota, driveId) => {
      const drive = driveOf(driveId);
      if (quota.mediaMinutes !== undefined) drive.mediaMinutes = quota.mediaMinutes;
      if (quota.aiCredits !== undefined) drive.aiCredits = quota.aiCredits;
    },
    setPublishState: (slug, publishState) => {
      const found = drives.findPublish(slug);
      if (!found) throw new Error(`no publish with slug ${slug}`);
      found.drive.publishStates.set(slug, publishState);
    },
    setAgentDisabled: (disabled, driveId) => {
      driveOf(driveId).agentDisabled = disabled;
    },
    setEnterprise: (enterprise, driveId) => {
      driveOf(driveId).enterprise = enterprise;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
