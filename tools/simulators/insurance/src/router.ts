import type { Answer, ApiError } from './answers.js';
import type { RequestBody } from './body.js';
import type { BudgetName } from './budgets.js';

export interface RequestContext {
  /** Named groups of the route's path pattern. */
  params: Record<string, string>;
  query: URLSearchParams;
  body: RequestBody;
  now: number;
}

export interface Route {
  method: 'GET' | 'POST';
  /** Anchored pattern of the path; named groups become `params`. */
  path: RegExp;
  /** A short name for logs and counters, e.g. `hospital_cash.quote`. */
  operation: string;
  /** The rate budget the operation draws on. */
  budget: BudgetName;
  handle(context: RequestContext): Answer | ApiError;
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Finds the route for a request, or the 404 / 405 that answers it. */
export function matchRoute(routes: readonly Route[], method: string, path: string): RouteMatch | ApiError {
  const onPath = routes
    .map((route) => ({ route, match: route.path.exec(path) }))
    .filter((candidate) => candidate.match !== null);
  if (onPath.length === 0) return { status: 404, code: 'not_found', message: `No operation at ${path}` };
  const hit = onPath.find((candidate) => candidate.route.method === method);
  if (!hit?.match) {
    const allowed = onPath.map((candidate) => candidate.route.method).join(', ');
    return {
      status: 405,
      code: 'method_not_allowed',
      message: `${method} is not allowed on ${path}`,
      headers: { allow: allowed },
    };
  }
  return { route: hit.route, params: { ...hit.match.groups } };
}
