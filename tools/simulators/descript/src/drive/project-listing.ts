import type { Project } from './model.js';
import type { ProjectStore } from './project-store.js';
import type { SeededProjects } from './seeded-projects.js';
import type { TimeField } from './timeline.js';

/**
 * GET /projects over a drive too large to materialise: keyset pagination over two sorted
 * streams, the seeded projects (walked by ordinal, whose timestamps are monotonic) and the
 * in-memory overlay, merged in the requested order.
 */

export type ProjectSort = 'name' | 'created_at' | 'updated_at' | 'last_viewed_at';
export type Direction = 'asc' | 'desc';

export interface ProjectFilter {
  name?: string;
  folderPath?: string;
  createdBy?: string;
  createdAfter?: number;
  createdBefore?: number;
  updatedAfter?: number;
  updatedBefore?: number;
}

/** The sort key and ordinal of the last project a page returned; the next page starts after it. */
export interface ListPosition {
  value: number | string;
  ordinal: number;
}

export interface ProjectPageRequest {
  filter: ProjectFilter;
  sort: ProjectSort;
  direction: Direction;
  after?: ListPosition;
  limit: number;
}

export interface ProjectPage {
  projects: Project[];
  /** Present when more projects follow. */
  last?: ListPosition;
}

export function listProjects(store: ProjectStore, request: ProjectPageRequest): ProjectPage {
  const key = keyFor(request.sort);
  const sign = request.direction === 'asc' ? 1 : -1;
  const order = (a: Project, b: Project) => sign * compare(key(a), a.ordinal, key(b), b.ordinal);
  const matches = matcher(request.filter);
  const seeded = seededStream(store, request);
  const overlay = overlayStream(store, request, key, order);

  const projects: Project[] = [];
  let fromSeeded = seeded.next();
  let fromOverlay = overlay.next();
  while (projects.length <= request.limit && !(fromSeeded.done && fromOverlay.done)) {
    let next: Project;
    if (fromOverlay.done || (!fromSeeded.done && order(fromSeeded.value, fromOverlay.value) <= 0)) {
      next = fromSeeded.value as Project;
      fromSeeded = seeded.next();
    } else {
      next = fromOverlay.value;
      fromOverlay = overlay.next();
    }
    if (matches(next)) projects.push(next);
  }
  if (projects.length <= request.limit) return { projects };
  const lastShown = projects[request.limit - 1] as Project;
  return { projects: projects.slice(0, request.limit), last: { value: key(lastShown), ordinal: lastShown.ordinal } };
}

type Key = (project: Project) => number | string;

function keyFor(sort: ProjectSort): Key {
  if (sort === 'name') return (project) => project.name.toLowerCase();
  if (sort === 'created_at') return (project) => project.createdAtMs;
  // The simulator has no viewing history: a project was last viewed when it was last updated.
  return (project) => project.updatedAtMs;
}

function compare(a: number | string, aOrdinal: number, b: number | string, bOrdinal: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  return aOrdinal - bOrdinal;
}

function matcher(filter: ProjectFilter): (project: Project) => boolean {
  const name = filter.name?.toLowerCase();
  return (project) =>
    (name === undefined || project.name.toLowerCase().includes(name)) &&
    (filter.folderPath === undefined || (project.folderPath ?? '') === filter.folderPath) &&
    (filter.createdBy === undefined || project.createdBy === filter.createdBy) &&
    (filter.createdAfter === undefined || project.createdAtMs >= filter.createdAfter) &&
    (filter.createdBefore === undefined || project.createdAtMs <= filter.createdBefore) &&
    (filter.updatedAfter === undefined || project.updatedAtMs >= filter.updatedAfter) &&
    (filter.updatedBefore === undefined || project.updatedAtMs <= filter.updatedBefore);
}

/**
 * The filters a seeded project's fixed parts decide (its name, folder and creator never change),
 * checked before deriving the whole project: a scan of a large drive for a rare name stays cheap.
 */
function prefilter(seeded: SeededProjects, filter: ProjectFilter): (ordinal: number) => boolean {
  const name = filter.name?.toLowerCase();
  return (ordinal) =>
    (name === undefined || seeded.name(ordinal).toLowerCase().includes(name)) &&
    (filter.folderPath === undefined || (seeded.folderPath(ordinal) ?? '') === filter.folderPath) &&
    (filter.createdBy === undefined || seeded.creator(ordinal) === filter.createdBy);
}

