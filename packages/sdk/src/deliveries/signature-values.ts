/**
 * The values of a signature header that lists several (`v1=<hex>,v1=<hex>`, `v1,<base64>
 * v1,<base64>`): read from a bounded header, at most 8 of the wanted version tried.
 */

/** The longest signature header read; a longer one is malformed, and none of its values is tried. */
export const MAX_SIGNATURE_HEADER_LENGTH = 2048;

/** The most values of the wanted version tried from one header; later ones are left alone. */
export const MAX_SIGNATURE_VALUES = 8;

/** How a scheme writes its values. */
export interface ValueFormat {
  /** The version tried, e.g. `v1`; values of other versions are ignored. */
  version: string;
  /** Between a value's version and its signature: `=` (`v1=<hex>`) or `,` (`v1,<base64>`). */
  joiner: '=' | ',';
  /** What separates the values. */
  separators: RegExp;
  encoding: 'hex' | 'base64';
  /** The digest's length in bytes. */
  bytes: number;
}

const VERSION = /^v[0-9a-z]{1,8}$/;

/**
 * The decoded values of `format.version`, the first 8 of them (an empty list when the header has
 * only other versions); undefined when a value is garbled: no version, or a wanted one that is
 * not a digest in the format's encoding.
 */
export function signatureValues(header: string, format: ValueFormat): Buffer[] | undefined {
  const values: Buffer[] = [];
  let tokens = 0;
  for (const token of header.split(format.separators)) {
    if (token === '') continue;
    tokens += 1;
    const at = token.indexOf(format.joiner);
    const version = at > 0 ? token.slice(0, at) : '';
    if (!VERSION.test(version)) return undefined;
    if (version !== format.version || values.length === MAX_SIGNATURE_VALUES) continue;
    const value = decodeDigest(token.slice(at + 1), format);
    if (value === undefined) return undefined;
    values.push(value);
  }
  return tokens > 0 ? values : undefined;
}

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A digest of `format.bytes` bytes written in the format's encoding, strictly; else undefined. */
export function decodeDigest(text: string, format: Pick<ValueFormat, 'encoding' | 'bytes'>): Buffer | undefined {
  if (format.encoding === 'hex') {
    return text.length === format.bytes * 2 && HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
  }
  if (text.length !== Math.ceil(format.bytes / 3) * 4 || !BASE64.test(text)) return undefined;
  const value = Buffer.from(text, 'base64');
  return value.length === format.bytes ? value : undefined;
}
