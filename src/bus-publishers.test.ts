// Only the orchestration layer (src/trading/) publishes on the bus (docs/architecture.md): the HTTP handlers,
// the WebSocket gateway, the service's set-up and the workers call a lifecycle's step (rfq-lifecycle.ts,
// money-lifecycle.ts, contest-lifecycle.ts, identity-lifecycle.ts), which publishes after the commit. This test
// reads every source file of src/ and workers/ outside src/trading/ and fails on a use of a `publish` member
// (`bus.publish(...)`, `deps.bus.publish`, `bus['publish']`) or an import of a `publish...` helper (the topic
// helpers in src/bus/, the lifecycles' publishRfqEvents / publishMoneyEvents). Aside: tests, src/bus/ itself
// (the bus and its topic helpers) and src/testing/ (test support: a second bus process for the bus's tests).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOTS = ['src', 'workers'];
const ASIDE = ['src/trading/', 'src/bus/', 'src/testing/'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const aside = (file: string) => ASIDE.some((a) => relative(process.cwd(), file).split(sep).join('/').startsWith(a));

/** `file:line what` of every publish in `text`. */
export function publishesIn(file: string, text = readFileSync(file, 'utf8')): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(`${relative(process.cwd(), file)}:${src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1} ${what}`);
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'publish') at(node, node.getText(src));
    if (
      ts.isElementAccessExpression(node) &&
      ts.isStringLiteralLike(node.argumentExpression) &&
      node.argumentExpression.text === 'publish'
    ) {
      at(node, node.getText(src));
    }
    if (ts.isBindingElement(node) && (node.propertyName ?? node.name).getText(src) === 'publish')
      at(node, `{ ${node.getText(src)} } = ...`);
    if (ts.isImportSpecifier(node) && /^publish[A-Z]/.test((node.propertyName ?? node.name).text)) at(node, `import ${node.getText(src)}`);
    ts.forEachChild(node, visit);
  };
  visit(src);
  return found;
}

describe('bus publishers', () => {
  const files = ROOTS.flatMap((r) => sourceFiles(r)).filter((f) => !aside(f));
  // Only a file that names `publish` at all can publish: the others are not parsed.
  const offenders = files.flatMap((f) => {
    const text = readFileSync(f, 'utf8');
    return text.includes('publish') ? publishesIn(f, text) : [];
  });

  it('no file outside src/trading/ publishes on the bus (tests, src/bus/ and src/testing/ aside)', () => {
    expect(files.length).toBeGreaterThan(100); // the walk found the sources
    expect(offenders).toEqual([]);
  });

  it('finds each way to publish (the check can fail), and not a mere subscription', () => {
    const text = [
      "import { publishContestsChanged, onContestsChanged } from '../bus/contest-events.js';",
      "import { publishRfqEvents as send } from '../trading/rfq-events.js';",
      "void deps.bus.publish('mm.removed', {});",
      "void bus['publish']('user.events', {});",
      'const { publish } = bus;',
      "bus.subscribe('contests.changed', () => undefined);",
    ].join('\n');
    expect(publishesIn('x.ts', text)).toEqual([
      'x.ts:1 import publishContestsChanged',
      'x.ts:2 import publishRfqEvents as send',
      'x.ts:3 deps.bus.publish',
      "x.ts:4 bus['publish']",
      'x.ts:5 { publish } = ...',
    ]);
  });
});
