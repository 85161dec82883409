/**
 * The headers of a timed scheme read as one: the timestamp, the event id (when the scheme has
 * one) and the signature values, each bounded. Any of them missing or garbled makes the
 * delivery malformed.
 */
import { eventIdProblem, MAX_EVENT_ID_LENGTH, MAX_TIMESTAMP_DIGITS, parseTimestamp } from './fields.js';
import { headerText, type RequestHeaders } from './headers.js';
import { MAX_SIGNATURE_HEADER_LENGTH, signatureValues, type ValueFormat } from './signature-values.js';

/** A scheme's header names (lower case), how it writes its values, and what separates its signed text's parts. */
export interface SignedHeaders {
  signature: string;
  timestamp: string;
  /** Absent for a scheme whose event id is in the body only (Slack). */
  eventId?: string;
  format: ValueFormat;
  separator: string;
}

/** A delivery's headers, read. */
export interface ReadHeaders {
  timestamp: number;
  /** The timestamp as the sender wrote and signed it. */
  timestampText: string;
  /** Empty when the scheme has no event id header. */
  eventId: string;
  values: Buffer[];
}

/** The delivery's headers, or undefined when one is missing, garbled or over its bound. */
export function readSignedHeaders(headers: RequestHeaders, scheme: SignedHeaders): ReadHeaders | undefined {
  const timestampText = headerText(headers, scheme.timestamp, MAX_TIMESTAMP_DIGITS);
  const timestamp = parseTimestamp(timestampText);
  let eventId = '';
  if (scheme.eventId !== undefined) {
    const text = headerText(headers, scheme.eventId, MAX_EVENT_ID_LENGTH);
    if (text === undefined || eventIdProblem(text, scheme.separator) !== undefined) return undefined;
    eventId = text;
  }
  const header = headerText(headers, scheme.signature, MAX_SIGNATURE_HEADER_LENGTH);
  const values = header === undefined ? undefined : signatureValues(header, scheme.format);
  if (timestamp === undefined || values === undefined) return undefined;
  return { timestamp, timestampText: timestampText!, eventId, values };
}
