import type { Drive } from './drive.js';
import { parsePublishSlug } from './ids.js';
import type { ProjectDetail, Publish } from './model.js';
import { forbidden, notFound } from '../errors.js';
import type { JobRecord } from '../jobs/job-store.js';

/**
 * All simulated drives. A token sees one drive; asking for another drive's project or job is
 * answered 403, as the provider does, while unknown ids are 404.
 */
export class Drives {
  constructor(readonly all: readonly Drive[]) {}

  byToken(token: string): Drive | undefined {
    return this.all.find((drive) => drive.token === token);
  }

  /** The ordinal of a project in `drive`. */
  requireProject(drive: Drive, projectId: string): number {
    const ordinal = drive.projects.ordinalOf(projectId);
    if (ordinal !== undefined) return ordinal;
    if (this.all.some((other) => other !== drive && other.projects.ordinalOf(projectId) !== undefined)) {
      throw forbidden('User does not have access to this drive or project');
    }
    throw notFound('Project not found');
  }

  requireJob(drive: Drive, jobId: string): JobRecord {
    const job = drive.jobs.get(jobId);
    if (job) return job;
    if (this.all.some((other) => other !== drive && other.jobs.get(jobId)))
      throw forbidden('User does not have access to this job');
    throw notFound(`No job found for job_id "${jobId}".`);
  }

  /** The publish a share slug names, on whichever drive holds it. */
  findPublish(slug: string): { drive: Drive; project: ProjectDetail; publish: Publish } | undefined {
    for (const drive of this.all) {
      const parsed = parsePublishSlug(drive.seed, slug);
      if (!parsed || parsed.ordinal >= drive.projects.count) continue;
      const project = drive.projects.detail(parsed.ordinal);
      const publish = project.publishes.find((p) => p.slug === slug);
      if (publish) return { drive, project, publish };
    }
    return undefined;
  }
}
