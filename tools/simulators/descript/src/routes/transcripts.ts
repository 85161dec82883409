import { requireComposition } from '../drive/compositions.js';
import { invalidInput, notFound } from '../errors.js';
import type { Reply } from '../http/reply.js';
import type { Route, RouteContext } from '../http/route.js';
import {
  FORMAT_FILES,
  renderTranscript,
  type SpeakerLabels,
  type TimecodeOptions,
  type TranscriptFormat,
} from '../transcripts/formats.js';
import { compositionTranscript } from '../transcripts/transcript.js';
import { isRecord, optionalString, requiredString } from '../util/fields.js';

/** POST /export/transcript: a read sent as POST, answering the raw transcript file. */

const SPEAKER_LABELS: readonly SpeakerLabels[] = ['off', 'changes', 'every_paragraph'];

export const transcriptRoutes: Route[] = [{ method: 'POST', path: '/export/transcript', handle: exportTranscript }];

function exportTranscript({ drive, drives, body = {} }: RouteContext): Reply {
  const projectId = requiredString(body, 'project_id');
  const format = requiredString(body, 'format');
  if (format === 'docx')
    throw invalidInput('format docx is not available in the simulator; use txt, markdown, html, rtf or srt');
  if (!(format in FORMAT_FILES)) throw invalidInput('format must be one of txt, markdown, html, rtf, docx, srt');
  const labels = optionalString(body, 'include_speaker_labels') ?? 'changes';
  if (!(SPEAKER_LABELS as readonly string[]).includes(labels))
    throw invalidInput(`include_speaker_labels must be one of ${SPEAKER_LABELS.join(', ')}`);

  const project = drive.projects.detail(drives.requireProject(drive, projectId));
  const reference = optionalString(body, 'composition_id');
  const composition = reference !== undefined ? requireComposition(project, reference) : project.compositions[0];
  if (!composition) throw notFound(`Project ${project.id} has no composition to export`);

  const paragraphs = compositionTranscript(composition.id, project.topic, composition.duration ?? 60);
  const file = FORMAT_FILES[format as TranscriptFormat];
  const timecodes = readTimecodes(body['timecodes']);
  const text = renderTranscript(paragraphs, format as TranscriptFormat, {
    title: `${project.name} – ${composition.name}`,
    speakerLabels: labels as SpeakerLabels,
    markers: body['include_markers'] === true,
    ...(timecodes ? { timecodes } : {}),
  });
  const filename = `${`${project.name} ${composition.name}`
    .replace(/[^A-Za-z0-9 ._-]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()}.${file.extension}`;
  return {
    status: 200,
    body: text,
    contentType: file.contentType,
    headers: { 'Content-Disposition': `attachment; filename="${filename}"`, 'X-Composition-Id': composition.id },
  };
}

function readTimecodes(value: unknown): TimecodeOptions | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) throw invalidInput('timecodes must be an object');
  const number = (name: string) => {
    const v = value[name];
    if (v !== undefined && typeof v !== 'number') throw invalidInput(`timecodes.${name} must be a number`);
    return v;
  };
  const flag = (name: string) => value[name] === true;
  const frequencySeconds = number('frequency_seconds');
  const offsetSeconds = number('offset_seconds');
  return {
    onParagraphs: flag('on_paragraphs'),
    onSpeakers: flag('on_speakers'),
    onMarkers: flag('on_markers'),
    ...(frequencySeconds !== undefined ? { frequencySeconds } : {}),
    ...(offsetSeconds !== undefined ? { offsetSeconds } : {}),
  };
}
