// WITHDRAWAL_DENYLIST_FILE re-read while running (docs/operations.md, "Custody"): a change takes effect without a
// restart; a bad or missing file is refused (logged) and the list in force stays.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Denylist } from './denylist.js';

const A = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const B = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'denylist-')), 'denylist');
  writeFileSync(path, text);
  return path;
};

describe('Denylist', () => {
  it('re-read while running: a change takes effect; a bad or missing file is refused and the list in force stays', async () => {
    const path = file(`${A}\n`);
    const errors: unknown[] = [];
    const log = { info: () => undefined, error: (o: unknown) => void errors.push(o) };
    const list = new Denylist({ file: path, addresses: [A.toLowerCase()], reloadMs: 1000 }, log as never);
    expect([list.has(A), list.has(B)]).toEqual([true, false]);
    writeFileSync(path, `${A}\n${B}\n`);
    await list.reload();
    expect([list.has(A), list.has(B.toUpperCase().replace('0X', '0x'))]).toEqual([true, true]);
    writeFileSync(path, `${B}\nhalf-written`);
    await list.reload();
    expect([list.has(A), list.has(B), errors.length]).toEqual([true, true, 1]);
    writeFileSync(path, `${B}\n`);
    await list.reload();
    expect([list.has(A), list.has(B), list.size]).toEqual([false, true, 1]);
  });
});
