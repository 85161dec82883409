import { MEDIA_NAMES, TOPICS } from './catalog.js';
import type { Drive } from './drive.js';
import { projectUrl } from './ids.js';
import type { LibraryItem } from './library.js';
import type { Project } from './model.js';
import { compositionTranscript } from '../transcripts/transcript.js';
import { hashString, uuidFor } from '../util/prng.js';
import { isoSeconds } from '../util/time.js';

/**
 * GET /search: ranked matches over names, transcript contents and (Enterprise) visuals.
 * On large drives the simulated index covers the most recently updated projects only, so
 * that a search on a million-project drive stays quick.
 */

export type MatchKind = 'name' | 'content' | 'visual';

export interface SearchRequest {
  query: string;
  types?: ReadonlySet<string>;
  matches: ReadonlySet<MatchKind>;
  owners?: ReadonlySet<string>;
  updatedAfter?: number;
  updatedBefore?: number;
  sort: 'relevance' | 'newest' | 'oldest';
  limit: number;
}

const SEARCH_WINDOW = 10_000;
const SALT_ASSET = 51;

interface Hit {
  score: number;
  updatedAtMs: number;
  result: Record<string, unknown>;
}

export function searchDrive(drive: Drive, request: SearchRequest): Record<string, unknown>[] {
  const query = request.query.trim().toLowerCase();
  const tokens = query.split(/\s+/).filter(Boolean);
  const wanted = (type: string, ownerId: string, updatedAtMs: number) =>
    (!request.types || request.types.has(type)) &&
    (!request.owners || request.owners.has(ownerId)) &&
    (request.updatedAfter === undefined || updatedAtMs >= request.updatedAfter) &&
    (request.updatedBefore === undefined || updatedAtMs <= request.updatedBefore);
  const owner = (id: string) => {
    const member = drive.member(id);
    return member ? { owner: { id: member.id, name: `${member.firstName} ${member.lastName}` } } : {};
  };
  const hits: Hit[] = [];
  const add = (score: number, updatedAtMs: number, result: Record<string, unknown>) => {
    if (score > 0) hits.push({ score, updatedAtMs, result: { ...result, updated_at: isoSeconds(updatedAtMs) } });
  };

  for (const item of drive.library) {
    if (!wanted(item.type, item.ownerId, item.updatedAtMs)) continue;
    add(request.matches.has('name') ? nameScore(item.name, query, tokens) : 0, item.updatedAtMs, {
      ...libraryResult(item),
      ...owner(item.ownerId),
    });
  }

  const projectTypes = ['project', 'video', 'audio', 'image'].filter(
    (type) => !request.types || request.types.has(type),
  );
  if (projectTypes.length === 0) return rank(hits, request);
  // Cheap pre-checks on the catalogue decide whether a project's contents need deriving at all.
  const contentTopics = new Set(
    TOPICS.flatMap((topic, k) => (containsAll(topic.sentences.join(' ').toLowerCase(), tokens) ? [k] : [])),
  );
  const visualTopics = new Set(TOPICS.flatMap((topic, k) => (containsAll(topic.visuals.join(' '), tokens) ? [k] : [])));
  const catalogueMedia = Object.values(MEDIA_NAMES).some((names) =>
    names.some((name) => nameScore(baseName(name), query, tokens) > 0),
  );

  for (const project of searchableProjects(drive)) {
    const wantsContents =
      (request.matches.has('content') && contentTopics.has(project.topic)) ||
      (request.matches.has('visual') && visualTopics.has(project.topic)) ||
      (request.matches.has('name') &&
        (catalogueMedia || project.ordinal >= drive.projects.seeded.size || drive.projects.isChanged(project.ordinal)));
    if (wanted('project', project.createdBy, project.updatedAtMs)) {
      let score = request.matches.has('name') ? nameScore(project.name, query, tokens) : 0;
      if (score === 0 && request.matches.has('content') && contentTopics.has(project.topic))
        score = contentScore(drive, project, tokens);
      add(score, project.updatedAtMs, {
        type: 'project',
        project_id: project.id,
        name: project.name,
        url: projectUrl(project.id),
        ...owner(project.createdBy),
      });
    }
    if (!wantsContents) continue;
    const { mediaFiles } = drive.projects.detail(project.ordinal);
    for (const [path, file] of Object.entries(mediaFiles)) {
      if (
        (file.type !== 'video' && file.type !== 'audio' && file.type !== 'image') ||
        !wanted(file.type, project.createdBy, project.updatedAtMs)
      )
        continue;
      const byName = request.matches.has('name') ? nameScore(baseName(path), query, tokens) : 0;
      const byVisual =
        request.matches.has('visual') && file.type !== 'audio' && visualTopics.has(project.topic) ? 45 : 0;
      add(Math.max(byName, byVisual), project.updatedAtMs, {
        type: file.type,
        asset_id: uuidFor(hashString(project.id), hashString(path), SALT_ASSET),
        project_id: project.id,
        name: baseName(path),
        location: 'project',
        url: `${projectUrl(project.id)}?media=${encodeURIComponent(path)}`,
        ...(file.duration !== undefined ? { duration: file.duration } : {}),
        ...owner(project.createdBy),
      });
    }
  }
  return rank(hits, request);
}

