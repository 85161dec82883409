import type { Drive } from './drive.js';
import type { ProjectDetail, Publish } from './model.js';
import type { Drives } from './registry.js';
import { ApiError, forbidden, notFound } from '../errors.js';
import { renderWebVtt } from '../transcripts/formats.js';
import { compositionTranscript } from '../transcripts/transcript.js';
import { HOUR, clockDuration, isoSeconds } from '../util/time.js';

/** GET /published_projects/{slug}: a share page's metadata, or 409 while it is processing or after it failed. */

const OPEN_ACCESS = new Set(['public', 'unlisted']);

export function publishedProject(drives: Drives, caller: Drive, slug: string, nowMs: number): Record<string, unknown> {
  const found = drives.findPublish(slug);
  if (!found) throw notFound('Published project not found');
  const { drive, project, publish } = found;
  const state = drive.publishState(publish);
  if (state === 'processing') throw new ApiError(409, 'Published project is still processing', { state });
  if (state === 'failed') throw new ApiError(409, 'Publishing this project failed', { state });
  // Share pages of another drive are readable only when public or unlisted.
  if (drive !== caller && !OPEN_ACCESS.has(publish.accessLevel)) {
    throw forbidden(`User id ${caller.members[0]?.id ?? ''} does not have access to this project`);
  }
  return metadata(drive, project, publish, nowMs);
}

function metadata(drive: Drive, project: ProjectDetail, publish: Publish, nowMs: number): Record<string, unknown> {
  const composition = project.compositions.find((c) => c.id === publish.compositionId);
  const seconds = composition?.duration ?? 60;
  const publisher = drive.member(publish.publishedBy);
  const extension = publish.mediaType === 'audio' ? 'm4a' : 'mp4';
  return {
    project_id: project.id,
    publish_type: publish.mediaType,
    privacy: publish.accessLevel,
    metadata: {
      title: publish.name,
      duration_seconds: Math.round(seconds * 1000) / 1000,
      duration_formatted: clockDuration(seconds),
      published_at: isoSeconds(publish.publishedAtMs),
      published_by: { first_name: publisher?.firstName ?? '', last_name: publisher?.lastName ?? '' },
    },
    subtitles: renderWebVtt(compositionTranscript(publish.compositionId, project.topic, seconds)),
    // A reserved .invalid host: the simulator serves no media, and nothing should try to fetch it.
    download_url: `https://downloads.descript-simulator.invalid/${publish.slug}.${extension}`,
    download_url_expires_at: isoSeconds(nowMs + HOUR),
  };
}
