/**
 * Opaque pagination cursors: base64url of a small JSON position. Clients must treat them as
 * opaque strings; the simulator only needs them stable and self-describing.
 */

export function encodeCursor(position: object): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** The decoded position, or undefined when the text is not a cursor this simulator wrote. */
export function decodeCursor(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
