import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/packages.js';

/**
 * The author entry (`@plugboard/sdk`) is what an author reads: few enough names to learn, each
 * with a doc comment. Read from the built declarations (`pnpm --filter @plugboard/sdk run build`),
 * as an author's editor reads them.
 */

const ENTRY = join(ROOT, 'packages', 'sdk', 'dist', 'index.d.ts');

/** The entry's exported symbols, each resolved to the declarations it names. */
function exportedSymbols(): { name: string; declarations: ts.Declaration[] }[] {
  const program = ts.createProgram([ENTRY], { module: ts.ModuleKind.NodeNext, noEmit: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${ENTRY} is missing: build the SDK first`);
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return { name: symbol.name, declarations: target.declarations ?? [] };
  });
}

/**
 * Whether a `/** ... *\/` comment is attached to the declaration (or to its `declare const`
 * statement): the last one before it, with no blank line between (line comments aside), as
 * an editor shows it. A file's opening comment does not count for its first declaration.
 */
function hasDocComment(declaration: ts.Declaration): boolean {
  const node = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
  const text = node.getSourceFile().text;
  const comments = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const doc = comments.filter((range) => text.startsWith('/**', range.pos)).at(-1);
  if (!doc) return false;
  const between = text.slice(doc.end, node.getStart()).replace(/\/\/[^\n]*/g, '');
  return !/\n[ \t]*\n/.test(between);
}

describe('the author entry', () => {
  const symbols = exportedSymbols();

  // What an author writes or catches. Host machinery is in `/host`, and a type only one
  // declaration uses (and no author names) is written in that declaration. The ceiling only goes
  // down, but for a capability an author calls itself: signed deliveries added 9 (rule 13's
  // sign, headers and verify, Standard Webhooks' sign and verify, the HMAC and Slack presets, the
  // verdict and refusal types), which a sender and a connector's trigger call; provider webhooks
  // then moved rule 13's sign, headers, verify and verdict to `/host` (the platform and receivers
  // call them) and added `defineTrigger`, `Trigger`, `WebhookSignature` and their preset.
  it('exports no more than 128 names', () => {
    const names = symbols.map((symbol) => symbol.name).sort();
    expect(names.length, names.join(', ')).toBeLessThanOrEqual(128);
  });

  it('has a doc comment on every exported declaration', () => {
    const undocumented = symbols
      .filter(({ declarations }) => declarations.length === 0 || !declarations.some(hasDocComment))
      .map(({ name }) => name)
      .sort();
    expect(undocumented).toEqual([]);
  });
});
