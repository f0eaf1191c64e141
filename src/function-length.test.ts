// No function of src/ or workers/ is longer than 80 lines, counted from its first line to its last (a function
// nested in another counts on its own, and the outer one counts its nested functions' lines too). Tests,
// migrations, src/testing/ and fixtures are exempt. A long transaction script hides its decisions: split it
// into read -> decide (pure, tested on its own) -> write, as src/domain/positions/settle.ts does; a long
// set-up becomes an ordered list of named steps.
//
// ALLOWED lists the functions that were over the limit when the rule reached the whole tree, with their
// length then. The list may only shrink: a listed function may not grow, and an entry whose function is now
// within the limit (or gone) must be deleted, so the list records exactly what is left to split.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 80;
const ROOTS = ['src', 'workers'];
const EXEMPT_DIRS = new Set(['fixtures', 'migrations', 'testing']);

const ALLOWED: Record<string, number> = {
};

type Long = { id: string; lines: number };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return EXEMPT_DIRS.has(e.name) ? [] : sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** `file:name` and line count of every function-like node over MAX_LINES. */
function longFunctions(file: string, text = readFileSync(file, 'utf8')): Long[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: Long[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const last = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES) found.push({ id: `${relative(process.cwd(), file)}:${nameOf(node)}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return found;
}

/** The function's name, or the name it is bound to (a const, a property), or `<anonymous>@line`. */
function nameOf(node: ts.Node): string {
  const named = (node as { name?: ts.Node }).name;
  if (named && ts.isIdentifier(named)) return named.text;
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name)) return parent.name.text;
  const line = node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;
  return `<anonymous>@${line}`;
}

/** What breaks the rule: a long function not allowed, an allowed one that grew, an entry no longer needed. */
function violations(found: Long[], allowed: Record<string, number>): string[] {
  const byId = new Map(found.map((f) => [f.id, f.lines]));
  const fromCode = found.flatMap(({ id, lines }) => {
    const limit = allowed[id];
    if (limit === undefined) return [`${id} (${lines} lines): over ${MAX_LINES} and not on ALLOWED`];
    return lines > limit ? [`${id} (${lines} lines): grew past its ALLOWED ${limit}`] : [];
  });
  const stale = Object.keys(allowed)
    .filter((id) => !byId.has(id))
    .map((id) => `${id}: on ALLOWED but now within ${MAX_LINES} lines or gone; delete the entry`);
  return [...fromCode, ...stale];
}

describe('function length', () => {
  const files = ROOTS.flatMap((r) => sourceFiles(r));
  const offenders = files.flatMap((f) => longFunctions(f));

  it(`no function in ${ROOTS.join(' or ')} is over ${MAX_LINES} lines, but for ALLOWED (which only shrinks)`, () => {
    expect(files.length).toBeGreaterThan(100);
    expect(violations(offenders, ALLOWED)).toEqual([]);
  });

  it('finds a function one line over the limit, and not one at the limit (the check can fail)', () => {
    const fn = (name: string, n: number) => `const ${name} = () => {\n${'  f();\n'.repeat(n - 2)}};\n`;
    const text = `${fn('atLimit', MAX_LINES)}export class C {\n  over() {\n${'    f();\n'.repeat(MAX_LINES - 1)}  }\n}\n`;
    expect(longFunctions('x.ts', text)).toEqual([{ id: 'x.ts:over', lines: MAX_LINES + 1 }]);
  });

  it('fails on a new long function, an allowed one that grew, and an entry no longer needed', () => {
    const found = [
      { id: 'a.ts:fresh', lines: 81 },
      { id: 'a.ts:grew', lines: 91 },
      { id: 'a.ts:same', lines: 90 },
      { id: 'a.ts:shrank', lines: 85 },
    ];
    const allowed = { 'a.ts:grew': 90, 'a.ts:same': 90, 'a.ts:shrank': 95, 'a.ts:split': 120 };
    expect(violations(found, allowed)).toEqual([
      'a.ts:fresh (81 lines): over 80 and not on ALLOWED',
      'a.ts:grew (91 lines): grew past its ALLOWED 90',
      'a.ts:split: on ALLOWED but now within 80 lines or gone; delete the entry',
    ]);
  });
});
