// The walkthroughs cannot rot: the blocks between `<!-- walkthrough:NAME -->` and `<!-- /walkthrough -->`
// in README.md or docs/*.md (docs/getting-started.md today) run here with bash, as written (localhost:3000
// pointed at the test service), against the embedded deployment a newcomer gets from `npm start`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from './testing/service-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
let dataDir: string;
let svc: ServiceProcess;

/** The Markdown files that may hold walkthroughs: README.md and docs/*.md. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
  return ['README.md', ...docs.map((f) => join('docs', f))];
}

/** name -> shell text of each marked block; a name written twice is an error, not a silent overwrite. */
function walkthroughs(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const file of markdownFiles()) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/<!-- walkthrough:([a-z-]+)[^>]*-->\n```sh\n([\s\S]*?)```\n<!-- \/walkthrough -->/g)) {
      if (out[m[1]!] !== undefined) throw new Error(`walkthrough ${m[1]} is written twice (again in ${file})`);
      out[m[1]!] = m[2]!;
    }
  }
  return out;
}

function bash(script: string) {
  const pointed = script.replaceAll('localhost:3000', `127.0.0.1:${svc.port}`).replaceAll('.data/', `${dataDir}/`);
  return spawnSync('bash', ['-euo', 'pipefail', '-c', pointed], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'crfq-readme-'));
  svc = await startServiceProcess({ env: { NODE_ENV: 'development', DATA_DIR: dataDir } });
});
afterAll(async () => {
  await svc?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('documentation walkthroughs', () => {
  const blocks = walkthroughs();

  it('the docs mark the session, operator, money and trade walkthroughs', () => {
    // The client-generation command lives in docs/generate-a-client.md, run by its own test.
    for (const name of ['money', 'operator', 'session', 'trade']) expect(Object.keys(blocks)).toContain(name);
  });

  it('the development operator token of a fresh embedded start registers a market maker', () => {
    const run = bash(blocks.operator!);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('"wallet_address":"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"');
  });

  it('session, then deposit and withdraw (replayed once, settled, balance down by the withdrawal)', () => {
    const run = bash(`${blocks.session}\n${blocks.money}`);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/"x_handle"|"user_id"/); // the preferences of the session's user
    expect(run.stdout).toMatch(/^idempotent-replayed: true/im);
    expect(run.stdout).toContain('"kind":"withdraw","status":"success"');
    expect(run.stdout.trimEnd().endsWith('{"available_micros":"6000000"}')).toBe(true); // curl prints no newline
  });

  it('a fresh start trades: the demo maker fills the example taker, and the position is listed', () => {
    const run = bash(blocks.trade!);
    expect(run.status, run.stderr + run.stdout).toBe(0);
    const filled = /^filled 1000000 of 1000000 micros at 1\.9x: pays 1900000 micros if it wins \(position ([0-9a-f-]{36})\)$/m.exec(
      run.stdout,
    );
    expect(filled, run.stdout).not.toBeNull();
    // The last two lines: the positions answer, then the portfolio (curl prints no newline between them).
    const tail = run.stdout.slice(run.stdout.lastIndexOf('\n') + 1);
    const positions = JSON.parse(tail.slice(0, tail.indexOf('}{') + 1)) as {
      positions: { position_id: string; status: string; stake_micros: string }[];
    };
    expect(positions.positions).toEqual([expect.objectContaining({ position_id: filled![1], status: 'open', stake_micros: '1000000' })]);
    expect(JSON.parse(tail.slice(tail.indexOf('}{') + 1))).toMatchObject({ open_positions: 1 });
  });
});
