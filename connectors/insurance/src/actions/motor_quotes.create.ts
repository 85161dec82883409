import { PATHS } from '../contract.js';
import { MotorQuote, MotorQuoteRequest } from '../entities.js';
import { createAction } from './pass-through.js';

export const motorQuotesCreate = createAction({
  key: 'motor_quotes.create',
  label: 'Request a motor quote',
  description:
    'Sends a motor quote request (POST /v2/motor/quotes) with the body passed through, after the two checks the provider log reveals: vehicle.value is required and driver_age, when given, lies from 18 to 75. A quote binds no cover: safe to repeat.',
  path: PATHS.motorQuotes,
  entity: MotorQuote,
  input: MotorQuoteRequest,
  kind: 'quote',
});
