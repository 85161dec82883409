// Structure limits of the packages' sources: no function over 120 lines, no file over 500, no
// import circle among source files (type-only imports counted). Prints every breach; exits 2 on any
// (a breach needs a person: trying again changes nothing).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const MAX_FUNCTION_LINES = 120;
const MAX_FILE_LINES = 500;
const root = resolve(process.argv[2] ?? '.');

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const packagesDir = join(root, 'packages');
const files = readdirSync(packagesDir)
  .map((name) => join(packagesDir, name, 'src'))
  .filter((dir) => statSync(dir, { throwIfNoEntry: false })?.isDirectory())
  .flatMap(sourceFiles);

const breaches = [];
const graph = new Map();

function lineOf(source, pos) {
  return source.getLineAndCharacterOfPosition(pos).line + 1;
}

function functionName(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText();
  return '(anonymous)';
}

function isFile(path) {
  try {
    return statSync(path).isFile();
  } catch {
    // missing, or a file where a folder was expected (`../package.json/index.ts`)
    return false;
  }
}

function resolveImport(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier).replace(/\.(js|mjs|ts)$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}.mts`, join(base, 'index.ts')]) {
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}

for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const name = relative(root, file);
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_FILE_LINES) breaches.push(`${name}: ${lines} lines (at most ${MAX_FILE_LINES})`);
  const edges = new Set();
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const length = lineOf(source, node.end) - lineOf(source, node.getStart(source)) + 1;
      if (length > MAX_FUNCTION_LINES) {
        breaches.push(
          `${name}:${lineOf(source, node.getStart(source))} ${functionName(node)}: ${length} lines (at most ${MAX_FUNCTION_LINES})`,
        );
      }
    }
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const target = resolveImport(file, node.moduleSpecifier.text);
      if (target) edges.add(target);
    }
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const target = resolveImport(file, node.arguments[0].text);
      if (target) edges.add(target);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const target = resolveImport(file, node.argument.literal.text);
      if (target) edges.add(target);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  graph.set(file, edges);
}

// Tarjan's strongly connected components: every component of more than one file is a circle.
let index = 0;
const indices = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
function connect(file) {
  indices.set(file, index);
  low.set(file, index);
  index++;
  stack.push(file);
  onStack.add(file);
  for (const next of graph.get(file) ?? []) {
    if (!indices.has(next)) {
      connect(next);
      low.set(file, Math.min(low.get(file), low.get(next)));
    } else if (onStack.has(next)) low.set(file, Math.min(low.get(file), indices.get(next)));
  }
  if (low.get(file) === indices.get(file)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file)) circles.push(component);
  }
}
for (const file of graph.keys()) if (!indices.has(file)) connect(file);
for (const circle of circles) {
  breaches.push(
    `import circle of ${circle.length} files: ${circle
      .map((f) => relative(root, f))
      .sort()
      .join(', ')}`,
  );
}

for (const breach of breaches) console.log(breach);
console.log(`${files.length} source files; ${breaches.length} breach${breaches.length === 1 ? '' : 'es'}`);
process.exitCode = breaches.length ? 2 : 0;
