// The declared layers hold (docs/ARCHITECTURE.md, "Layers"): every file of src/ belongs to a
// declared folder (src/ itself holds only the composition root), every import between folders
// points down the declared order (never up, never sideways to another folder of the same layer),
// and no folders, subfolders included, import each other in a circle. The order is written once,
// in the doc's ```layers block, which this test reads; the imports are read with the TypeScript
// compiler API (static, `export … from`, `import type`, `import()`, and worker files named by
// `new URL('./x.js', import.meta.url)`).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

/** The layers, bottom first, from the doc; each line one layer, folders of one layer separated by spaces. */
function declaredLayers(): string[][] {
  const doc = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
  const block = /^```layers\n([\s\S]*?)^```/m.exec(doc);
  if (!block) throw new Error('docs/ARCHITECTURE.md has no ```layers block');
  return block[1]!
    .split('\n')
    .map((line) => line.replace(/#.*/, '').trim())
    .filter(Boolean)
    .map((line) => line.split(/\s+/));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Relative module specifiers of one file (package imports are not layered here). */
function relativeImports(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    let spec: ts.Expression | undefined;
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) spec = n.moduleSpecifier;
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) spec = n.arguments[0];
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) spec = n.argument.literal;
    else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) spec = n.moduleReference.expression;
    else if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'URL' && n.arguments?.length === 2) {
      const [what, base] = n.arguments;
      if (base!.getText(sf) === 'import.meta.url' && ts.isStringLiteral(what!) && what.text.endsWith('.js')) spec = what;
    }
    if (spec && ts.isStringLiteralLike(spec) && spec.text.startsWith('.')) out.push(spec.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

interface Import {
  from: string;
  to: string;
}

/** Every import from one file of src/ to another, as paths relative to src/. */
function readImports(): { files: string[]; imports: Import[] } {
  const files = sourceFiles(SRC).map((f) => relative(SRC, f));
  const imports: Import[] = [];
  for (const file of files) {
    const abs = join(SRC, file);
    for (const spec of relativeImports(abs, readFileSync(abs, 'utf8'))) {
      const to = relative(SRC, resolve(dirname(abs), spec)).replace(/\.js$/, '.ts');
      if (!to.startsWith('..')) imports.push({ from: file, to });
    }
  }
  return { files, imports };
}

/** The unit a file belongs to: its top folder, or the file itself when loose at src/. */
const unitOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);
/** The folder a file sits in ('' is src/ itself). */
const folderOf = (file: string): string => (file.includes('/') ? dirname(file) : '');
const folderName = (folder: string): string => folder || 'src';

/** Layer index of each declared unit. */
function layerIndex(layers: string[][]): Map<string, number> {
  const index = new Map<string, number>();
  layers.forEach((units, i) => units.forEach((u) => index.set(u.replace(/\/$/, ''), i)));
  return index;
}

/** Imports that point up or sideways against the layers: "from -> to" lines. */
export function layerViolations(imports: Import[], layers: string[][]): string[] {
  const index = layerIndex(layers);
  const out: string[] = [];
  for (const { from, to } of imports) {
    const a = unitOf(from);
    const b = unitOf(to);
    if (a === b) continue;
    const la = index.get(a);
    const lb = index.get(b);
    if (la === undefined || lb === undefined) continue; // reported as undeclared
    if (lb > la) out.push(`${from} -> ${to} (up: ${a} is below ${b})`);
    else if (lb === la) out.push(`${from} -> ${to} (sideways: ${a} and ${b} share a layer)`);
  }
  return out;
}

/** Folder-level cycles (strongly connected components of two or more folders). */
export function folderCycles(imports: Import[]): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    const a = folderName(folderOf(from));
    const b = folderName(folderOf(to));
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    if (!graph.has(b)) graph.set(b, new Set());
    graph.get(a)!.add(b);
  }
  // Tarjan's strongly connected components
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)!) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return cycles;
}

/** The imports behind each folder-to-folder edge inside the given folders, to say what closes a cycle. */
function edgesWithin(imports: Import[], folders: string[]): string[] {
  const inCycle = new Set(folders);
  return imports
    .filter(({ from, to }) => {
      const a = folderName(folderOf(from));
      const b = folderName(folderOf(to));
      return a !== b && inCycle.has(a) && inCycle.has(b);
    })
    .map(({ from, to }) => `${from} -> ${to}`);
}

describe('layers (docs/ARCHITECTURE.md)', () => {
  const layers = declaredLayers();
  const { files, imports } = readImports();

  it('reads the imports (the reader finds what it should)', () => {
    expect(files.length).toBeGreaterThan(250);
    expect(imports.length).toBeGreaterThan(1000);
    // a static import, an `import type`, a dynamic import() and a worker named by URL
    expect(imports).toContainEqual({ from: 'main.ts', to: 'store/index.ts' });
    expect(imports).toContainEqual({ from: 'publisher/walrus/load-backend.ts', to: 'publisher/walrus/walrus-backend.ts' });
    expect(imports).toContainEqual({ from: 'threads/front-threads.ts', to: 'threads/front-worker.ts' });
    expect(imports).toContainEqual({ from: 'ops/metrics.ts', to: 'publisher/index.ts' });
  });

  it('gives every file of src/ a declared folder; only the composition root is loose at src/', () => {
    const declared = layerIndex(layers);
    const undeclared = [...new Set(files.map(unitOf))].filter((u) => !declared.has(u));
    expect(undeclared).toEqual([]);
    expect(files.filter((f) => !f.includes('/'))).toEqual(['main.ts']);
    const unused = [...declared.keys()].filter((u) => !files.some((f) => unitOf(f) === u));
    expect(unused).toEqual([]);
  });

  it('has every import point down the declared order', () => {
    expect(layerViolations(imports, layers)).toEqual([]);
  });

  it('has no cycle between folders', () => {
    const cycles = folderCycles(imports);
    expect(cycles.map((c) => ({ cycle: c, imports: edgesWithin(imports, c) }))).toEqual([]);
  });

  it('the checks can fail: an upward import, a sideways one and a cycle are each caught', () => {
    const planted = [
      { from: 'store/index.ts', to: 's3/errors.ts' },
      { from: 's3/router.ts', to: 'publisher/codec.ts' },
    ];
    expect(layerViolations(planted, layers)).toEqual([
      'store/index.ts -> s3/errors.ts (up: store is below s3)',
      's3/router.ts -> publisher/codec.ts (sideways: s3 and publisher share a layer)',
    ]);
    const loop = [
      { from: 'store/a.ts', to: 'store/x/b.ts' },
      { from: 'store/x/b.ts', to: 'store/a.ts' },
    ];
    expect(folderCycles(loop)).toEqual([['store', 'store/x']]);
  });
});
