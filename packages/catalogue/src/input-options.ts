import type { Connector, FieldOptions } from '@plugboard/sdk';
import { compareText } from '@plugboard/sdk/host';
import type { JsonObject } from './public-connector-schema.js';

/**
 * Dynamic input options in the catalogue: the input schema of an action marks each field whose
 * options it lists with `x-plugboard-options`, saying where they come from and who applies the
 * search (`provider`, or `label`: the SDK keeps the labels that hold it), never a value.
 */

export const OPTIONS_KEYWORD = 'x-plugboard-options';

export interface PublishedOptions {
  from: string;
  search: 'provider' | 'label';
}

/** The input schema file with the fields that list options marked. */
export function withInputOptions(file: JsonObject, action: Connector['actions'][number]): JsonObject {
  const declared = Object.entries((action.options ?? {}) as Record<string, FieldOptions | undefined>);
  const properties = file.properties as Record<string, JsonObject> | undefined;
  if (declared.length === 0 || !properties) return file;
  const marked = { ...properties };
  for (const [field, options] of declared) {
    if (!options || !Object.hasOwn(marked, field)) continue;
    const published: PublishedOptions = { from: options.from, search: options.searchable ? 'provider' : 'label' };
    marked[field] = { ...marked[field], [OPTIONS_KEYWORD]: { ...published } };
  }
  return { ...file, properties: marked };
}

function optionsOf(schema: JsonObject): Map<string, PublishedOptions> {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject | undefined>;
  const found = new Map<string, PublishedOptions>();
  for (const [field, property] of Object.entries(properties)) {
    const options = property?.[OPTIONS_KEYWORD] as Partial<PublishedOptions> | undefined;
    if (options && typeof options === 'object')
      found.set(field, { from: String(options.from), search: options.search === 'provider' ? 'provider' : 'label' });
  }
  return found;
}

function describe(options: PublishedOptions): string {
  return `from ${options.from}, searched by ${options.search === 'provider' ? 'the provider' : 'label'}`;
}

export interface OptionsChange {
  kind: 'input-options-added' | 'input-options-removed' | 'input-options-changed';
  field: string;
  from?: string;
  to?: string;
  /** What happened to the field, after `input field '<field>'`. */
  text: string;
}

/** The changes of the marked fields between two input schemas, by field. */
export function inputOptionsChanges(was: JsonObject, now: JsonObject): OptionsChange[] {
  const before = optionsOf(was);
  const after = optionsOf(now);
  const changes: OptionsChange[] = [];
  for (const field of [...new Set([...before.keys(), ...after.keys()])].sort(compareText)) {
    const old = before.get(field);
    const next = after.get(field);
    if (!old && next) {
      changes.push({
        kind: 'input-options-added',
        field,
        to: describe(next),
        text: `lists its options ${describe(next)} now`,
      });
    } else if (old && !next) {
      const text = `no longer lists its options (was ${describe(old)})`;
      changes.push({ kind: 'input-options-removed', field, from: describe(old), text });
    } else if (old && next && describe(old) !== describe(next)) {
      const text = `lists its options ${describe(next)} (was ${describe(old)})`;
      changes.push({ kind: 'input-options-changed', field, from: describe(old), to: describe(next), text });
    }
  }
  return changes;
}
