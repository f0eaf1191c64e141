// No function of src/ or workers/ is longer than 80 lines, counted from its first line to its last (a function
// nested in another counts on its own, and the outer one counts its nested functions' lines too). Tests,
// migrations, src/testing/ and fixtures are exempt. A long transaction script hides its decisions: split it
// into read -> decide (pure, tested on its own) -> write, as src/domain/positions/settle.ts does; a long
// set-up becomes an ordered list of named steps (src/http/app.ts, src/service.ts). No exceptions.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 80;
const ROOTS = ['src', 'workers'];
const EXEMPT_DIRS = new Set(['fixtures', 'migrations', 'testing']);

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

describe('function length', () => {
  const files = ROOTS.flatMap((r) => sourceFiles(r));
  const offenders = files.flatMap((f) => longFunctions(f));

  it(`no function in ${ROOTS.join(' or ')} is over ${MAX_LINES} lines`, () => {
    expect(files.length).toBeGreaterThan(100);
    expect(offenders.map((o) => `${o.id} (${o.lines} lines)`)).toEqual([]);
  });

  it('finds a function one line over the limit, and not one at the limit (the check can fail)', () => {
    const fn = (name: string, n: number) => `const ${name} = () => {\n${'  f();\n'.repeat(n - 2)}};\n`;
    const text = `${fn('atLimit', MAX_LINES)}export class C {\n  over() {\n${'    f();\n'.repeat(MAX_LINES - 1)}  }\n}\n`;
    expect(longFunctions('x.ts', text)).toEqual([{ id: 'x.ts:over', lines: MAX_LINES + 1 }]);
  });
});
