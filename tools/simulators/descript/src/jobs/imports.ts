import type { JobRecord } from './job-store.js';
import { probeMedia, requiredMinutes, type ProbedMedia } from './media-probe.js';
import { importResult, type ImportedItem } from './results.js';
import type { Drive } from '../drive/drive.js';
import { compositionShortId, projectUrl } from '../drive/ids.js';
import type { Composition, MediaFile } from '../drive/model.js';
import { spendMediaMinutes } from '../drive/quotas.js';
import type { Drives } from '../drive/registry.js';
import { invalidInput, notFound } from '../errors.js';
import { isRecord, optionalString, type Fields } from '../util/fields.js';
import { uuidFor } from '../util/prng.js';

/** POST /jobs/import/project_media: checks the request, charges media minutes, queues the job. */

const SALT_IMPORT = 71;

type PlannedItem =
  | { path: string; url: URL; probe: ProbedMedia }
  | { path: string; tracks: Array<{ media: string; offset: number }> };

interface PlannedComposition {
  name: string;
  clips: string[];
}

export interface JobTiming {
  nowMs: number;
  durationMs: number;
}

export function startImport(drives: Drives, drive: Drive, body: Fields, timing: JobTiming): Record<string, unknown> {
  const items = planItems(body['add_media']);
  const compositions = planCompositions(body['add_compositions']);
  if (items.length === 0 && compositions.length === 0)
    throw invalidInput('add_media or add_compositions must name something to import');

  const projectId = optionalString(body, 'project_id');
  const existing = projectId === undefined ? undefined : drive.projects.detail(drives.requireProject(drive, projectId));
  if (!existing) checkWorkspace(optionalString(body, 'workspace_name'), optionalString(body, 'team_access'));
  const known = new Map<string, MediaFile>(Object.entries(existing?.mediaFiles ?? {}));
  for (const item of items) {
    if (known.has(item.path)) throw invalidInput('Media filename conflicts with existing files in the project');
  }
  const requested = new Map(items.map((item) => [item.path, item]));
  const isKnown = (media: string) => known.has(media) || requested.has(media);
  for (const item of items) {
    if ('tracks' in item)
      for (const track of item.tracks)
        if (!isKnown(track.media))
          throw invalidInput(`Track media '${track.media}' is neither in the project nor in add_media`);
  }
  for (const composition of compositions) {
    for (const clip of composition.clips)
      if (!isKnown(clip)) throw invalidInput(`Clip media '${clip}' is neither in the project nor in add_media`);
  }

  spendMediaMinutes(drive, requiredMinutes(items.flatMap((item) => ('probe' in item ? [item.probe] : []))));
  const project =
    existing ??
    drive.projects.create({
      name: optionalString(body, 'project_name') ?? 'Untitled project',
      ...(body['folder_name'] !== undefined ? { folderPath: optionalString(body, 'folder_name') } : {}),
      createdBy: drive.members[0]?.id ?? '',
      nowMs: timing.nowMs,
    });

  const jobNumber = drive.jobs.count;
  const outcomes = importOutcomes(items, known);
  const durationOf = (media: string) =>
    outcomes.find((o) => o.path === media)?.seconds ?? known.get(media)?.duration ?? 0;
  const kindOf = (media: string) => {
    const item = requested.get(media);
    return item ? ('probe' in item ? item.probe.kind : 'sequence') : known.get(media)?.type;
  };
  const created: Composition[] = compositions.map((composition, k) => ({
    id: uuidFor(drive.seed, jobNumber * 16 + k, SALT_IMPORT + 1),
    name: composition.name,
    duration: Math.round(composition.clips.reduce((sum, clip) => sum + durationOf(clip), 0) * 10) / 10,
    mediaType: composition.clips.some((clip) => kindOf(clip) === 'video' || kindOf(clip) === 'sequence')
      ? 'video'
      : 'audio',
  }));
  const result = importResult(outcomes, created);
  const failed = result['status'] === 'error';
  const firstComposition = created[0];
  const job: JobRecord = {
    id: uuidFor(drive.seed, jobNumber, SALT_IMPORT),
    type: 'import/project_media',
    projectId: project.id,
    projectUrl: projectUrl(project.id),
    ...(firstComposition && !failed
      ? { stoppedProjectUrl: projectUrl(project.id, compositionShortId(firstComposition.id)) }
      : {}),
    createdAtMs: timing.nowMs,
    durationMs: timing.durationMs,
    steps: [...items.map((item) => `Importing ${item.path}`), 'Transcribing media', 'Processing project'],
    result,
    effect: (stoppedAtMs) => {
      if (failed) return;
      drive.projects.change(project.ordinal, stoppedAtMs, (changed) => {
        for (const outcome of outcomes) {
          if (!outcome.ok) continue;
          changed.mediaFiles[outcome.path] = {
            type: kindOf(outcome.path) ?? 'other',
            ...(outcome.seconds !== undefined ? { duration: outcome.seconds } : {}),
          };
        }
        changed.compositions.push(...created);
      });
    },
  };
  drive.jobs.add(job);
  return {
    job_id: job.id,
    drive_id: drive.id,
    drive_name: drive.name,
    project_id: project.id,
    project_url: job.projectUrl,
  };
}