/** In-memory projects, then seeded ones from the most recently updated, up to the index window. */
function* searchableProjects(drive: Drive): Generator<Project> {
  yield* drive.projects.materialised();
  const size = drive.projects.seeded.size;
  for (let o = size - 1; o >= Math.max(0, size - SEARCH_WINDOW); o--)
    if (!drive.projects.isChanged(o)) yield drive.projects.seeded.project(o);
}

function rank(hits: Hit[], request: SearchRequest): Record<string, unknown>[] {
  const byTime = (a: Hit, b: Hit) => b.updatedAtMs - a.updatedAtMs;
  const order =
    request.sort === 'newest'
      ? byTime
      : request.sort === 'oldest'
        ? (a: Hit, b: Hit) => -byTime(a, b)
        : (a: Hit, b: Hit) => b.score - a.score || byTime(a, b);
  return hits
    .sort(order)
    .slice(0, request.limit)
    .map((hit) => hit.result);
}

/** Exact name beats a prefix, which beats a whole word, a substring, then all words in any order. */
function nameScore(name: string, query: string, tokens: readonly string[]): number {
  const lower = name.toLowerCase();
  if (lower === query) return 100;
  if (lower.startsWith(query)) return 80;
  if (new RegExp(`\\b${query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(lower)) return 60;
  if (lower.includes(query)) return 50;
  return tokens.length > 1 && containsAll(lower, tokens) ? 40 : 0;
}

function contentScore(drive: Drive, project: Project, tokens: readonly string[]): number {
  const { compositions } = drive.projects.detail(project.ordinal);
  const spoken = compositions.some((composition) =>
    containsAll(
      compositionTranscript(composition.id, project.topic, composition.duration ?? 60)
        .map((p) => p.text)
        .join(' ')
        .toLowerCase(),
      tokens,
    ),
  );
  return spoken ? 30 : 0;
}

function containsAll(text: string, tokens: readonly string[]): boolean {
  return tokens.length > 0 && tokens.every((token) => text.includes(token));
}

function baseName(path: string): string {
  return path.split('/').at(-1) ?? path;
}

function libraryResult(item: LibraryItem): Record<string, unknown> {
  switch (item.type) {
    case 'project_folder':
      return {
        type: item.type,
        folder_id: item.folderId,
        name: item.name,
        url: `https://web.descript.com/folders/${item.folderId}`,
      };
    case 'media_library_folder':
      return {
        type: item.type,
        folder_id: item.folderId,
        name: item.name,
        location: 'media_library',
        url: `https://web.descript.com/media-library/folders/${item.folderId}`,
      };
    case 'layout_pack':
      return { type: item.type, project_id: item.projectId, name: item.name, url: projectUrl(item.projectId) };
    default:
      return {
        type: item.type,
        asset_id: item.assetId,
        name: item.name,
        location: item.location,
        ...(item.brandStudioId ? { brand_studio_id: item.brandStudioId } : {}),
        url: item.brandStudioId
          ? `https://web.descript.com/brand-studio/${item.brandStudioId}`
          : `https://web.descript.com/media-library/${item.assetId}`,
        ...(item.duration !== undefined ? { duration: item.duration } : {}),
      };
  }
}
