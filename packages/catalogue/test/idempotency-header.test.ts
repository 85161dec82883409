import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectorEntry } from '../src/entry.js';
import { entryProblems } from '../src/public-connector-schema.js';

const Payment = z.object({ id: z.string() }).meta({ id: 'KeyedPayment' });

const payments = (idempotencyHeader?: string) =>
  defineConnector({
    key: 'payments',
    name: 'Payments',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'Payments at a provider that deduplicates on a key.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'payments.create',
        label: 'Create a payment',
        direction: 'destination',
        effect: { writes: true, idempotent: false, destructive: false },
        entity: Payment,
        input: z.object({ amount: z.number() }),
        ...(idempotencyHeader === undefined ? {} : { idempotencyHeader }),
      }),
    ],
  });

describe("an operation whose provider takes the run's idempotency key", () => {
  it('publishes the header in a valid entry, and leaves the field out where none is declared', () => {
    const entry = connectorEntry(payments('Idempotency-Key'));
    expect(entry.operations[0]).toMatchObject({ key: 'payments.create', idempotencyHeader: 'Idempotency-Key' });
    expect(entryProblems(entry)).toEqual([]);
    expect(connectorEntry(payments()).operations[0]).not.toHaveProperty('idempotencyHeader');
  });
});
