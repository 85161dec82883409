import { bearerToken, type Connector, defineConnector } from '@plugboard/sdk';
import { createRequire } from 'node:module';
import { agentEditsCreate } from './actions/agent_edits.create.js';
import { agentModelsList } from './actions/agent_models.list.js';
import { compositionsList } from './actions/compositions.list.js';
import { driveItemsSearch } from './actions/drive_items.search.js';
import { jobsGet } from './actions/jobs.get.js';
import { type Clock, jobsList, jobsListAction } from './actions/jobs.list.js';
import { mediaFilesList } from './actions/media_files.list.js';
import { mediaImportsCreate } from './actions/media_imports.create.js';
import { projectsGet } from './actions/projects.get.js';
import { projectsList } from './actions/projects.list.js';
import { publishedProjectsGet } from './actions/published_projects.get.js';
import { publishesList } from './actions/publishes.list.js';
import { statusGet } from './actions/status.get.js';
import { transcriptsGet } from './actions/transcripts.get.js';
import { DOCUMENTATION_URL, PUBLISHED_PROJECTS_BUDGET } from './contract.js';
import { classifyDescriptFailure } from './errors.js';

/** The package's own version, read from its package.json (one level up from both src/ and dist/). */
const VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** What the connector does not do, on purpose; published in the catalogue entry. */
export const LIMITATIONS: readonly string[] = [
  'Publishing is not offered (POST /jobs/publish): publishes.list and published_projects.get only read share pages already published.',
  'Job cancellation is not offered (DELETE /jobs/{job_id}).',
  'Nothing is ever deleted: no delete operation is offered.',
  'The partner schema operation (POST /edit_in_descript/schema, Edit in Descript) is not offered.',
  'Direct file upload is not offered: media_imports.create imports only from URLs the provider can fetch (public or pre-signed, answering HTTP Range requests) and builds multitrack sequences; the content_type/file_size form of add_media is refused before sending.',
  'Video-sharing site URLs are refused before sending: pages of YouTube, Vimeo, TikTok, Dailymotion, Twitch, Facebook, Instagram, X and the like are not media files. So are URLs with a user name or password, which the provider would keep with the project. In production, URLs whose host is localhost or a literal loopback, private or link-local address are refused too (names are not resolved).',
  'Rendered media cannot be downloaded without publishing: no export of video or audio files is offered.',
  'DOCX transcripts are not offered: transcripts.get exports plain text, Markdown, HTML, RTF or SRT and refuses docx before sending.',
  'Projects and folders are never created, updated or renamed other than by creating a project through media_imports.create or agent_edits.create.',
  'No comments, users or analytics operations exist.',
  'Each token reaches exactly one drive: a project of another drive gives a permission or not-found error naming the project.',
  'Callbacks are never set (callback_url): the status of an import or agent job is read by polling jobs.get; there are no event triggers, flows run on demand or on a schedule.',
  "jobs.list reaches at most 30 days back, the provider's job history: an older checkpoint is moved to 30 days ago with a warning, and older jobs are not read.",
  'Rate limits: published_projects.get has its own budget of 1,000 requests an hour per connection; the provider publishes no general figure, so other requests are paced only by its answers (a 429 pauses them until Retry-After).',
];

export interface DescriptConnectorOptions {
  /** The clock jobs.list reads its 7- and 30-day windows from; default `Date.now`. For repeatable recordings and tests. */
  clock?: Clock;
}

/** Builds the connector; the default export is this with the system clock. */
export function createDescriptConnector(options: DescriptConnectorOptions = {}): Connector {
  return defineConnector({
    key: 'descript',
    name: 'Descript',
    version: VERSION,
    vendor: 'Descript',
    category: 'media',
    status: 'beta',
    summary:
      'Descript projects, compositions, media files, share pages, jobs, drive search and transcripts; imports media from URLs and runs agent edits (billable, approved before production).',
    documentationUrl: DOCUMENTATION_URL,
    auth: bearerToken(),
    baseUrl: 'https://descriptapi.com/v1',
    rateLimits: { 'published_projects.get': { ...PUBLISHED_PROJECTS_BUDGET } },
    limitations: LIMITATIONS,
    actions: [
      statusGet,
      agentModelsList,
      projectsList,
      projectsGet,
      compositionsList,
      mediaFilesList,
      publishesList,
      driveItemsSearch,
      jobsGet,
      options.clock ? jobsListAction(options.clock) : jobsList,
      publishedProjectsGet,
      transcriptsGet,
      mediaImportsCreate,
      agentEditsCreate,
    ],
    classifyError: classifyDescriptFailure,
    // GET /status validates the token and reads nothing else: the cheapest proof the connection works.
    async check(ctx) {
      await ctx.http.get('/status');
    },
  });
}

export const descript = createDescriptConnector();
export default descript;

export {
  agentEditsCreate,
  agentModelsList,
  compositionsList,
  driveItemsSearch,
  jobsGet,
  jobsList,
  jobsListAction,
  mediaFilesList,
  mediaImportsCreate,
  projectsGet,
  projectsList,
  publishedProjectsGet,
  publishesList,
  statusGet,
  transcriptsGet,
  type Clock,
};
export * from './entities.js';
export { AgentDisabledError, classifyDescriptFailure, descriptQuota, explainProjectError } from './errors.js';
export { mediaUrlProblem, privateHostProblem, VIDEO_SHARING_COUNTRY_SITES, VIDEO_SHARING_HOSTS } from './media-url.js';
export { dispositionFileName } from './actions/transcripts.get.js';
export { API_VERSION, JOB_HISTORY, PUBLISHED_PROJECTS_BUDGET, TRANSCRIPT_FORMATS } from './contract.js';
