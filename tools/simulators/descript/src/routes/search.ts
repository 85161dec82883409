import { searchDrive, type MatchKind } from '../drive/search.js';
import { forbidden, invalidInput } from '../errors.js';
import { enumParam, instantParam, limitParam, listParam } from '../http/query.js';
import { json, type Reply } from '../http/reply.js';
import type { Route, RouteContext } from '../http/route.js';

/** GET /search. */

const RESULT_TYPES = [
  'project',
  'video',
  'image',
  'audio',
  'project_folder',
  'media_library_folder',
  'layout_pack',
] as const;
const MATCH_KINDS: readonly MatchKind[] = ['name', 'content', 'visual'];

export const searchRoutes: Route[] = [{ method: 'GET', path: '/search', handle: searchRoute }];

function searchRoute({ drive, query }: RouteContext): Reply {
  const text = query.get('query');
  if (text === null || text.trim() === '') throw invalidInput('query is required and must not be empty');
  // Without `match`, only names and contents contribute, as the provider documents.
  const matches = listParam(query, 'match', MATCH_KINDS) ?? ['name', 'content'];
  if (matches.includes('visual') && matches.length > 1)
    throw invalidInput('match=visual cannot be combined with another match kind');
  if (matches.includes('visual') && !drive.enterprise) throw forbidden('Visual search is not available for this drive');
  const types = listParam(query, 'type', RESULT_TYPES);
  const owners = listParam(query, 'owner');
  const updatedAfter = instantParam(query, 'updated_after');
  const updatedBefore = instantParam(query, 'updated_before', true);
  const results = searchDrive(drive, {
    query: text,
    matches: new Set(matches),
    ...(types ? { types: new Set<string>(types) } : {}),
    ...(owners ? { owners: new Set(owners.map((owner) => owner.toLowerCase())) } : {}),
    ...(updatedAfter !== undefined ? { updatedAfter } : {}),
    ...(updatedBefore !== undefined ? { updatedBefore } : {}),
    sort: enumParam(query, 'sort', ['relevance', 'newest', 'oldest'] as const) ?? 'relevance',
    limit: limitParam(query, 30),
  });
  return json(200, { results });
}
