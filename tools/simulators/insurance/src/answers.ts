import { STATUS_CODES, type ServerResponse } from 'node:http';

/** How an error body is shaped: the assumed contract, bare text, or RFC 9457 problem details. */
export type ErrorBodyFormat = 'json' | 'text' | 'problem';

/** A successful answer: a status and a JSON body. */
export interface Answer {
  status: number;
  body: unknown;
}

/** An error answer; rendered in the assumed `{error, message, request_id, field?}` shape unless told otherwise. */
export interface ApiError {
  status: number;
  /** Machine code for the `error` member. */
  code: string;
  message: string;
  /** Dotted path of the offending request field. */
  field?: string;
  headers?: Record<string, string>;
  format?: ErrorBodyFormat;
}

/** Tells an error apart from whatever else a step returns (an answer, a parsed body, a route). */
export function isApiError<T extends object>(value: T | ApiError): value is ApiError {
  return 'code' in value && 'status' in value;
}

export function writeAnswer(res: ServerResponse, requestId: string, answer: Answer): void {
  res.writeHead(answer.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': requestId,
  });
  res.end(JSON.stringify(answer.body));
}

export function writeError(res: ServerResponse, requestId: string, error: ApiError, instance: string): void {
  const headers: Record<string, string> = { ...error.headers, 'x-request-id': requestId };
  let payload: string;
  switch (error.format ?? 'json') {
    case 'text':
      headers['content-type'] = 'text/plain; charset=utf-8';
      payload = error.message;
      break;
    case 'problem':
      headers['content-type'] = 'application/problem+json; charset=utf-8';
      payload = JSON.stringify({
        type: 'about:blank',
        title: STATUS_CODES[error.status] ?? 'Error',
        status: error.status,
        detail: error.message,
        instance,
      });
      break;
    case 'json':
      headers['content-type'] = 'application/json; charset=utf-8';
      payload = JSON.stringify({
        error: error.code,
        message: error.message,
        request_id: requestId,
        ...(error.field === undefined ? {} : { field: error.field }),
      });
      break;
  }
  res.writeHead(error.status, headers);
  res.end(payload);
}
