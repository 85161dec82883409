import { FIRST_NAMES, TOPICS } from '../drive/catalog.js';
import { hashString, pick, sequence } from '../util/prng.js';

/** The spoken content of a composition: timed paragraphs by speaker, derived from its id and topic. */

export interface Paragraph {
  speaker: string;
  startSeconds: number;
  endSeconds: number;
  text: string;
  /** A marker placed at the start of this paragraph. */
  marker?: string;
}

const SECONDS_PER_PARAGRAPH = 20;

export function compositionTranscript(compositionId: string, topic: number, durationSeconds: number): Paragraph[] {
  const next = sequence(hashString(compositionId));
  const sentences = TOPICS[topic % TOPICS.length]?.sentences ?? [];
  const speakers = [pick(FIRST_NAMES, next()), pick(FIRST_NAMES, next())];
  if (speakers[0] === speakers[1]) speakers[1] = `${speakers[1]} (guest)`;
  const count = Math.max(3, Math.min(40, Math.round(durationSeconds / SECONDS_PER_PARAGRAPH)));
  const length = Math.max(durationSeconds, count) / count;
  const paragraphs: Paragraph[] = [];
  let speaker = 0;
  for (let i = 0; i < count; i++) {
    // Speakers take turns irregularly, so "label on change" and "every paragraph" differ.
    if (i > 0 && next() < 0.6) speaker = 1 - speaker;
    const text = [pick(sentences, next()), pick(sentences, next())]
      .filter((s, k, all) => all.indexOf(s) === k)
      .join(' ');
    const marker = i === 0 ? 'Intro' : i === Math.floor(count / 2) ? 'Key point' : undefined;
    paragraphs.push({
      speaker: speakers[speaker] ?? 'Speaker',
      startSeconds: Math.round(i * length * 1000) / 1000,
      endSeconds: Math.round((i + 1) * length * 1000) / 1000,
      text,
      ...(marker ? { marker } : {}),
    });
  }
  return paragraphs;
}
