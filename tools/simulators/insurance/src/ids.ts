import { randomBytes } from 'node:crypto';

/** A provider-style identifier: a prefix, an underscore and random hex ("req_9f2c..."). */
export function newId(prefix: string, bytes = 8): string {
  return `${prefix}_${randomBytes(bytes).toString('hex')}`;
}

export const newRequestId = (): string => newId('req');