function planItems(addMedia: unknown): PlannedItem[] {
  if (addMedia === undefined) return [];
  if (!isRecord(addMedia)) throw invalidInput('add_media must be an object keyed by display path');
  return Object.entries(addMedia).map(([path, spec]): PlannedItem => {
    if (!isRecord(spec)) throw invalidInput(`add_media['${path}'] must be an object`);
    if (typeof spec['url'] === 'string') {
      let url: URL;
      try {
        url = new URL(spec['url']);
      } catch {
        throw invalidInput('Invalid media URL format');
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidInput('Invalid media URL format');
      return { path, url, probe: probeMedia(path, url) };
    }
    if (Array.isArray(spec['tracks']) && spec['tracks'].length > 0) {
      return {
        path,
        tracks: spec['tracks'].map((track) => {
          if (!isRecord(track) || typeof track['media'] !== 'string')
            throw invalidInput(`add_media['${path}'].tracks[] needs a media reference`);
          return { media: track['media'], offset: typeof track['offset'] === 'number' ? track['offset'] : 0 };
        }),
      };
    }
    if ('content_type' in spec || 'file_size' in spec)
      throw invalidInput('The simulator does not accept direct uploads; import from a URL');
    throw invalidInput(`add_media['${path}'] needs a url or tracks`);
  });
}

function planCompositions(addCompositions: unknown): PlannedComposition[] {
  if (addCompositions === undefined) return [];
  if (!Array.isArray(addCompositions)) throw invalidInput('add_compositions must be an array');
  return addCompositions.map((composition, k) => {
    if (!isRecord(composition) || !Array.isArray(composition['clips']))
      throw invalidInput(`add_compositions[${k}].clips is required`);
    const clips = composition['clips'].map((clip) => {
      if (!isRecord(clip) || typeof clip['media'] !== 'string')
        throw invalidInput(`add_compositions[${k}].clips[] needs a media reference`);
      return clip['media'];
    });
    return { name: typeof composition['name'] === 'string' ? composition['name'] : `Composition ${k + 1}`, clips };
  });
}

/** URL items fail as probed; a sequence imports when every track's media does. */
function importOutcomes(items: readonly PlannedItem[], known: ReadonlyMap<string, MediaFile>): ImportedItem[] {
  const urlOutcomes = new Map<string, ImportedItem>();
  for (const item of items) {
    if (!('probe' in item)) continue;
    const { fails, seconds } = item.probe;
    urlOutcomes.set(
      item.path,
      fails
        ? { path: item.path, ok: false, billable: true }
        : { path: item.path, ok: true, billable: true, ...(seconds !== undefined ? { seconds } : {}) },
    );
  }
  return items.map((item) => {
    if ('probe' in item) return urlOutcomes.get(item.path) as ImportedItem;
    const broken = item.tracks.find((track) => urlOutcomes.get(track.media)?.ok === false);
    if (broken)
      return { path: item.path, ok: false, billable: false, error: `Track media '${broken.media}' failed to import` };
    const seconds = Math.max(
      ...item.tracks.map(
        (track) => track.offset + (urlOutcomes.get(track.media)?.seconds ?? known.get(track.media)?.duration ?? 0),
      ),
    );
    return { path: item.path, ok: true, billable: false, seconds };
  });
}

/** The provider's workspace rules for new projects; the simulator knows only the two reserved workspaces. */
function checkWorkspace(workspace: string | undefined, teamAccess: string | undefined): void {
  if (workspace === undefined) return;
  const name = workspace.toLowerCase();
  if (name === 'personal') {
    if (teamAccess !== undefined && teamAccess !== 'none')
      throw invalidInput('team_access must be none or omitted for the Personal workspace');
  } else if (name === 'general') {
    if (teamAccess === 'none')
      throw invalidInput('team_access must be edit, comment or view for the General workspace');
  } else {
    throw notFound(`Workspace '${workspace}' not found`);
  }
}
