import type { Redactor } from '../../secrets.js';
import { events } from '../events.js';
import type { Send, StageAbout } from './stage.js';

/** What the redirect stage uses: the redactor a hostile Location is quoted through. */
export interface RedirectOptions {
  redactor: Redactor;
  about: StageAbout;
}

/** Redirects followed before the answer counts as the 3xx it is. */
const MAX_REDIRECTS = 5;

/**
 * Follows redirects by hand: each hop passes the stages below again (the credential stage keeps
 * the credential to the base URL's origin, the network policy checks the new address), and a
 * 303, or a 301/302 after a POST, turns into a GET without a body. Only the first hop asks the
 * budget's write gate: a later one follows an answer the provider already gave.
 */
export function redirect({ redactor, about }: RedirectOptions, next: Send): Send {
  return async (call) => {
    let hop = call;
    for (let count = 0; ; count += 1) {
      const answer = await next(hop);
      const location = answer.status >= 300 && answer.status < 400 ? answer.headers.get('location') : null;
      if (!location || count >= MAX_REDIRECTS) return answer;
      const target = new URL(location, hop.url);
      const toGet =
        answer.status === 303 || ((answer.status === 301 || answer.status === 302) && hop.method === 'POST');
      let headers = hop.headers;
      if (toGet && 'content-type' in headers) {
        const { 'content-type': _dropped, ...rest } = headers;
        headers = rest;
      }
      if (events.redirect.hasSubscribers) {
        events.redirect.publish({
          ...about,
          operation: call.operation,
          status: answer.status,
          from: hop.url.origin,
          // A hostile Location may name any host: quoted redacted, as everything the provider sends.
          to: redactor.redactString(target.origin),
        });
      }
      hop = {
        ...hop,
        url: target,
        method: toGet ? 'GET' : hop.method,
        body: toGet ? undefined : hop.body,
        headers,
        open: undefined,
        redirected: true,
      };
    }
  };
}
