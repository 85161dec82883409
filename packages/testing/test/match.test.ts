import { describe, expect, it } from 'vitest';
import { REDACTED } from '@plugboard/sdk/host';
import { bodyMatches, pathMatches, textMatches, valueMatches } from '../src/match.js';

describe('matching with the redaction marker as a wildcard', () => {
  it('texts', () => {
    expect(textMatches('abc', 'abc')).toBe(true);
    expect(textMatches('abc', 'abd')).toBe(false);
    expect(textMatches(`Bearer ${REDACTED}`, 'Bearer anything.at-all')).toBe(true);
    expect(textMatches(`a ${REDACTED} b ${REDACTED}`, 'a x b y')).toBe(true);
    expect(textMatches(`a ${REDACTED} b`, 'a x c')).toBe(false);
    expect(textMatches('a.c', 'abc')).toBe(false);
    expect(textMatches(`${REDACTED}${REDACTED}`, '')).toBe(true);
    expect(textMatches(`ab${REDACTED}ba`, 'aba')).toBe(false);
    expect(textMatches(`ab${REDACTED}ba`, 'abba')).toBe(true);
    expect(textMatches(`${REDACTED}x${REDACTED}x${REDACTED}`, 'axbxc')).toBe(true);
    expect(textMatches(`${REDACTED}x${REDACTED}x`, 'axbx!')).toBe(false);
  });

  it('texts in linear time, however many markers and however long the text', () => {
    // Milliseconds for a linear scan; a matcher that backtracks, or only goes quadratic
    // (10^14 steps here), would not finish within the test's timeout, loaded machine or not.
    const recorded = `${Array.from({ length: 20 }, () => REDACTED).join('a')}b`;
    expect(textMatches(recorded, 'a'.repeat(10_000_000))).toBe(false);
  });

  it('paths and queries, in any parameter order', () => {
    expect(pathMatches('/v1/items?limit=2&cursor=x', '/v1/items?cursor=x&limit=2')).toBe(true);
    expect(pathMatches(`/v1/items?token=${REDACTED}&limit=2`, '/v1/items?token=s3cr3t-value&limit=2')).toBe(true);
    expect(pathMatches(`/v1/items?token=${REDACTED}`, '/v1/items?token=%5BREDACTED%5D')).toBe(true);
    expect(pathMatches('/v1/items?limit=2', '/v1/items?limit=3')).toBe(false);
    expect(pathMatches('/v1/items?limit=2', '/v1/items?limit=2&extra=1')).toBe(false);
    expect(pathMatches('/v1/items', '/v1/items?limit=2')).toBe(false);
    expect(pathMatches(`/v1/keys/${REDACTED}/usage`, '/v1/keys/k-123/usage')).toBe(true);
    expect(pathMatches('/v1/a b', '/v1/a%20b')).toBe(true);
  });

  it('JSON values: the marker alone matches any value', () => {
    expect(valueMatches({ a: REDACTED, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 42 })).toBe(true);
    expect(valueMatches({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(valueMatches([1, 2], [1, 2, 3])).toBe(false);
    expect(valueMatches({ note: `pw is ${REDACTED}` }, { note: 'pw is hunter2' })).toBe(true);
    expect(valueMatches(null, null)).toBe(true);
    expect(valueMatches('1', 1)).toBe(false);
  });

  it('bodies: none, text and JSON', () => {
    expect(bodyMatches(undefined, undefined, '')).toBe(true);
    expect(bodyMatches(undefined, undefined, 'x')).toBe(false);
    expect(bodyMatches('a=1&b=2', 'text', 'a=1&b=2')).toBe(true);
    expect(bodyMatches({ a: 1 }, 'json', { a: 1 })).toBe(true);
    expect(bodyMatches({ a: 1 }, 'json', { a: 2 })).toBe(false);
    expect(bodyMatches({ a: 1 }, 'json', '')).toBe(false);
  });
});
