import { AVAILABLE_MODELS, MODEL_ALIASES } from '../jobs/agent-models.js';
import { json, type Reply } from '../http/reply.js';
import type { Route, RouteContext } from '../http/route.js';

/** GET /status and GET /agent/models: what the token is connected to and which agent models exist. */

const API_VERSION = '1.2';

export const statusRoutes: Route[] = [
  {
    method: 'GET',
    path: '/status',
    handle: ({ drive }: RouteContext): Reply =>
      json(200, { drive_id: drive.id, drive_name: drive.name, api_version: API_VERSION }),
  },
  {
    method: 'GET',
    path: '/agent/models',
    handle: (): Reply => json(200, { availableModels: AVAILABLE_MODELS, aliases: MODEL_ALIASES }),
  },
];
