/** The drive's domain records, in the simulator's own shape (timestamps in ms, camelCase). */

export type MediaKind = 'audio' | 'video' | 'image' | 'sequence' | 'other';

export interface MediaFile {
  type: MediaKind;
  /** Seconds; absent for images. */
  duration?: number;
}

export interface Composition {
  id: string;
  name: string;
  duration?: number;
  mediaType?: 'video' | 'audio';
}

export type AccessLevel = 'public' | 'unlisted' | 'drive' | 'private' | 'password';

/** A share page is published, being (re)published, or its last publish failed. */
export type PublishState = 'published' | 'processing' | 'failed';

export interface Publish {
  slug: string;
  state: PublishState;
  compositionId: string;
  accessLevel: AccessLevel;
  mediaType: 'video' | 'audio' | 'audiogram';
  publishedAtMs: number;
  updatedAtMs: number;
  name: string;
  /** Member id of the publisher. */
  publishedBy: string;
}

export interface Member {
  id: string;
  firstName: string;
  lastName: string;
}

/** What a project listing needs; cheap to derive for a seeded project. */
export interface Project {
  /** Position in the drive: seeded projects are 0..size-1, created ones follow. */
  ordinal: number;
  id: string;
  name: string;
  folderPath?: string;
  /** Member id of the creator. */
  createdBy: string;
  createdAtMs: number;
  updatedAtMs: number;
  /** Index into TOPICS: what the project's transcripts talk about. */
  topic: number;
}

export interface ProjectContents {
  mediaFiles: Record<string, MediaFile>;
  compositions: Composition[];
  publishes: Publish[];
}

export type ProjectDetail = Project & ProjectContents;
