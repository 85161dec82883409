import { join } from 'node:path';
import insurance from '@plugboard/connector-insurance';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type CatalogueEntry, secretProblems } from '../src/entry.js';
import { entryProblems } from '../src/public-connector-schema.js';
import { generateCatalogue } from '../src/index.js';
import { readJson, tempDir } from './support/run.js';

/** The catalogue of a real connector of the pack, as built and published. */
describe('the insurance connector in the catalogue', () => {
  it('gets a valid entry, schemas for every data type and input, and declarations that compile', async () => {
    const outDir = await tempDir();
    const catalogue = await generateCatalogue({ connectors: [insurance], outDir, generatedAt: '2026-10-01T00:00:00Z' });
    const entry = await readJson<CatalogueEntry>(join(outDir, 'connectors/insurance.json'));
    expect(entryProblems(entry)).toEqual([]);
    expect(secretProblems(entry.authentication)).toEqual([]);
    expect(entry).toMatchObject({
      key: 'insurance',
      category: 'insurance',
      categoryLabel: 'Insurance',
      package: '@plugboard/connector-insurance',
    });
    expect(entry.operations.map((operation) => operation.key)).toEqual(
      insurance.actions.map((action) => action.key).sort(),
    );
    expect(entry.implemented).toBe(
      insurance.actions.every((action) => (action.direction === 'source' ? action.read : action.write) !== undefined),
    );
    for (const operation of entry.operations) {
      const action = insurance.action(operation.key)!;
      expect(operation.mode).toBe(action.direction);
      // Billable writes need approval and are never retried.
      if (operation.billable) expect(operation).toMatchObject({ approvalRequired: true, retry: 'never' });
      expect(catalogue.files.has(operation.inputSchema!)).toBe(true);
      expect(catalogue.files.has(operation.entitySchema!)).toBe(true);
    }
    // The ES2022 library only: the declarations need no DOM types, and checking those costs seconds.
    const program = ts.createProgram([join(outDir, 'types/insurance.d.ts')], {
      strict: true,
      noEmit: true,
      types: [],
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2022.d.ts'],
    });
    expect(
      ts
        .getPreEmitDiagnostics(program)
        .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')),
    ).toEqual([]);
  });
});
