import { byKey, defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { MediaFile } from '../entities.js';
import { providerId } from '../inputs.js';
import { projectDetail } from '../project-detail.js';

export const mediaFilesList = defineAction({
  key: 'media_files.list',
  label: 'List media files',
  description:
    'The media files of a project with type and duration, one record per entry of media_files (its key is display_path), sorted by display path, from GET /projects/{project_id}.',
  direction: 'source',
  entity: MediaFile,
  input: z.strictObject({ project_id: providerId('The project id') }),
  async *read(ctx, input) {
    const project = await projectDetail(ctx, 'media_files.list', input.project_id);
    yield {
      // A JSON object has no order: records come sorted by display path, the same however the answer was serialized.
      records: Object.entries(project.media_files)
        .sort(byKey)
        .map(
          ([display_path, file]) => ({ project_id: project.id, display_path, ...file }) as z.input<typeof MediaFile>,
        ),
    };
  },
});
