import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { generateCatalogue } from '../src/index.js';
import { PACK } from './support/connectors.js';
import { tempDir } from './support/run.js';

/**
 * Type errors of the files, as tsc reports them, against the ES2022 library only (the
 * declarations need no DOM types). skipLibCheck stays off so that the generated .d.ts
 * files are checked; the library is parsed once for every call.
 */
const options: ts.CompilerOptions = {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  types: [],
  skipLibCheck: false,
};
const host = ts.createCompilerHost(options);
const parsed = new Map<string, ts.SourceFile | undefined>();
const getSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (fileName, language) => {
  if (!fileName.includes('/typescript/lib/')) return getSourceFile(fileName, language);
  if (!parsed.has(fileName)) parsed.set(fileName, getSourceFile(fileName, language));
  return parsed.get(fileName);
};

function diagnostics(files: string[]): string[] {
  const program = ts.createProgram(files, options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName.split('/').slice(-2).join('/')}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}`
      : '';
    return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe('types/<key>.d.ts', () => {
  it('compiles with tsc, and types what the schemas describe', async () => {
    const outDir = await tempDir();
    await generateCatalogue({ connectors: PACK, outDir, generatedAt: '2026-10-01T00:00:00Z' });
    const declarations = ['clips', 'notes', 'shop'].map((key) => join(outDir, 'types', `${key}.d.ts`));
    expect(diagnostics(declarations)).toEqual([]);

    const usage = join(outDir, 'usage.ts');
    await writeFile(
      usage,
      `import type { Item, Order, ItemsListInput, OrdersCreateInput, ShopCatalogue } from './types/shop.js';
import type { NotesExportInput } from './types/notes.js';
export const item: Item = { id: '1', name: 'Mug', price: { amount: '4.50', currency: 'EUR' }, tags: [], updated_at: '2026-01-01T00:00:00Z' };
export const order: ShopCatalogue['dataTypes']['Order'] = { order_id: 'o', status: 'paid', total: item.price, lines: [{ item_id: '1', quantity: 2 }], note: null };
export const list: ItemsListInput = {};
export const create: OrdersCreateInput = { lines: [] };
export const exported: NotesExportInput = { id: 'n1' };
export const same: Order = order;
`,
    );
    expect(diagnostics([usage])).toEqual([]);

    const wrong = join(outDir, 'wrong.ts');
    await writeFile(
      wrong,
      `import type { Order } from './types/shop.js';
import type { NotesExportInput } from './types/notes.js';
export const order: Order = { order_id: 'o', status: 'lost', total: { amount: '1', currency: 'EUR' }, lines: [], note: null };
export const exported: NotesExportInput = { format: 'pdf' };
`,
    );
    const errors = diagnostics([wrong]);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/wrong\.ts:3 .*"lost"/);
    expect(errors[1]).toMatch(/wrong\.ts:4 .*'id'/);
  });
});
