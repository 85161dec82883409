import type { MediaKind } from '../drive/model.js';
import { hashString } from '../util/prng.js';

/**
 * What the simulator pretends to find at a media URL, without fetching it: the kind from the
 * file extension, a duration, and whether the download fails.
 */

const IMAGE = /\.(png|jpe?g|gif|webp|svg)$/i;
const AUDIO = /\.(mp3|wav|m4a|aac|flac|ogg)$/i;

export interface ProbedMedia {
  kind: MediaKind;
  /** Seconds; absent for images. */
  seconds?: number;
  fails: boolean;
}

export function probeMedia(displayPath: string, url: URL): ProbedMedia {
  const name = url.pathname || displayPath;
  const kind: MediaKind =
    IMAGE.test(name) || IMAGE.test(displayPath)
      ? 'image'
      : AUDIO.test(name) || AUDIO.test(displayPath)
        ? 'audio'
        : 'video';
  // Tests script failures with "fail" or "broken" in the URL, and lengths with ?duration=<seconds>.
  const fails = /fail|broken/i.test(url.href);
  if (kind === 'image') return { kind, fails };
  const scripted = Number(url.searchParams.get('duration'));
  const seconds = Number.isFinite(scripted) && scripted > 0 ? scripted : 30 + (hashString(url.href) % 17_700) / 10;
  return { kind, seconds, fails };
}

/** Media minutes an import needs: its audio and video, rounded up to whole minutes. */
export function requiredMinutes(media: readonly ProbedMedia[]): number {
  return Math.ceil(media.reduce((sum, item) => sum + (item.seconds ?? 0), 0) / 60);
}
