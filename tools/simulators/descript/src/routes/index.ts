import type { Route } from '../http/route.js';
import { jobRoutes } from './jobs.js';
import { projectRoutes } from './projects.js';
import { publishedRoutes } from './published.js';
import { searchRoutes } from './search.js';
import { statusRoutes } from './status.js';
import { transcriptRoutes } from './transcripts.js';

/** Every endpoint the simulator serves, under the `/v1` base path. */
export const ROUTES: readonly Route[] = [
  ...statusRoutes,
  ...projectRoutes,
  ...searchRoutes,
  ...jobRoutes,
  ...transcriptRoutes,
  ...publishedRoutes,
];
