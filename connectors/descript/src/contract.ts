/**
 * The facts of the provider's public API (OpenAPI 1.2) the connector relies on, in one place.
 * Everything else lives with the action that uses it.
 */

/** The provider API version the connector was written against. */
export const API_VERSION = '1.2';

export const DOCUMENTATION_URL = 'https://descript.com/api';

/** `limit` of GET /projects and GET /jobs: 1 to 100, cursor pagination through `pagination.next_cursor`. */
export const PAGE_LIMIT = { max: 100 } as const;

/** GET /search: one ranked page of at most 100 results (30 by default). */
export const SEARCH_LIMIT = { max: 100, default: 30 } as const;

/** GET /jobs reads 7 days back by default and at most 30 days back. */
export const JOB_HISTORY = { defaultDays: 7, maxDays: 30 } as const;

/** The one published rate figure: GET /published_projects/{slug}, 1,000 requests an hour per user. */
export const PUBLISHED_PROJECTS_BUDGET = { limit: 1000, per: 'hour', scope: 'connection' } as const;

/** Transcript formats the connector offers (the provider's DOCX is binary and not offered). */
export const TRANSCRIPT_FORMATS = ['txt', 'markdown', 'html', 'rtf', 'srt'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** What each format answers with, for the Accept header. */
export const TRANSCRIPT_CONTENT_TYPES: Record<TranscriptFormat, string> = {
  txt: 'text/plain',
  markdown: 'text/markdown',
  html: 'text/html',
  rtf: 'application/rtf',
  srt: 'application/x-subrip',
};

export const TEAM_ACCESS = ['edit', 'comment', 'view', 'none'] as const;
export const JOB_TYPES = ['import/project_media', 'agent'] as const;
export const SEARCH_TYPES = [
  'project',
  'video',
  'image',
  'audio',
  'project_folder',
  'media_library_folder',
  'layout_pack',
] as const;
export const SEARCH_MATCHES = ['name', 'content', 'visual'] as const;
export const SEARCH_SORTS = ['relevance', 'newest', 'oldest'] as const;
export const SPEAKER_LABELS = ['off', 'changes', 'every_paragraph'] as const;

export const DAY_MS = 86_400_000;
