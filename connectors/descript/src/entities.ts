import { z } from 'zod';

/**
 * The connector's twelve data types: zod schemas named with `.meta({ id })`, which the
 * catalogue turns into JSON Schema and TypeScript. Records keep the provider's field names
 * (snake_case, and the camelCase of GET /agent/models), so the provider's documentation reads
 * beside them. The provider's API is in beta: objects are loose (fields it adds pass through),
 * enumerations it documents are read as strings (a new value does not break a run), and ids are
 * any non-empty string (its guide shows ids like `project-media-import-9d635d5b` where the
 * schema says uuid).
 */

const id = (what: string) => z.string().min(1).describe(what);
const timestamp = (what: string) => z.string().min(1).describe(`${what} (ISO 8601)`);
const known = (values: readonly string[], what: string) =>
  z
    .string()
    .min(1)
    .describe(`${what}: ${values.join(', ')} (as documented; newer values pass through)`);

export const DriveStatus = z
  .looseObject({
    drive_id: id('The drive the token is tied to')
      .nullable()
      .describe('The drive the token is tied to; null when the token has none'),
    drive_name: z.string().nullable().describe('Name of the drive (workspace), when known'),
    api_version: z.string().min(1).describe('The provider API version, e.g. "1.2"'),
  })
  .meta({
    id: 'DriveStatus',
    description: 'What a token reaches: its one drive, and the provider API version (GET /status).',
  });

export const AgentModel = z
  .looseObject({
    id: id('Model or alias id, accepted as `model` by agent_edits.create'),
    kind: z
      .enum(['model', 'alias'])
      .describe('`model`: an entry of availableModels; `alias`: an entry of aliases, which resolves to a model'),
    cost: known(['low', 'medium', 'high'], 'Relative cost tier'),
    resolvesTo: z
      .string()
      .min(1)
      .optional()
      .describe('Aliases only: the canonical model id the alias resolves to today'),
    description: z.string().optional().describe('Aliases only: what the alias tracks'),
  })
  .meta({
    id: 'AgentModel',
    description:
      'An agent model or alias of GET /agent/models with its relative cost tier (`auto` is a medium-cost model).',
  });

const projectFields = {
  id: id('Project id'),
  name: z.string().describe('Project name'),
  created_at: timestamp('When the project was created'),
  updated_at: timestamp('When the project was last updated'),
  folder_path: z.string().optional().describe('Folder path, e.g. "Clients/Acme/Videos"; absent at the drive root'),
};

export const Project = z
  .looseObject(projectFields)
  .meta({ id: 'Project', description: "A project of the token's drive, as GET /projects lists it." });

const mediaFileInfo = z.looseObject({
  type: known(['audio', 'video', 'image', 'sequence', 'other'], 'Media type'),
  duration: z.number().optional().describe('Seconds; absent for images'),
});

const compositionFields = {
  id: id('Composition id'),
  name: z.string().describe('Composition name'),
  duration: z.number().optional().describe('Seconds'),
  media_type: z.string().optional().describe('Media type of the composition'),
};

const publishFields = {
  share_url: z.string().min(1).describe('URL of the share page'),
  composition_id: id('The composition published'),
  access_level: known(['public', 'unlisted', 'drive', 'private', 'password'], 'Who may open the share page'),
  media_type: known(['video', 'audio', 'audiogram'], 'What was published'),
  published_at: timestamp('When the publish was created'),
  updated_at: timestamp('When the publish was last updated'),
  name: z.string().describe('Name of the share page'),
};

export const ProjectDetail = z
  .looseObject({
    ...projectFields,
    drive_id: id('The drive the project belongs to'),
    media_files: z.record(z.string(), mediaFileInfo).describe('Media files keyed by display path'),
    compositions: z.array(z.looseObject(compositionFields)).describe('Compositions (timelines)'),
    publishes: z.array(z.looseObject(publishFields)).describe('Share pages already published'),
    media_files_count: z.number().int().min(0).describe('How many media files (added by the connector)'),
    compositions_count: z.number().int().min(0).describe('How many compositions (added by the connector)'),
    publishes_count: z.number().int().min(0).describe('How many share pages (added by the connector)'),
  })
  .meta({
    id: 'ProjectDetail',
    description:
      'One project as GET /projects/{project_id} answers it, with the counts of its media files, compositions and share pages.',
  });

export const Composition = z
  .looseObject({ project_id: id('The project holding the composition'), ...compositionFields })
  .meta({ id: 'Composition', description: 'A composition (timeline) of a project, from GET /projects/{project_id}.' });

export const MediaFile = z
  .looseObject({
    project_id: id('The project holding the file'),
    display_path: z
      .string()
      .min(1)
      .describe('The key of the file in the project\'s media_files, e.g. "Recordings/camera1.mp4"'),
    ...mediaFileInfo.shape,
  })
  .meta({
    id: 'MediaFile',
    description:
      'A media file of a project (an entry of media_files, keyed by display path), from GET /projects/{project_id}.',
  });

export const Publish = z.looseObject({ project_id: id('The project published from'), ...publishFields }).meta({
  id: 'Publish',
  description: 'A share page already published from a project, from GET /projects/{project_id}; read only.',
});

