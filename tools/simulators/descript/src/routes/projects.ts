import type { Drive } from '../drive/drive.js';
import { decodeCursor, encodeCursor } from '../drive/cursor.js';
import type { Project, ProjectDetail } from '../drive/model.js';
import { listProjects, type Direction, type ListPosition, type ProjectSort } from '../drive/project-listing.js';
import { invalidInput } from '../errors.js';
import { enumParam, instantParam, limitParam } from '../http/query.js';
import { json, type Reply } from '../http/reply.js';
import type { Route, RouteContext } from '../http/route.js';
import { isoSeconds } from '../util/time.js';

/** GET /projects and GET /projects/{project_id}. */

const SORTS: readonly ProjectSort[] = ['name', 'created_at', 'updated_at', 'last_viewed_at'];
const DIRECTIONS: readonly Direction[] = ['asc', 'desc'];

export const projectRoutes: Route[] = [
  { method: 'GET', path: '/projects', handle: listProjectsRoute },
  {
    method: 'GET',
    path: '/projects/{project_id}',
    handle: ({ drive, drives, params }: RouteContext): Reply => {
      const ordinal = drives.requireProject(drive, params['project_id'] ?? '');
      return json(200, projectDetailJson(drive.projects.detail(ordinal), drive));
    },
  },
];

function listProjectsRoute({ drive, query }: RouteContext): Reply {
  const cursorText = query.get('cursor');
  const cursor = cursorText === null ? undefined : readCursor(cursorText);
  const requestedSort = enumParam(query, 'sort', SORTS);
  const requestedDirection = enumParam(query, 'direction', DIRECTIONS);
  // A cursor remembers its order; a request may repeat it but not change it mid-way.
  if (
    cursor &&
    ((requestedSort && requestedSort !== cursor.sort) ||
      (requestedDirection && requestedDirection !== cursor.direction))
  ) {
    throw invalidInput('cursor was issued for a different sort or direction');
  }
  const sort = cursor?.sort ?? requestedSort ?? 'created_at';
  const direction = cursor?.direction ?? requestedDirection ?? 'desc';
  const createdBy = query.get('created_by') ?? undefined;
  const name = query.get('name') ?? undefined;
  const folderPath = query.get('folder_path') ?? undefined;
  const createdAfter = instantParam(query, 'created_after');
  const createdBefore = instantParam(query, 'created_before');
  const updatedAfter = instantParam(query, 'updated_after');
  const updatedBefore = instantParam(query, 'updated_before');
  const page = listProjects(drive.projects, {
    filter: {
      ...(name !== undefined ? { name } : {}),
      ...(folderPath !== undefined ? { folderPath } : {}),
      ...(createdBy !== undefined
        ? { createdBy: createdBy === 'me' ? (drive.members[0]?.id ?? '') : createdBy.toLowerCase() }
        : {}),
      ...(createdAfter !== undefined ? { createdAfter } : {}),
      ...(createdBefore !== undefined ? { createdBefore } : {}),
      ...(updatedAfter !== undefined ? { updatedAfter } : {}),
      ...(updatedBefore !== undefined ? { updatedBefore } : {}),
    },
    sort,
    direction,
    ...(cursor ? { after: cursor.position } : {}),
    limit: limitParam(query, 20),
  });
  return json(200, {
    data: page.projects.map(projectSummaryJson),
    pagination: page.last
      ? { next_cursor: encodeCursor({ s: sort, d: direction, v: page.last.value, o: page.last.ordinal }) }
      : {},
  });
}

function readCursor(text: string): { sort: ProjectSort; direction: Direction; position: ListPosition } {
  const raw = decodeCursor(text);
  const { s, d, v, o } = raw ?? {};
  if (
    !SORTS.includes(s as ProjectSort) ||
    !DIRECTIONS.includes(d as Direction) ||
    (typeof v !== 'number' && typeof v !== 'string') ||
    typeof o !== 'number'
  ) {
    throw invalidInput('cursor is not valid');
  }
  return { sort: s as ProjectSort, direction: d as Direction, position: { value: v, ordinal: o } };
}

function projectSummaryJson(project: Project): Record<string, unknown> {
  return {
    id: project.id,
    name: project.name,
    created_at: isoSeconds(project.createdAtMs),
    updated_at: isoSeconds(project.updatedAtMs),
    ...(project.folderPath ? { folder_path: project.folderPath } : {}),
  };
}

/** A project as GET /projects/{id} answers it. */
export function projectDetailJson(project: ProjectDetail, drive: Drive): Record<string, unknown> {
  return {
    id: project.id,
    name: project.name,
    drive_id: drive.id,
    created_at: isoSeconds(project.createdAtMs),
    updated_at: isoSeconds(project.updatedAtMs),
    ...(project.folderPath ? { folder_path: project.folderPath } : {}),
    media_files: project.mediaFiles,
    compositions: project.compositions.map((c) => ({
      id: c.id,
      name: c.name,
      ...(c.duration !== undefined ? { duration: c.duration } : {}),
      ...(c.mediaType ? { media_type: c.mediaType } : {}),
    })),
    publishes: project.publishes.map((p) => ({
      share_url: `https://share.descript.com/view/${p.slug}`,
      composition_id: p.compositionId,
      access_level: p.accessLevel,
      media_type: p.mediaType,
      published_at: isoSeconds(p.publishedAtMs),
      updated_at: isoSeconds(p.updatedAtMs),
      name: p.name,
    })),
  };
}
