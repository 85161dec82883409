import type { Drive } from './drive.js';
import { ApiError } from '../errors.js';

/** Media minutes and AI credits: a job starts only when the drive can pay for it, and pays up front. */

export function spendMediaMinutes(drive: Drive, required: number): void {
  if (required > drive.mediaMinutes) {
    throw new ApiError(
      402,
      `Insufficient media minutes to start the job (${required} minutes required, ${drive.mediaMinutes} available)`,
    );
  }
  drive.mediaMinutes -= required;
}

export function spendAiCredits(drive: Drive, required: number): void {
  if (required > drive.aiCredits) {
    throw new ApiError(
      402,
      `Insufficient AI credits to start the job (${required} credits required, ${drive.aiCredits} available)`,
    );
  }
  drive.aiCredits -= required;
}
