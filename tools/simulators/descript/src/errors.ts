/** The provider's error answers: `{"error": "<code>", "message": "<text>"}` with a status-specific code. */

const CODE_BY_STATUS: Record<number, string> = {
  400: 'invalid_input',
  401: 'unauthorized',
  402: 'payment_required',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  422: 'unprocessable_entity',
  429: 'rate_limit_exceeded',
};

export function errorCodeFor(status: number): string {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'error');
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra fields of the error body, such as `state` on a 409 for a publish. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The answer to send: this status with the provider's error body. */
  toReply(): { status: number; body: Record<string, unknown> } {
    return { status: this.status, body: { error: errorCodeFor(this.status), message: this.message, ...this.extra } };
  }
}

export const invalidInput = (message: string) => new ApiError(400, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);
