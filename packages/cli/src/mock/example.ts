import { sampleOf } from '@plugboard/catalogue/sample';
import type { MediaType, Schema } from '../openapi-document.js';

/** The example of a media type: `example`, else the first of `examples`, else a sample of its schema. */
export function exampleOf(media: MediaType | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  if (first?.value !== undefined) return first.value;
  return sampleOf(media.schema as Schema | undefined);
}