/** In-memory projects in order: created ones, plus changed seeded ones when sorting by update time. */
function* overlayStream(
  store: ProjectStore,
  request: ProjectPageRequest,
  key: Key,
  order: (a: Project, b: Project) => number,
) {
  const byUpdate = request.sort === 'updated_at' || request.sort === 'last_viewed_at';
  const projects = (byUpdate ? store.materialised() : store.createdProjects()).sort(order);
  for (const project of projects) {
    if (isAfter(key(project), project.ordinal, request)) yield project;
  }
}

function* seededStream(store: ProjectStore, request: ProjectPageRequest): Generator<Project> {
  if (request.sort === 'name') {
    yield* seededByName(store, request);
    return;
  }
  const field: TimeField = request.sort === 'created_at' ? 'created' : 'updated';
  const timeline = store.seeded.timeline;
  const [after, before] =
    field === 'created'
      ? [request.filter.createdAfter, request.filter.createdBefore]
      : [request.filter.updatedAfter, request.filter.updatedBefore];
  let lo = after === undefined ? 0 : timeline.firstAtOrAfter(field, after);
  let hi = before === undefined ? store.seeded.size : timeline.firstAfter(field, before);
  const position = request.after;
  if (position) {
    // (instant, ordinal) grows strictly with the ordinal, so the cursor is a binary search away.
    const beyond = timeline.search((o) => compare(timeline.at(field, o), o, position.value, position.ordinal) > 0);
    if (request.direction === 'asc') lo = Math.max(lo, beyond);
    else
      hi = Math.min(
        hi,
        timeline.search((o) => compare(timeline.at(field, o), o, position.value, position.ordinal) >= 0),
      );
  }
  const keep = prefilter(store.seeded, request.filter);
  // Changed projects left the seeded timeline; the overlay stream yields them at their new place.
  const wanted = field === 'updated' ? (o: number) => !store.isChanged(o) && keep(o) : keep;
  if (request.direction === 'asc') {
    for (let o = lo; o < hi; o++) if (wanted(o)) yield store.project(o);
  } else {
    for (let o = hi - 1; o >= lo; o--) if (wanted(o)) yield store.project(o);
  }
}

function* seededByName(store: ProjectStore, request: ProjectPageRequest): Generator<Project> {
  const order = namePermutation(store.seeded);
  const position = request.after;
  // Sign of (entry at p) compared with the cursor; grows with p because the permutation is sorted.
  const versusCursor = (p: number) => {
    const ordinal = order[p] as number;
    return position ? compare(store.seeded.name(ordinal).toLowerCase(), ordinal, position.value, position.ordinal) : 0;
  };
  const firstWhere = (holds: (p: number) => boolean) => {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (holds(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  const keep = prefilter(store.seeded, request.filter);
  if (request.direction === 'asc') {
    const start = position ? firstWhere((p) => versusCursor(p) > 0) : 0;
    for (let p = start; p < order.length; p++) if (keep(order[p] as number)) yield store.project(order[p] as number);
  } else {
    const end = position ? firstWhere((p) => versusCursor(p) >= 0) : order.length;
    for (let p = end - 1; p >= 0; p--) if (keep(order[p] as number)) yield store.project(order[p] as number);
  }
}

/**
 * Seeded ordinals sorted by (lower-cased name, ordinal). Names do not follow the ordinal, so
 * sorting by name costs one O(size log size) sort per drive, done on first use and kept.
 */
const namePermutations = new WeakMap<SeededProjects, Uint32Array>();

function namePermutation(seeded: SeededProjects): Uint32Array {
  const cached = namePermutations.get(seeded);
  if (cached) return cached;
  const names = Array.from({ length: seeded.size }, (_, o) => seeded.name(o).toLowerCase());
  const order = Uint32Array.from({ length: seeded.size }, (_, o) => o);
  order.sort((a, b) => compare(names[a] as string, a, names[b] as string, b));
  namePermutations.set(seeded, order);
  return order;
}

function isAfter(value: number | string, ordinal: number, request: ProjectPageRequest): boolean {
  if (!request.after) return true;
  const sign = request.direction === 'asc' ? 1 : -1;
  return sign * compare(value, ordinal, request.after.value, request.after.ordinal) > 0;
}