export const DriveItem = z
  .looseObject({
    type: known(
      ['project', 'video', 'image', 'audio', 'project_folder', 'media_library_folder', 'layout_pack'],
      'Result type',
    ),
    name: z.string().describe('Name of the project, file, folder or layout pack'),
    url: z.string().min(1).describe('Opens the item in Descript'),
    updated_at: timestamp('When the item was last modified'),
    owner: z.looseObject({ id: id('Owner user id'), name: z.string() }).optional(),
    project_id: z.string().min(1).optional().describe('Projects and layout packs; media inside a project'),
    asset_id: z.string().min(1).optional().describe('Media files'),
    folder_id: z.string().min(1).optional().describe('Folders'),
    location: known(['media_library', 'project', 'brand_studio'], 'Where a media file or folder lives').optional(),
    brand_studio_id: z.string().min(1).optional().describe('Media in Brand Studio'),
    thumbnail_url: z.string().min(1).optional().describe('Time-limited preview image of video and image files'),
    duration: z.number().optional().describe('Seconds, for audio and video'),
  })
  .meta({
    id: 'DriveItem',
    description: 'A ranked search result of GET /search: a project, media file, folder or layout pack of the drive.',
  });

export const Job = z
  .looseObject({
    job_id: id('Job id'),
    job_type: known(['import/project_media', 'agent', 'publish'], 'Job type'),
    job_state: known(
      ['queued', 'running', 'stopped', 'cancelled'],
      'Job state; a finished job is `stopped`, its outcome is result.status',
    ),
    created_at: timestamp('When the job was created'),
    stopped_at: timestamp('When the job stopped or was cancelled').optional(),
    drive_id: id('The drive of the job'),
    project_id: id('The project the job works on'),
    project_url: z.string().min(1).describe('Opens the project in Descript'),
    progress: z
      .looseObject({ label: z.string(), percent: z.number().optional(), last_update_at: z.string().optional() })
      .optional()
      .describe('While running'),
    result: z
      .looseObject({ status: known(['success', 'partial', 'error'], 'Outcome') })
      .optional()
      .describe(
        'Once stopped. Imports: media_status per display path, media_seconds_used, created_compositions, or error_message/error_code. Agent edits: agent_response, project_changed, ai_credits_used, resolved_model, conversation_id, or error_message/error_code. Publishes: share_url, download_url, or error_message.',
      ),
  })
  .meta({
    id: 'Job',
    description:
      'An import, agent or publish job (GET /jobs/{job_id}, GET /jobs): state, progress, per-file import results, credits used.',
  });

export const PublishedProject = z
  .looseObject({
    slug: z.string().min(1).describe('The share page slug asked for (added by the connector)'),
    project_id: id('The project published'),
    publish_type: known(['audio', 'video', 'audiogram'], 'What was published'),
    privacy: known(['public', 'unlisted', 'private', 'drive', 'password'], 'Who may open the share page'),
    metadata: z.looseObject({
      title: z.string().optional(),
      duration_seconds: z.number().optional(),
      duration_formatted: z.string().optional(),
      published_at: z.string().optional(),
      published_by: z.looseObject({ first_name: z.string().optional(), last_name: z.string().optional() }).optional(),
    }),
    subtitles: z.string().describe('WebVTT subtitles'),
    download_url: z
      .string()
      .min(1)
      .optional()
      .describe('Time-limited link to the published media, when the provider signs one'),
    download_url_expires_at: z.string().optional(),
  })
  .meta({
    id: 'PublishedProject',
    description:
      'Share-page metadata by slug (GET /published_projects/{slug}): title, duration, type, privacy, subtitles.',
  });

export const Transcript = z
  .object({
    project_id: id('The project exported from'),
    composition_id: id('The composition exported (X-Composition-Id)').nullable(),
    format: z.string().min(1).describe('txt, markdown, html, rtf or srt'),
    file_name: z.string().min(1).nullable().describe('The file name the provider gave (Content-Disposition)'),
    text: z.string().describe('The transcript file as text'),
  })
  .meta({
    id: 'Transcript',
    description:
      "A composition's transcript exported as plain text, Markdown, HTML, RTF or SRT subtitles (POST /export/transcript).",
  });

export const JobReceipt = z
  .looseObject({
    job_id: id('Poll it with jobs.get'),
    drive_id: id('The drive of the project'),
    drive_name: z.string().nullable().optional(),
    project_id: id('The project, existing or newly created'),
    project_url: z.string().min(1).describe('Opens the project in Descript'),
    conversation_id: z.string().min(1).optional().describe('Agent edits: pass it back to continue the conversation'),
    resolved_model: z.string().min(1).optional().describe('Agent edits: the model that runs (`auto` for auto)'),
  })
  .meta({
    id: 'JobReceipt',
    description: 'A started import or agent job: its id to poll with jobs.get, and the project it works on.',
  });

export type ProjectRecord = z.input<typeof Project>;
export type JobRecord = z.input<typeof Job>;
export type ProjectDetailRecord = z.input<typeof ProjectDetail>;
