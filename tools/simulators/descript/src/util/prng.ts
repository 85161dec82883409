/**
 * Deterministic randomness. Every seeded value is derived from (seed, index, salt) by a
 * stateless hash, so any project of a drive can be computed on its own, in any order.
 */

/** A 32-bit avalanche hash of up to three integers (murmur3 finaliser over a splitmix step). */
export function mix(seed: number, index: number, salt = 0): number {
  let h = (seed ^ Math.imul(index + 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 0x7f4a7c15, 0xc2b2ae35)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  // A second round so that neighbouring indexes do not produce correlated values.
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return (h ^ (h >>> 15)) >>> 0;
}

/** A float in [0, 1) from the same inputs as `mix`. */
export function unit(seed: number, index: number, salt = 0): number {
  return mix(seed, index, salt) / 4_294_967_296;
}

/** Hash of a string, for values derived from request content (URLs, prompts). */
export function hashString(text: string, seed = 0): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = mix(h, text.charCodeAt(i), i);
  return h;
}

/** Mulberry32: a small sequential generator for the details of one seeded item. */
export function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function pick<T>(items: readonly T[], random: number): T {
  const item = items[Math.floor(random * items.length) % items.length];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

export function hex(value: number, digits: number): string {
  return (value >>> 0)
    .toString(16)
    .padStart(8, '0')
    .slice(8 - digits);
}

/** A version-4-shaped UUID built from hashes of (seed, index, salt). */
export function uuidFor(seed: number, index: number, salt: number): string {
  const a = mix(seed, index, salt);
  const b = mix(seed, index, salt + 1);
  const c = mix(seed, index, salt + 2);
  const d = mix(seed, index, salt + 3);
  return `${hex(a, 8)}-${hex(b >>> 16, 4)}-4${hex(b, 3)}-${hex(8 + (c >>> 30), 1)}${hex(c, 3)}-${hex(c >>> 12, 4)}${hex(d, 8)}`;
}
