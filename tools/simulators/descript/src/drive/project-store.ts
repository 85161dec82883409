import { TOPICS } from './catalog.js';
import { ordinalOfProjectId, projectIdFor } from './ids.js';
import type { Project, ProjectDetail } from './model.js';
import type { SeededProjects } from './seeded-projects.js';
import { hashString } from '../util/prng.js';

/**
 * The projects of one drive: the seeded ones, derived on demand, plus an overlay of the few
 * that changed (imports, agent edits) or were created through the API. Only the overlay is
 * held in memory.
 */
export class ProjectStore {
  /** Materialised projects: changed seeded ones and all created ones, by ordinal. */
  private readonly overlay = new Map<number, ProjectDetail>();
  private created = 0;

  constructor(
    readonly seeded: SeededProjects,
    private readonly seed: number,
  ) {}

  get count(): number {
    return this.seeded.size + this.created;
  }

  ordinalOf(projectId: string): number | undefined {
    const ordinal = ordinalOfProjectId(this.seed, projectId);
    return ordinal !== undefined && ordinal < this.count ? ordinal : undefined;
  }

  project(ordinal: number): Project {
    return this.overlay.get(ordinal) ?? this.seeded.project(ordinal);
  }

  detail(ordinal: number): ProjectDetail {
    const changed = this.overlay.get(ordinal);
    if (changed) return changed;
    const project = this.seeded.project(ordinal);
    return { ...project, ...this.seeded.contents(project) };
  }

  /** Whether a seeded project's timestamps no longer follow the seeded timeline. */
  isChanged(ordinal: number): boolean {
    return this.overlay.has(ordinal);
  }

  /** Projects held in memory: changed seeded ones and created ones. */
  materialised(): ProjectDetail[] {
    return [...this.overlay.values()];
  }

  /** Projects created through the API, oldest first. */
  createdProjects(): ProjectDetail[] {
    return this.materialised().filter((project) => project.ordinal >= this.seeded.size);
  }

  create(fields: { name: string; folderPath?: string; createdBy: string; nowMs: number }): ProjectDetail {
    const ordinal = this.count;
    const project: ProjectDetail = {
      ordinal,
      id: projectIdFor(this.seed, ordinal),
      name: fields.name,
      ...(fields.folderPath ? { folderPath: fields.folderPath } : {}),
      createdBy: fields.createdBy,
      createdAtMs: fields.nowMs,
      updatedAtMs: fields.nowMs,
      topic: hashString(fields.name) % TOPICS.length,
      mediaFiles: {},
      compositions: [],
      publishes: [],
    };
    this.overlay.set(ordinal, project);
    this.created++;
    return project;
  }

  /** Applies a change to a project and marks it updated at `nowMs`. */
  change(ordinal: number, nowMs: number, apply: (project: ProjectDetail) => void): ProjectDetail {
    const project = this.detail(ordinal);
    apply(project);
    project.updatedAtMs = Math.max(project.updatedAtMs, nowMs);
    this.overlay.set(ordinal, project);
    return project;
  }
}
