import { FOLDERS } from './catalog.js';
import type { Member } from './model.js';
import { pick, unit, uuidFor } from '../util/prng.js';
import { DAY } from '../util/time.js';

/**
 * Drive items that live outside projects and only show up in search: project folders,
 * the media library and its folders, Brand Studio files and layout packs.
 */

export type LibraryItem =
  | { type: 'project_folder'; folderId: string; name: string; ownerId: string; updatedAtMs: number }
  | { type: 'media_library_folder'; folderId: string; name: string; ownerId: string; updatedAtMs: number }
  | { type: 'layout_pack'; projectId: string; name: string; ownerId: string; updatedAtMs: number }
  | {
      type: 'video' | 'audio' | 'image';
      assetId: string;
      name: string;
      location: 'media_library' | 'brand_studio';
      brandStudioId?: string;
      duration?: number;
      ownerId: string;
      updatedAtMs: number;
    };

const SALT_LIBRARY = 41;

const MEDIA_LIBRARY: ReadonlyArray<{ name: string; type: 'video' | 'audio' | 'image'; duration?: number }> = [
  { name: 'standup.mp4', type: 'video', duration: 184.5 },
  { name: 'stock-ocean.mp4', type: 'video', duration: 42 },
  { name: 'office-b-roll.mp4', type: 'video', duration: 95.2 },
  { name: 'podcast-jingle.mp3', type: 'audio', duration: 12.4 },
  { name: 'interview-room-tone.wav', type: 'audio', duration: 60 },
  { name: 'team-photo.jpg', type: 'image' },
  { name: 'kitchen-overhead.mp4', type: 'video', duration: 310 },
];

const BRAND_STUDIO: ReadonlyArray<{ name: string; type: 'video' | 'image'; duration?: number }> = [
  { name: 'logo.png', type: 'image' },
  { name: 'intro-sting.mp4', type: 'video', duration: 6 },
];

export function seedLibrary(seed: number, members: readonly Member[], anchorMs: number): LibraryItem[] {
  let n = 0;
  // Each item gets its own id, owner and an update time within the last 90 days.
  const common = () => {
    n++;
    return {
      ownerId: pick(members, unit(seed, n, SALT_LIBRARY)).id,
      updatedAtMs: Math.floor((anchorMs - unit(seed, n, SALT_LIBRARY + 1) * 90 * DAY) / 1000) * 1000,
      id: uuidFor(seed, n, SALT_LIBRARY + 2),
    };
  };
  const items: LibraryItem[] = [];
  for (const path of FOLDERS) {
    const { id, ...rest } = common();
    items.push({ type: 'project_folder', folderId: id, name: path.split('/').at(-1) ?? path, ...rest });
  }
  for (const name of ['Stock footage', 'Brand assets']) {
    const { id, ...rest } = common();
    items.push({ type: 'media_library_folder', folderId: id, name, ...rest });
  }
  for (const name of ['Podcast layouts', 'Social vertical layouts']) {
    const { id, ...rest } = common();
    items.push({ type: 'layout_pack', projectId: id, name, ...rest });
  }
  for (const file of MEDIA_LIBRARY) {
    const { id, ...rest } = common();
    items.push({ ...file, assetId: id, location: 'media_library', ...rest });
  }
  const brandStudioId = uuidFor(seed, 0, SALT_LIBRARY + 3);
  for (const file of BRAND_STUDIO) {
    const { id, ...rest } = common();
    items.push({ ...file, assetId: id, location: 'brand_studio', brandStudioId, ...rest });
  }
  return items;
}
