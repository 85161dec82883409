import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { TEAM_ACCESS } from '../contract.js';
import { aboutProject } from '../errors.js';
import { JobReceipt } from '../entities.js';
import { checkProjectChoice, providerId } from '../inputs.js';
import { mediaUrlProblem, privateHostProblem } from '../media-url.js';
import { projectChoices } from '../options.js';

const DIRECT_UPLOAD = ['content_type', 'file_size'];

const MediaUrl = z
  .string()
  .superRefine((value, ctx) => {
    const problem = mediaUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe(
    'A public or pre-signed http(s) URL of the media file that answers HTTP Range requests (signed for 12 to 48 hours is best)',
  );

/**
 * One entry of add_media: a URL import (`url`, optional `language`) or a multitrack sequence
 * (`tracks`). The direct-upload form (`content_type`, `file_size`) is refused before sending.
 */
const MediaItem = z
  .strictObject(
    {
      url: MediaUrl.optional(),
      language: z
        .string()
        .min(2)
        .optional()
        .describe('ISO 639-1 language of the speech, e.g. "en"; detected when left out'),
      tracks: z
        .array(
          z.strictObject({
            media: z.string().min(1).describe('Display path of a media file of the project or of add_media'),
            offset: z.number().optional().describe('Seconds, to sync this track'),
          }),
        )
        .min(1)
        .optional()
        .describe('A multitrack sequence of media files'),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' && issue.keys.some((key) => DIRECT_UPLOAD.includes(key))
          ? 'direct upload (content_type, file_size) is not offered: import from a URL the provider can fetch (public or pre-signed, answering HTTP Range requests)'
          : undefined,
    },
  )
  .refine((item) => (item.url === undefined) !== (item.tracks === undefined), {
    error: 'give either url (a URL import) or tracks (a multitrack sequence)',
  })
  .refine((item) => item.language === undefined || item.url !== undefined, {
    path: ['language'],
    error: 'language applies to a URL import only',
  })
  .describe('A URL import {url, language?} or a multitrack sequence {tracks}');

const CompositionSpec = z.strictObject({
  name: z.string().min(1).optional(),
  width: z.number().int().positive().optional(),
  height: z.number().int().positive().optional(),
  fps: z.number().positive().optional().describe('Accepted by the provider, not yet used by it'),
  clips: z
    .array(
      z.strictObject({
        media: z.string().min(1).describe('Display path of a media file or sequence'),
        mute: z.boolean().optional(),
      }),
    )
    .min(1),
});

const NEW_PROJECT_ONLY = ['team_access', 'folder_name', 'workspace_name'] as const;

const Input = z
  .strictObject({
    project_id: providerId('Import into this existing project (or give project_name)').optional(),
    project_name: z
      .string()
      .trim()
      .min(1)
      .optional()
      .describe('Create a new project with this name (or give project_id)'),
    team_access: z
      .enum(TEAM_ACCESS)
      .optional()
      .describe('New projects: access of drive members (provider default none)'),
    folder_name: z.string().min(1).optional().describe('New projects: folder path, e.g. "Clients/Acme"'),
    workspace_name: z
      .string()
      .min(1)
      .optional()
      .describe('New projects: workspace by name (Personal, General or a custom one)'),
    add_media: z
      .record(z.string().min(1), MediaItem)
      .optional()
      .describe('Media to import, keyed by display path (e.g. "Misc/intro.mp4")'),
    add_compositions: z.array(CompositionSpec).min(1).optional().describe('Compositions to build from the media'),
  })
  .superRefine((input, ctx) => {
    checkProjectChoice(input, ctx, { existing: [], created: NEW_PROJECT_ONLY });
    const media = input.add_media ?? {};
    if (Object.keys(media).length === 0 && !input.add_compositions) {
      ctx.addIssue({
        code: 'custom',
        path: ['add_media'],
        message: 'name at least one media file to import (or a composition to build)',
      });
    }
    // A new project holds only what this import brings: every reference must be in add_media.
    if (input.project_name !== undefined) {
      const check = (reference: string, path: (string | number)[]) => {
        if (!Object.hasOwn(media, reference))
          ctx.addIssue({ code: 'custom', path, message: `'${reference}' is not a key of add_media` });
      };
      for (const [key, item] of Object.entries(media)) {
        for (const [t, track] of (item.tracks ?? []).entries())
          check(track.media, ['add_media', key, 'tracks', t, 'media']);
      }
      for (const [c, composition] of (input.add_compositions ?? []).entries()) {
        for (const [k, clip] of composition.clips.entries())
          check(clip.media, ['add_compositions', c, 'clips', k, 'media']);
      }
    }
  })
  .meta({
    examples: [
      { project_name: 'Interview', add_media: { 'interview.mp4': { url: 'https://media.example.com/interview.mp4' } } },
    ],
  });

export const mediaImportsCreate = defineAction({
  key: 'media_imports.create',
  label: 'Import media',
  description:
    'Creates a project (or adds to one) from media URLs and multitrack sequences, optionally builds compositions, and starts transcription (POST /jobs/import/project_media); returns the job to poll with jobs.get. Spends media minutes: billable, never retried automatically, approval before production. Direct upload, non-http(s) URLs, URLs with a user name or password and video-sharing site pages are refused before sending, and in production so are loopback, private and link-local hosts (before any approval is asked for).',
  direction: 'destination',
  // Adds a project or media to one; nothing that was there is replaced.
  effect: { writes: true, idempotent: false, destructive: false },
  entity: JobReceipt,
  billable: true,
  input: Input,
  options: { project_id: projectChoices },
  // Before the approval gate: a run that can never go out is not put to an approver.
  check: (input, { environment }) =>
    environment !== 'production'
      ? []
      : Object.entries(input.add_media ?? {}).flatMap(([key, item]) => {
          const problem = item.url === undefined ? undefined : privateHostProblem(item.url);
          return problem ? [{ path: `add_media.${key}.url`, message: problem }] : [];
        }),
  async write(ctx, input) {
    const start = () => ctx.http.post<z.input<typeof JobReceipt>>('/jobs/import/project_media', input);
    return input.project_id === undefined ? start() : aboutProject(input.project_id, start);
  },
});
