import { channel } from 'node:diagnostics_channel';

/**
 * What the stages of `ctx.http` publish on Node's diagnostics channels (packages/sdk/README.md
 * lists each message's fields). A message is built only when someone subscribes
 * (`hasSubscribers`), and carries nothing the run's redactor would hide: operations are
 * redacted excerpts, origins carry no path nor query, errors only their code.
 */
export const events = {
  /** A `ctx.http` call begins: `{ connector, action, operation }`. */
  requestStart: channel('plugboard:http:request:start'),
  /** It ended: `{ connector, action, operation, status?, code?, durationMs, attempts }`. */
  requestEnd: channel('plugboard:http:request:end'),
  /** One exchange goes to the transport (each attempt, each redirect hop): `{ connector, action, operation, origin }`. */
  exchangeStart: channel('plugboard:http:exchange:start'),
  /** Its answer was read, or it failed (`code`; `held_back` when its budget held it before writing): `{ ..., status?, code?, durationMs }`. */
  exchangeEnd: channel('plugboard:http:exchange:end'),
  /** A request waited for its rate budget: `{ connector, action, budget, waitMs }`. */
  budgetWait: channel('plugboard:http:budget:wait'),
  /** A failed attempt will be retried: `{ connector, action, operation, attempt, delayMs, code }`. */
  retry: channel('plugboard:http:retry'),
  /** A request was refused before it was sent: `{ connector, action, operation, reason, code, waitMs? }`. */
  refused: channel('plugboard:http:refused'),
  /** A redirect is followed: `{ connector, action, operation, status, from, to, credential }`. */
  redirect: channel('plugboard:http:redirect'),
};
