import type { Paragraph } from './transcript.js';

/** Renders a transcript in the formats POST /export/transcript offers, and WebVTT for published subtitles. */

export type TranscriptFormat = 'txt' | 'markdown' | 'html' | 'rtf' | 'srt';
export type SpeakerLabels = 'off' | 'changes' | 'every_paragraph';

export interface TimecodeOptions {
  frequencySeconds?: number;
  onParagraphs?: boolean;
  onSpeakers?: boolean;
  onMarkers?: boolean;
  offsetSeconds?: number;
}

export interface RenderOptions {
  title: string;
  speakerLabels: SpeakerLabels;
  markers: boolean;
  /** When present, timecodes are included; with no trigger set they mark every paragraph. */
  timecodes?: TimecodeOptions;
}

export const FORMAT_FILES: Record<TranscriptFormat, { contentType: string; extension: string }> = {
  txt: { contentType: 'text/plain; charset=utf-8', extension: 'txt' },
  markdown: { contentType: 'text/markdown; charset=utf-8', extension: 'md' },
  html: { contentType: 'text/html; charset=utf-8', extension: 'html' },
  rtf: { contentType: 'application/rtf', extension: 'rtf' },
  srt: { contentType: 'application/x-subrip; charset=utf-8', extension: 'srt' },
};

interface Block {
  label?: string;
  timecode?: string;
  marker?: string;
  text: string;
}

export function renderTranscript(
  paragraphs: readonly Paragraph[],
  format: TranscriptFormat,
  options: RenderOptions,
): string {
  if (format === 'srt') return renderSrt(paragraphs, options.speakerLabels);
  const blocks = paragraphs.map((_, i) => toBlock(paragraphs, i, options));
  switch (format) {
    case 'txt':
      return `${blocks
        .map(
          (b) =>
            `${b.marker ? `[Marker: ${b.marker}]\n` : ''}${b.timecode ? `[${b.timecode}] ` : ''}${b.label ? `${b.label}: ` : ''}${b.text}`,
        )
        .join('\n\n')}\n`;
    case 'markdown':
      return `# ${options.title}\n\n${blocks.map((b) => `${b.marker ? `### ${b.marker}\n\n` : ''}${b.timecode ? `\`${b.timecode}\` ` : ''}${b.label ? `**${b.label}:** ` : ''}${b.text}`).join('\n\n')}\n`;
    case 'html':
      return [
        `<!DOCTYPE html>`,
        `<html><head><meta charset="utf-8"><title>${escapeHtml(options.title)}</title></head><body>`,
        `<h1>${escapeHtml(options.title)}</h1>`,
        ...blocks.map(
          (b) =>
            `${b.marker ? `<h2>${escapeHtml(b.marker)}</h2>` : ''}<p>${b.timecode ? `<span class="timecode">[${b.timecode}]</span> ` : ''}${b.label ? `<strong>${escapeHtml(b.label)}:</strong> ` : ''}${escapeHtml(b.text)}</p>`,
        ),
        `</body></html>`,
        '',
      ].join('\n');
    case 'rtf':
      return `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Helvetica;}}\\f0\\fs24\n${blocks
        .map(
          (b) =>
            `${b.marker ? `{\\b ${escapeRtf(b.marker)}}\\par\n` : ''}${b.timecode ? `[${b.timecode}] ` : ''}${b.label ? `{\\b ${escapeRtf(b.label)}:} ` : ''}${escapeRtf(b.text)}\\par\\par`,
        )
        .join('\n')}\n}\n`;
  }
}

export function renderWebVtt(paragraphs: readonly Paragraph[]): string {
  return `WEBVTT\n\n${paragraphs.map((p) => `${cueTime(p.startSeconds, '.')} --> ${cueTime(p.endSeconds, '.')}\n${p.text}`).join('\n\n')}\n`;
}

function renderSrt(paragraphs: readonly Paragraph[], labels: SpeakerLabels): string {
  return paragraphs
    .map((p, i) => {
      const label = showsLabel(paragraphs, i, labels) ? `${p.speaker}: ` : '';
      return `${i + 1}\n${cueTime(p.startSeconds, ',')} --> ${cueTime(p.endSeconds, ',')}\n${label}${p.text}\n`;
    })
    .join('\n');
}

function toBlock(paragraphs: readonly Paragraph[], i: number, options: RenderOptions): Block {
  const paragraph = paragraphs[i] as Paragraph;
  const timecoded = options.timecodes && showsTimecode(paragraphs, i, options.timecodes);
  return {
    text: paragraph.text,
    ...(showsLabel(paragraphs, i, options.speakerLabels) ? { label: paragraph.speaker } : {}),
    ...(timecoded ? { timecode: cueTime(paragraph.startSeconds + (options.timecodes?.offsetSeconds ?? 0), null) } : {}),
    ...(options.markers && paragraph.marker ? { marker: paragraph.marker } : {}),
  };
}

function showsLabel(paragraphs: readonly Paragraph[], i: number, labels: SpeakerLabels): boolean {
  if (labels === 'off') return false;
  return labels === 'every_paragraph' || i === 0 || paragraphs[i - 1]?.speaker !== paragraphs[i]?.speaker;
}

function showsTimecode(paragraphs: readonly Paragraph[], i: number, options: TimecodeOptions): boolean {
  const paragraph = paragraphs[i] as Paragraph;
  const previous = paragraphs[i - 1];
  const frequency = options.frequencySeconds;
  const anyTrigger = options.onParagraphs || options.onSpeakers || options.onMarkers || frequency !== undefined;
  if (!anyTrigger || options.onParagraphs || i === 0) return true;
  if (options.onSpeakers && previous?.speaker !== paragraph.speaker) return true;
  if (options.onMarkers && paragraph.marker) return true;
  // With a frequency, a timecode appears on the first paragraph of each interval.
  return (
    frequency !== undefined &&
    frequency > 0 &&
    Math.floor(paragraph.startSeconds / frequency) > Math.floor((previous?.startSeconds ?? 0) / frequency)
  );
}

/** HH:MM:SS, plus milliseconds after `separator` for subtitle cues. */
function cueTime(seconds: number, separator: ',' | '.' | null): string {
  const totalMs = Math.max(0, Math.round(seconds * 1000));
  const h = Math.floor(totalMs / 3_600_000);
  const m = Math.floor((totalMs % 3_600_000) / 60_000);
  const s = Math.floor((totalMs % 60_000) / 1000);
  const base = [h, m, s].map((n) => String(n).padStart(2, '0')).join(':');
  return separator === null ? base : `${base}${separator}${String(totalMs % 1000).padStart(3, '0')}`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function escapeRtf(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: RTF escapes everything outside ASCII, NUL included in the range.
  return text.replace(/[\\{}]/g, (c) => `\\${c}`).replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0)}?`);
}
