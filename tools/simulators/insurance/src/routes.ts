import { isApiError } from './answers.js';
import { requireObject } from './body.js';
import { checkMotorQuote } from './motor.js';
import type { Tier } from './premium.js';
import { quoteHospitalCash } from './quotes.js';
import type { Route } from './router.js';
import { RecordCollection } from './store.js';

/** The operations known only by method and path: bodies are kept as posted and listed back. */
export const PASS_THROUGH_PATHS = [
  '/v2/motor/quotes',
  '/v2/motor/policies',
  '/v1/travel/policies',
  '/v1/homeowner/quotes',
  '/v1/hospital-cash/policies',
] as const;
export type PassThroughPath = (typeof PASS_THROUGH_PATHS)[number];

const ID_PREFIXES: Readonly<Record<PassThroughPath, string>> = {
  '/v2/motor/quotes': 'mq',
  '/v2/motor/policies': 'mp',
  '/v1/travel/policies': 'tp',
  '/v1/homeowner/quotes': 'hq',
  '/v1/hospital-cash/policies': 'hcp',
};

/** `POST .../policies` binds cover: a billable write, counted so tests can check it is sent once. */
export function isBillable(path: PassThroughPath): boolean {
  return path.endsWith('/policies');
}

export function newCollections(): Map<PassThroughPath, RecordCollection> {
  return new Map(PASS_THROUGH_PATHS.map((path) => [path, new RecordCollection(ID_PREFIXES[path])]));
}

export const QUOTE_OPERATION = 'hospital_cash.quote';

export function insuranceRoutes(
  collections: ReadonlyMap<PassThroughPath, RecordCollection>,
  currency: string,
): Route[] {
  const quote: Route = {
    method: 'POST',
    path: /^\/v1\/hospital-cash\/(?<tier>basic|classic|plus)\/quotes$/,
    operation: QUOTE_OPERATION,
    budget: 'quotes',
    handle: ({ params, body, now }) => {
      const request = requireObject(body);
      return isApiError(request) ? request : quoteHospitalCash(params.tier as Tier, request, now, currency);
    },
  };
  const passThrough = PASS_THROUGH_PATHS.flatMap((path): Route[] => {
    const collection = collections.get(path) as RecordCollection;
    const pattern = new RegExp(`^${path}$`);
    const name = path.split('/').slice(2).join('.');
    return [
      {
        method: 'GET',
        path: pattern,
        operation: `${name}.list`,
        budget: 'other',
        handle: ({ query }) => collection.list(query),
      },
      {
        method: 'POST',
        path: pattern,
        operation: `${name}.create`,
        budget: 'other',
        handle: ({ body, now }) => {
          const request = requireObject(body);
          if (isApiError(request)) return request;
          const refused = path === '/v2/motor/quotes' ? checkMotorQuote(request) : undefined;
          return refused ?? collection.create(request, now);
        },
      },
    ];
  });
  return [quote, ...passThrough];
}
