import { PATHS } from '../contract.js';
import { MotorQuote } from '../entities.js';
import { listAction } from './pass-through.js';

export const motorQuotesList = listAction({
  key: 'motor_quotes.list',
  label: 'List motor quotes',
  description:
    'Motor quotes, oldest first, every page (GET /v2/motor/quotes); records passed through as the provider sends them.',
  path: PATHS.motorQuotes,
  entity: MotorQuote,
});
