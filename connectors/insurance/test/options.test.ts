import { createExecutor } from '@plugboard/sdk/host';
import { describe, expect, it } from 'vitest';
import insurance from '../src/index.js';
import { type Harness, useHarness } from './support.js';

const start = useHarness();

function lister(h: Harness) {
  const executor = createExecutor({
    connectors: [insurance],
    resolveConnection: (id) => ({ id, baseUrl: h.sim.url }),
    resolveCredential: () => h.sim.apiKey,
    transport: h.transport,
    log: () => undefined,
  });
  return (action: string, field: string, search?: string) =>
    executor.listOptions({
      connectorKey: 'insurance',
      action,
      field,
      connectionId: 'conn_insurance',
      ...(search ? { search } : {}),
    });
}

describe('what a hospital cash quote request picks from', () => {
  it('lists the causes and the confinements priced, searched by label, without a request', async () => {
    const h = await start();
    const list = lister(h);
    expect(await list('hospital_cash_basic_quotes.create', 'cause')).toEqual({
      items: [
        { value: 'illness', label: 'Illness', description: 'Confinement for an illness' },
        { value: 'accidental_injury', label: 'Accidental injury', description: 'Confinement after an accident' },
      ],
    });
    const days = await list('hospital_cash_quotes.compare', 'confinement_days');
    expect(days.items.map((item) => item.value)).toEqual(Array.from({ length: 19 }, (_, index) => index + 2));
    expect((await list('hospital_cash_plus_quotes.create', 'cause', 'accident')).items).toEqual([
      expect.objectContaining({ value: 'accidental_injury' }),
    ]);
    expect(h.sim.requests).toHaveLength(0);
  });
});
