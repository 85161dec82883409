import { hex, mix } from '../util/prng.js';

/**
 * Identifiers that encode a project's ordinal, so that a project id or a share slug leads
 * back to its project in O(1) without an index over a million seeded projects.
 */

const SALT_PROJECT = 101;
const SALT_MASK = 102;
const SALT_SLUG = 103;

/** The project id of ordinal `ordinal` in the drive seeded with `seed`: a UUID ending in the masked ordinal. */
export function projectIdFor(seed: number, ordinal: number): string {
  const a = mix(seed, ordinal, SALT_PROJECT);
  const b = mix(seed, ordinal, SALT_PROJECT + 1);
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b, 3)}-${hex(8 + (a >>> 30), 1)}${hex(b >>> 4, 3)}-${hex(a >>> 8, 4)}${hex(scramble(seed, ordinal), 8)}`;
}

/** The ordinal a project id claims in this drive, or undefined when the id is not one of the drive's. */
export function ordinalOfProjectId(seed: number, id: string): number | undefined {
  const lower = id.toLowerCase();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(lower)) return undefined;
  const ordinal = unscramble(seed, Number.parseInt(lower.slice(-8), 16));
  return projectIdFor(seed, ordinal) === lower ? ordinal : undefined;
}

/** A keyed 4-round Feistel permutation of 32-bit values, so that neighbouring ordinals do not look alike. */
function scramble(seed: number, value: number): number {
  let left = value >>> 16;
  let right = value & 0xffff;
  for (let round = 0; round < 4; round++)
    [left, right] = [right, left ^ (mix(seed, right, SALT_MASK + round) & 0xffff)];
  return ((left << 16) | right) >>> 0;
}

function unscramble(seed: number, value: number): number {
  let left = value >>> 16;
  let right = value & 0xffff;
  for (let round = 3; round >= 0; round--)
    [left, right] = [right ^ (mix(seed, left, SALT_MASK + round) & 0xffff), left];
  return ((left << 16) | right) >>> 0;
}

/** Share slug of the `index`-th publish of a project: four hash characters, the ordinal in base 36, the index. */
export function publishSlugFor(seed: number, ordinal: number, index: number): string {
  const check = mix(seed, ordinal * 16 + index, SALT_SLUG)
    .toString(36)
    .padStart(4, '0')
    .slice(-4);
  return `${check}${ordinal.toString(36)}${index}`;
}

export function parsePublishSlug(seed: number, slug: string): { ordinal: number; index: number } | undefined {
  if (!/^[0-9a-z]{6,}$/.test(slug)) return undefined;
  const index = Number(slug.slice(-1));
  const ordinal = Number.parseInt(slug.slice(4, -1), 36);
  if (!Number.isSafeInteger(ordinal) || publishSlugFor(seed, ordinal, index) !== slug) return undefined;
  return { ordinal, index };
}

export function projectUrl(projectId: string, compositionShortId?: string): string {
  return `https://web.descript.com/${projectId}${compositionShortId ? `/${compositionShortId}` : ''}`;
}

/** The 5-character short id Descript URLs use for a composition. */
export function compositionShortId(compositionId: string): string {
  return compositionId.slice(0, 5);
}
