import { publishedProject } from '../drive/published.js';
import { json, type Reply } from '../http/reply.js';
import type { Route, RouteContext } from '../http/route.js';

/** GET /published_projects/{slug}, on its own request budget (1,000 per hour per user by default). */

export const publishedRoutes: Route[] = [
  {
    method: 'GET',
    path: '/published_projects/{slug}',
    budget: 'published',
    handle: ({ drive, drives, params, nowMs }: RouteContext): Reply =>
      json(200, publishedProject(drives, drive, params['slug'] ?? '', nowMs)),
  },
];
