import { FIRST_NAMES, LAST_NAMES } from './catalog.js';
import { seedLibrary, type LibraryItem } from './library.js';
import type { Member, Publish, PublishState } from './model.js';
import { ProjectStore } from './project-store.js';
import { SeededProjects } from './seeded-projects.js';
import { JobStore } from '../jobs/job-store.js';
import { seedJobs } from '../jobs/seeded-jobs.js';
import { hex, mix, uuidFor } from '../util/prng.js';

/** One drive of the provider: what a token can see, and the quotas its jobs spend. */

export interface DriveSettings {
  seed: number;
  size: number;
  token: string;
  driveId: string;
  driveName: string;
  enterprise: boolean;
  mediaMinutes: number;
  aiCredits: number;
  /** The instant the drive was seeded at; seeded timestamps lie before it. */
  anchorMs: number;
}

const SALT_MEMBER = 31;
const SALT_TOKEN = 32;
const SALT_DRIVE = 33;
const MEMBERS = 4;

export class Drive {
  readonly id: string;
  readonly name: string;
  readonly token: string;
  readonly seed: number;
  readonly anchorMs: number;
  /** Member 0 owns the token: `created_by=me` means them. */
  readonly members: readonly Member[];
  readonly projects: ProjectStore;
  readonly jobs = new JobStore();
  readonly library: readonly LibraryItem[];
  enterprise: boolean;
  agentDisabled = false;
  mediaMinutes: number;
  aiCredits: number;
  /** Publish states set by tests, overriding the seeded ones, by slug. */
  readonly publishStates = new Map<string, PublishState>();
  /** Agent conversations, to the project they belong to. */
  readonly conversations = new Map<string, string>();

  constructor(settings: DriveSettings) {
    this.id = settings.driveId;
    this.name = settings.driveName;
    this.token = settings.token;
    this.seed = settings.seed;
    this.anchorMs = settings.anchorMs;
    this.enterprise = settings.enterprise;
    this.mediaMinutes = settings.mediaMinutes;
    this.aiCredits = settings.aiCredits;
    this.members = Array.from({ length: MEMBERS }, (_, k) => ({
      id: uuidFor(settings.seed, k, SALT_MEMBER),
      firstName: FIRST_NAMES[mix(settings.seed, k, SALT_MEMBER) % FIRST_NAMES.length] ?? 'Ada',
      lastName: LAST_NAMES[mix(settings.seed, k, SALT_MEMBER + 1) % LAST_NAMES.length] ?? 'Lovelace',
    }));
    this.projects = new ProjectStore(
      new SeededProjects(settings.seed, settings.size, settings.anchorMs, this.members),
      settings.seed,
    );
    this.library = seedLibrary(settings.seed, this.members, settings.anchorMs);
    for (const job of seedJobs(settings.seed, settings.size, settings.anchorMs, (o) => this.projects.project(o).id)) {
      this.jobs.add(job);
      // Past agent conversations can be continued, as on the provider.
      const conversation = job.result['conversation_id'];
      if (typeof conversation === 'string') this.conversations.set(conversation, job.projectId);
    }
  }

  publishState(publish: Publish): PublishState {
    return this.publishStates.get(publish.slug) ?? publish.state;
  }

  member(id: string): Member | undefined {
    return this.members.find((member) => member.id === id);
  }
}

/** A fake, recognisable token derived from the seed: `dsim_` and 32 hex digits. Never a real secret. */
export function defaultToken(seed: number): string {
  return `dsim_${[0, 1, 2, 3].map((k) => hex(mix(seed, k, SALT_TOKEN), 8)).join('')}`;
}

export function defaultDriveId(seed: number): string {
  return uuidFor(seed, 0, SALT_DRIVE);
}
