import type { FieldOptions } from '@plugboard/sdk';
import { type Cause, CAUSES, CONFINEMENT_DAYS } from './contract.js';

/**
 * What a hospital cash quote request picks from: the causes of confinement the cover knows and
 * the confinements it prices. The provider lists neither; the lists are the contract's, so
 * listing them sends nothing.
 */

const CAUSE_TEXT: Readonly<Record<Cause, { label: string; description: string }>> = {
  illness: { label: 'Illness', description: 'Confinement for an illness' },
  accidental_injury: { label: 'Accidental injury', description: 'Confinement after an accident' },
};

const days = Array.from(
  { length: CONFINEMENT_DAYS.max - CONFINEMENT_DAYS.min + 1 },
  (_, index) => CONFINEMENT_DAYS.min + index,
);

export const quoteOptions: { cause: FieldOptions; confinement_days: FieldOptions } = {
  cause: {
    from: 'the causes of confinement the cover knows',
    list: async () => ({ items: CAUSES.map((cause) => ({ value: cause, ...CAUSE_TEXT[cause] })) }),
  },
  confinement_days: {
    from: `the confinements priced, ${CONFINEMENT_DAYS.min} to ${CONFINEMENT_DAYS.max} days`,
    list: async () => ({ items: days.map((count) => ({ value: count, label: `${count} days` })) }),
  },
};
