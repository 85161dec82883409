import type { IncomingMessage } from 'node:http';
import type { ApiError } from './answers.js';

/** Bodies above this are refused with 413, so a runaway client cannot exhaust the simulator's memory. */
export const MAX_BODY_BYTES = 1_048_576;

export type JsonObject = Record<string, unknown>;

export interface RequestBody {
  text: string;
  /** The parsed JSON value; undefined for an empty or unparsable body. */
  json: unknown;
  malformed: boolean;
}

export async function readBody(req: IncomingMessage): Promise<RequestBody | ApiError> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Past the cap the rest is drained and dropped rather than the socket cut, so the client still reads the 413.
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) {
    return { status: 413, code: 'payload_too_large', message: `Request body exceeds ${MAX_BODY_BYTES} bytes` };
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { text, json: undefined, malformed: false };
  try {
    return { text, json: JSON.parse(text) as unknown, malformed: false };
  } catch {
    return { text, json: undefined, malformed: true };
  }
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The JSON object a POST must carry, or the 400 that says why not. */
export function requireObject(body: RequestBody): JsonObject | ApiError {
  if (isJsonObject(body.json)) return body.json;
  return {
    status: 400,
    code: 'invalid_json',
    message: body.malformed ? 'Request body is not valid JSON' : 'Request body must be a JSON object',
  };
}
