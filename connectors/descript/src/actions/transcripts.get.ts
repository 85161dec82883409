import { defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { SPEAKER_LABELS, TRANSCRIPT_CONTENT_TYPES, TRANSCRIPT_FORMATS } from '../contract.js';
import { aboutProject } from '../errors.js';
import { Transcript } from '../entities.js';
import { providerId } from '../inputs.js';

const Format = z
  .enum(TRANSCRIPT_FORMATS, {
    error: (issue) =>
      issue.input === 'docx'
        ? 'DOCX transcripts are not offered (a binary Word file); choose txt, markdown, html, rtf or srt'
        : `format must be one of ${TRANSCRIPT_FORMATS.join(', ')}`,
  })
  .default('txt')
  .describe('txt (default), markdown, html, rtf or srt (SubRip subtitles); DOCX is not offered');

/** `attachment; filename="transcript.md"` or `filename*=UTF-8''...`: the file name, when there is one. */
export function dispositionFileName(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended?.[2]) {
    try {
      return decodeURIComponent(extended[2].trim());
    } catch {
      // A malformed extended name: fall back to the plain one.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim();
  return name ? name : null;
}

export const transcriptsGet = defineAction({
  key: 'transcripts.get',
  label: 'Export a transcript',
  description:
    "Exports a composition's transcript (POST /export/transcript, a read sent as POST) as plain text, Markdown, HTML, RTF or SRT subtitles, with speaker labels, markers and timecodes as asked; one record with the text, the composition id and the file name.",
  direction: 'source',
  entity: Transcript,
  input: z.strictObject({
    project_id: providerId('The project id'),
    format: Format,
    composition_id: providerId(
      'The composition: its id, 5-character short id or project URL (default: the first composition)',
    ).optional(),
    include_speaker_labels: z
      .enum(SPEAKER_LABELS)
      .optional()
      .describe('off, changes (provider default) or every_paragraph'),
    include_markers: z.boolean().optional(),
    timecodes: z
      .strictObject({
        frequency_seconds: z.number().positive().optional(),
        on_paragraphs: z.boolean().optional(),
        on_speakers: z.boolean().optional(),
        on_markers: z.boolean().optional(),
        offset_seconds: z.number().optional(),
      })
      .optional()
      .describe('When given, timecodes are included'),
  }),
  async *read(ctx, input) {
    const answer = await aboutProject(input.project_id, () =>
      ctx.http.request<string>({
        method: 'POST',
        path: '/export/transcript',
        json: input,
        responseType: 'text',
        headers: { accept: `${TRANSCRIPT_CONTENT_TYPES[input.format]}, application/json;q=0.5` },
      }),
    );
    yield {
      records: [
        {
          project_id: input.project_id,
          composition_id: answer.headers.get('x-composition-id') || input.composition_id || null,
          format: input.format,
          file_name: dispositionFileName(answer.headers.get('content-disposition')),
          text: answer.data,
        },
      ],
    };
  },
});
