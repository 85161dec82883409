/** What an action asks `ctx.http` for. */

/** A query parameter's value (`HttpRequest.query`); an array of them repeats the parameter. */
export type QueryValue = string | number | boolean;

/** What an action asks `ctx.http.request` for: method, path and its params, query, headers, JSON body, budget and answer type. */
export interface HttpRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the base URL; `{name}` placeholders are filled from `params`, encoded. */
  path: string;
  params?: Record<string, string | number>;
  /** Query parameters; arrays repeat the parameter, undefined ones are left out. */
  query?: Record<string, QueryValue | readonly QueryValue[] | undefined>;
  /** A JSON body. */
  json?: unknown;
  headers?: Record<string, string>;
  /** The rate budget to draw on; defaults to the action's. */
  budget?: string;
  /** How to read a successful answer; by default JSON when it says so, else text. */
  responseType?: 'json' | 'text';
}
