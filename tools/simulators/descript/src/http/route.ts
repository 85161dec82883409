import type { Drive } from '../drive/drive.js';
import type { Drives } from '../drive/registry.js';
import type { Fields } from '../util/fields.js';
import type { Reply } from './reply.js';

/** What a route handler gets: the caller's drive and the parsed request. */
export interface RouteContext {
  drive: Drive;
  drives: Drives;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The JSON body of a POST; undefined for reads. */
  body: Fields | undefined;
  nowMs: number;
  /** How long a job takes from queued to stopped. */
  jobDurationMs: number;
}

export interface Route {
  method: 'GET' | 'POST';
  /** Path after the `/v1` base, with `{name}` parameters. */
  path: string;
  /** Which request budget the route spends: published projects have their own. */
  budget?: 'published';
  handle(context: RouteContext): Reply;
}

export function matchRoute(
  routes: readonly Route[],
  method: string,
  path: string,
): { route: Route; params: Record<string, string> } | undefined {
  const segments = path.split('/').filter(Boolean);
  for (const route of routes) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const matches = pattern.every((part, i) => {
      const segment = segments[i] ?? '';
      if (part.startsWith('{')) {
        params[part.slice(1, -1)] = safeDecode(segment);
        return segment !== '';
      }
      return part === segment;
    });
    if (matches) return { route, params };
  }
  return undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
