import { COMPOSITION_NAMES, FOLDERS, MEDIA_NAMES, PROJECT_VARIANTS, TOPICS } from './catalog.js';
import { projectIdFor, publishSlugFor } from './ids.js';
import type { AccessLevel, Composition, MediaFile, Member, Project, ProjectContents, Publish } from './model.js';
import { SeededTimeline } from './timeline.js';
import { mix, pick, sequence, unit, uuidFor } from '../util/prng.js';

/** Project `ordinal` of a seeded drive, computed on demand from (seed, ordinal). */

const SALT_NAME = 21;
const SALT_FOLDER = 22;
const SALT_CREATOR = 23;
const SALT_TOPIC = 24;
const SALT_CONTENTS = 25;
const SALT_COMPOSITION = 26;

const ACCESS_LEVELS: readonly AccessLevel[] = ['public', 'unlisted', 'unlisted', 'drive', 'private', 'password'];

export class SeededProjects {
  readonly timeline: SeededTimeline;

  constructor(
    private readonly seed: number,
    readonly size: number,
    anchorMs: number,
    private readonly members: readonly Member[],
  ) {
    this.timeline = new SeededTimeline(seed, size, anchorMs);
  }

  project(ordinal: number): Project {
    const folderPath = this.folderPath(ordinal);
    return {
      ordinal,
      id: projectIdFor(this.seed, ordinal),
      name: this.name(ordinal),
      ...(folderPath ? { folderPath } : {}),
      createdBy: this.creator(ordinal),
      createdAtMs: this.timeline.createdAt(ordinal),
      updatedAtMs: this.timeline.updatedAt(ordinal),
      topic: this.topic(ordinal),
    };
  }

  // The parts of a project, each derived on its own so that filters can reject a project cheaply.

  name(ordinal: number): string {
    const title = TOPICS[this.topic(ordinal)]?.title ?? '';
    const variant = pick(PROJECT_VARIANTS, unit(this.seed, ordinal, SALT_NAME));
    const number = (mix(this.seed, ordinal, SALT_NAME) % 90) + 1;
    return variant ? `${title} ${variant} #${number}` : `${title} #${number}`;
  }

  /** A third of the projects sit at the drive root, which the provider signals by omitting folder_path. */
  folderPath(ordinal: number): string | undefined {
    const roll = unit(this.seed, ordinal, SALT_FOLDER);
    return roll < 0.35 ? undefined : pick(FOLDERS, (roll - 0.35) / 0.65);
  }

  /** The token owner (member 0) made most projects, so created_by=me filters something realistic. */
  creator(ordinal: number): string {
    const roll = unit(this.seed, ordinal, SALT_CREATOR);
    return (roll < 0.4 ? this.members[0] : pick(this.members, (roll - 0.4) / 0.6))?.id ?? '';
  }

  private topic(ordinal: number): number {
    return mix(this.seed, ordinal, SALT_TOPIC) % TOPICS.length;
  }

  contents(project: Project): ProjectContents {
    const next = sequence(mix(this.seed, project.ordinal, SALT_CONTENTS));
    const mediaFiles: Record<string, MediaFile> = {};
    const videos = 1 + Math.floor(next() * 2);
    for (let i = 0; i < videos; i++)
      mediaFiles[MEDIA_NAMES.video[i] ?? 'video.mp4'] = { type: 'video', duration: seconds(next) };
    if (next() < 0.6) mediaFiles[pick(MEDIA_NAMES.audio, next())] = { type: 'audio', duration: seconds(next) };
    if (next() < 0.5) mediaFiles[pick(MEDIA_NAMES.image, next())] = { type: 'image' };
    if (videos > 1 && next() < 0.5) mediaFiles['Multicam'] = { type: 'sequence', duration: seconds(next) };

    const compositions: Composition[] = [];
    const compositionCount = 1 + Math.floor(next() * 3);
    for (let i = 0; i < compositionCount; i++) {
      compositions.push({
        id: uuidFor(this.seed, project.ordinal * 4 + i, SALT_COMPOSITION),
        name: COMPOSITION_NAMES[i] ?? `Composition ${i + 1}`,
        duration: seconds(next),
        mediaType: next() < 0.8 ? 'video' : 'audio',
      });
    }

    const publishes: Publish[] = [];
    if (next() < 0.3) {
      const count = Math.min(compositions.length, 1 + Math.floor(next() * 2));
      for (let i = 0; i < count; i++) {
        const composition = compositions[i];
        if (!composition) break;
        const span = project.updatedAtMs - project.createdAtMs;
        const publishedAtMs = Math.floor((project.createdAtMs + span * next()) / 1000) * 1000;
        const stateRoll = next();
        publishes.push({
          slug: publishSlugFor(this.seed, project.ordinal, i),
          // A few share pages are being republished or failed to, so readers meet 409s unscripted.
          state: stateRoll < 0.05 ? 'processing' : stateRoll < 0.08 ? 'failed' : 'published',
          compositionId: composition.id,
          accessLevel: pick(ACCESS_LEVELS, next()),
          mediaType: composition.mediaType === 'audio' ? (next() < 0.5 ? 'audio' : 'audiogram') : 'video',
          publishedAtMs,
          updatedAtMs: Math.floor((publishedAtMs + (project.updatedAtMs - publishedAtMs) * next()) / 1000) * 1000,
          name: `${project.name} – ${composition.name}`,
          publishedBy: pick(this.members, next()).id,
        });
      }
    }
    return { mediaFiles, compositions, publishes };
  }
}

/** A media duration between 30 s and 40 min, to a tenth of a second. */
function seconds(next: () => number): number {
  return Math.round((30 + next() * 2370) * 10) / 10;
}
