import { declared, withValue } from './declared.js';
import type { PageNumberOptions } from './paged-options.js';
import type { Paginator } from './paginator.js';

/** A page number counted up from `initial`. */
export function pageNumberPaginator(options: PageNumberOptions): Paginator {
  const { param, initial = 1 } = options.page ?? ({} as Partial<PageNumberOptions['page']>);
  return declared(options, {
    name: 'page-number',
    stops: ['empty-page'],
    endsByItself: false,
    problems: param ? [] : ['page needs the parameter it is sent as'],
    first: (request) => withValue(request, { query: param! }, initial),
    next: ({ request, read, stopped }) =>
      stopped(read) ? undefined : withValue(request, { query: param! }, Number(request.query?.[param!] ?? initial) + 1),
  });
}
