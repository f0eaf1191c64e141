// The recovery pool gives what viem gives on the event loop: the signer's address, and an error for a
// signature that is not a point on the curve.
import { afterAll, describe, expect, it } from 'vitest';
import { hashMessage, recoverAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { closeRecoveryThreads, configureRecoveryThreads, recoverSigner } from './recover.js';

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const hash = hashMessage('contest-rfq-service recovery pool');
const notOnCurve = `0x${'ff'.repeat(64)}1b` as const;

afterAll(() => closeRecoveryThreads());

describe.each([
  ['inline', 0],
  ['on 2 worker threads', 2],
])('recoverSigner %s', (_name, threads) => {
  it('recovers the signer, many at once, and refuses a signature off the curve', async () => {
    configureRecoveryThreads(threads);
    const signature = await account.sign({ hash });
    const got = await Promise.all(Array.from({ length: 8 }, () => recoverSigner(hash, signature)));
    expect(new Set(got)).toEqual(new Set([account.address]));
    expect(got[0]).toBe(await recoverAddress({ hash, signature }));
    await expect(recoverSigner(hash, notOnCurve)).rejects.toThrow();
  });
});
