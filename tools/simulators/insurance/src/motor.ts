import type { ApiError } from './answers.js';
import { isJsonObject, type JsonObject } from './body.js';
import { failureMessage } from './messages.js';

const MIN_DRIVER_AGE = 18;
const MAX_DRIVER_AGE = 75;

/**
 * The only motor quote rules known, both read off the provider's error log: `vehicle.value` is
 * required, and `driver_age`, when given, lies from 18 to 75 inclusive.
 */
export function checkMotorQuote(body: JsonObject): ApiError | undefined {
  const vehicle = isJsonObject(body.vehicle) ? body.vehicle : {};
  if (vehicle.value === undefined || vehicle.value === null || vehicle.value === '') {
    const field = 'vehicle.value';
    return { status: 422, code: 'missing_required_field', message: failureMessage('missing_field', { field }), field };
  }
  const age = body.driver_age;
  if (age !== undefined && !(typeof age === 'number' && age >= MIN_DRIVER_AGE && age <= MAX_DRIVER_AGE)) {
    return { status: 422, code: 'value_out_of_range', message: failureMessage('out_of_range'), field: 'driver_age' };
  }
  return undefined;
}
