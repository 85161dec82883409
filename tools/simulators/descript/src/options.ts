import type { RateLimit } from './http/rate-limit.js';
import { HOUR } from './util/time.js';

/** How to start a simulator; every field has a default. */

export interface OtherDriveOptions {
  seed?: number;
  size?: number;
  token?: string;
  driveId?: string;
  driveName?: string;
  enterprise?: boolean;
  mediaMinutes?: number;
  aiCredits?: number;
}

export interface DescriptSimulatorOptions {
  /** 0 (default) picks a free port. The server listens on 127.0.0.1 only. */
  port?: number;
  /** Seed of the drive's deterministic content. Default 1. */
  seed?: number;
  /** Number of seeded projects in the drive. Default 100; 1,000,000 is fine, projects are derived on demand. */
  size?: number;
  /** The provider's OpenAPI document; when given, every request is checked against it. */
  openapiPath?: string;
  /** Default: a fake token derived from the seed (`dsim_…`). */
  token?: string;
  driveId?: string;
  driveName?: string;
  /** General request budget per token. Default false: the provider publishes no general limit. */
  rateLimit?: RateLimit | false;
  /** Budget of GET /published_projects/{slug}. Default 1,000 per hour, the provider's published figure. */
  publishedRateLimit?: RateLimit;
  /** Media minutes left for imports. Default 6,000. */
  mediaMinutes?: number;
  /** AI credits left for agent edits. Default 5,000. */
  aiCredits?: number;
  /** Milliseconds since the epoch; jobs and rate windows follow it. Default Date.now. */
  clock?: () => number;
  /** Time from queued to stopped for jobs started through the API. Default 20 s. */
  jobDurationMs?: number;
  /** Enterprise drives allow visual search. Default false. */
  enterprise?: boolean;
  /** Further drives with their own tokens; their projects answer 403 to this drive's token. Default: one drive of 10 projects. */
  otherDrives?: OtherDriveOptions[];
  /** How many recent requests `requests` keeps. Default 10,000. */
  requestLogSize?: number;
  /** Milliseconds every request waits before it is handled, as a provider across a network would. Default 0. */
  latencyMs?: number;
}

export const DEFAULTS = {
  seed: 1,
  size: 100,
  mediaMinutes: 6000,
  aiCredits: 5000,
  jobDurationMs: 20_000,
  publishedRateLimit: { limit: 1000, windowMs: HOUR },
  otherDriveSize: 10,
  requestLogSize: 10_000,
} as const;
