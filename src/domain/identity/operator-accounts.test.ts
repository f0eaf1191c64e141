import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OperatorAccounts } from './operator-accounts.js';
import { hashToken } from './sessions.js';

const hex = (token: string) => hashToken(token).toString('hex');

describe('OperatorAccounts', () => {
  it('OPERATOR_TOKEN is `default`; the file adds named accounts; anything else matches nothing', () => {
    const accounts = new OperatorAccounts({
      token: 'the-default-operator-token',
      file: { file: '/unused', accounts: [{ name: 'alice', sha256: hex('alice-token-0123456789') }], reloadMs: 1000 },
    });
    expect(accounts.match(hashToken('the-default-operator-token'))).toBe('default');
    expect(accounts.match(hashToken('alice-token-0123456789'))).toBe('alice');
    expect(accounts.match(hashToken('someone-else-0123456789'))).toBeNull();
    expect(accounts.names()).toEqual(['default', 'alice']);
    expect(accounts.disabled).toBe(false);
    expect(new OperatorAccounts({ token: undefined }).disabled).toBe(true);
    expect(new OperatorAccounts({ token: undefined, file: { file: '/x', accounts: [], reloadMs: 1000 } }).disabled).toBe(false); // on, with no account
  });

  it('reload() applies a changed file, and keeps the accounts in force when the file is bad or gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'opaccounts-'));
    const file = join(dir, 'operators');
    try {
      writeFileSync(file, `alice ${hex('alice-token-0123456789')}\n`);
      const accounts = new OperatorAccounts({
        token: undefined,
        file: { file, accounts: [{ name: 'alice', sha256: hex('alice-token-0123456789') }], reloadMs: 1000 },
      });
      writeFileSync(file, `bob ${hex('bob-token-0123456789')}\n`);
      await accounts.reload();
      expect(accounts.names()).toEqual(['bob']);
      expect(accounts.match(hashToken('alice-token-0123456789'))).toBeNull();
      writeFileSync(file, `carol carols-token-pasted-instead-of-its-hash\n`);
      await accounts.reload();
      expect(accounts.names()).toEqual(['bob']);
      rmSync(file);
      await accounts.reload();
      expect(accounts.match(hashToken('bob-token-0123456789'))).toBe('bob');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
