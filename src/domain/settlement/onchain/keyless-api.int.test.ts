// Keys out of the API (issue 34 item 6; docs/operations.md, "Keys and the signer"): the API process runs with
// SETTLEMENT_ADDRESS and DEPOSIT_XPUB only (neither SETTLEMENT_PRIVATE_KEY nor DEPOSIT_MNEMONIC). The workers hold
// the mnemonic (the listener and the sweeps) and sign through SETTLEMENT_SIGNER_URL, a second anvil holding the
// settlement wallet's key; no process of the service is given that key. Through the keyless API: a custodial
// deposit to the address it derived from the xpub is credited and swept, a pull deposit and a withdrawal are paid
// exactly once, and an RFQ is filled by a maker quoting over the WebSocket; the books and the reconciliation are
// clean after each. Workers without a key or signer, or with the xpub but not the mnemonic, and a production API
// given the keys, refuse to start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositXpubOf } from '../../../config/deposit-xpub.js';
import { startAnvil, type Anvil } from '../../../testing/anvil.js';
import { TEST_DEPOSIT_MNEMONIC } from '../../../testing/chain.js';
import { available, depositAddressOf, sweepsIdle, unresolvedSweepTransactions, until } from '../../../testing/custodial.js';
import { startOnchainStack, type OnchainStack } from '../../../testing/onchain-stack.js';
import {
  buildOrder,
  connectMaker,
  currentMarketId,
  fetchDomain,
  fundWallet,
  postOrder,
  registerMarketMaker,
} from '../../../testing/rfq-trade.js';
import { startServiceProcess } from '../../../testing/service-process.js';
import { depositKeyring } from '../../../adapters/chain/chain.js';

const OPERATOR_TOKEN = 'keyless-operator-token';
const SIWE_DOMAIN = 'keyless.test';
let s: OnchainStack;
let signer: Anvil;
beforeAll(async () => {
  signer = await startAnvil({});
  s = await startOnchainStack({
    label: 'keyless',
    deployment: 'redis',
    noWorkers: true,
    chain: { settlementUsdcMicros: 0n },
    env: { OPERATOR_TOKEN, SIWE_DOMAIN, CHAIN_DEPOSIT_SCAN_EVERY_MS: '200', DEPOSIT_SWEEP_MIN_MICROS: '1000000' },
    // Empty is unset (src/config/parse.ts): the API and ledger:check get the addresses (the settlement wallet's, and
    // the deposit addresses' extended public key), not the key or the mnemonic.
    chainEnv: async (chain) => ({
      SETTLEMENT_PRIVATE_KEY: '',
      DEPOSIT_MNEMONIC: '',
      SETTLEMENT_ADDRESS: chain.settlement.address,
      DEPOSIT_XPUB: depositXpubOf(TEST_DEPOSIT_MNEMONIC, 0),
    }),
  });
  await s.startWorkers({ SETTLEMENT_SIGNER_URL: signer.url, DEPOSIT_MNEMONIC: TEST_DEPOSIT_MNEMONIC });
}, 240_000);
afterAll(async () => {
  await s?.stop();
  await signer?.stop();
});

const ledgerClean = async () => {
  const check = await s.ledgerCheck();
  expect(check.code, check.output).toBe(0);
  expect(check.onchain).toMatchObject({ deficit: false });
};

describe('an API process without the keys', () => {
  it('is given neither secret', () => {
    expect(s.env.SETTLEMENT_PRIVATE_KEY).toBe('');
    expect(s.env.DEPOSIT_MNEMONIC).toBe('');
    expect(s.env.SETTLEMENT_PRIVATE_KEY_FILE ?? '').toBe('');
    expect(s.env.DEPOSIT_MNEMONIC_FILE ?? '').toBe('');
  });

  it("hands out the mnemonic's custodial address from the xpub; a transfer to it is credited once and swept by the workers", async () => {
    const u = await s.newUser();
    const address = await depositAddressOf(s, u);
    const { rows } = await s.sql.query(`select deposit_index::text as i from deposit_addresses where user_id = $1`, [u.userId]);
    expect(address).toBe(depositKeyring(TEST_DEPOSIT_MNEMONIC, 0)(BigInt(rows[0].i as string)).address);
    const sender = await s.chain.newWallet(10_000_000n);
    await s.chain.transfer(sender, address, 4_000_000n);
    await until(s, 'the custodial deposit to be credited', async () => (await available(s, u)) === 4_000_000n, { mine: true });
    // The sweep: the settlement wallet's gas top-up signed by the external signer, the transfer by the address's key.
    await until(s, 'the sweep to finish', () => sweepsIdle(s), { mine: true, timeoutMs: 90_000 });
    expect(await unresolvedSweepTransactions(s)).toBe(0);
    expect(await s.chain.balanceOf(address)).toBe(0n);
    const { rows: credited } = await s.sql.query(`select count(*)::int as n from chain_deposits where to_address = $1`, [address]);
    expect(credited[0].n).toBe(1);
    expect(await available(s, u)).toBe(4_000_000n);
    await ledgerClean();
  }, 180_000);

  it('takes a pull deposit and a withdrawal, signed by the external signer and paid exactly once', async () => {
    const user = await s.fundedUser(3_000_000n);
    const w = await s.withdraw(user, 1_000_000);
    expect([200, 202]).toContain(w.status);
    expect(await s.paidOnceProblems(user, w.id, w.to, 1_000_000)).toEqual([]);
    const sent = await s.sentRows(w.id);
    expect(sent).toHaveLength(1);
    await ledgerClean();
  }, 240_000);

  it('trades: an RFQ of a funded taker is filled by a maker quoting over the WebSocket', async () => {
    const api = s.apis[0]!.baseUrl;
    const domain = await fetchDomain(api);
    const { marketId } = await currentMarketId(api, 'BTC', 86400);
    const makerWallet = await s.chain.newWallet(5_000_000n);
    await registerMarketMaker(api, OPERATOR_TOKEN, makerWallet);
    const makerParty = await fundWallet(api, makerWallet, SIWE_DOMAIN, 0);
    await s.pullDeposit(makerParty, 5_000_000n);
    const maker = await connectMaker(api, makerWallet, domain);
    try {
      await maker.subscribe();
      maker.autoQuote((f: { stake_micros: number }) => ({ odds_bps: 20_000, max_fill_micros: Number(f.stake_micros) }));
      const taker = await s.fundedUser(2_000_000n);
      const order = buildOrder(taker.wallet.address, [{ market_id: marketId, direction: 'up' }], { stake_micros: 1_000_000 });
      const res = await postOrder(api, taker, domain, order);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ status: 'filled', odds_bps: 20_000 });
      // The stake left the taker's available balance; the maker's risk left the maker's.
      expect(await available(s, taker)).toBe(1_000_000n);
      expect(await available(s, makerParty)).toBe(4_000_000n);
    } finally {
      maker.close();
    }
    expect(await s.ledgerProblems()).toEqual([]);
    await ledgerClean();
  }, 120_000);

  it('workers without a key or a signer, or with the xpub but not the mnemonic, refuse to start, naming what is missing', async () => {
    const failed = (extra?: Record<string, string>) =>
      s.startWorkers(extra).then(
        () => undefined,
        (err: Error) => err.message,
      );
    expect(await failed()).toMatch(/SETTLEMENT_PRIVATE_KEY \(or SETTLEMENT_PRIVATE_KEY_FILE\) or SETTLEMENT_SIGNER_URL: workers sign/);
    expect(await failed({ SETTLEMENT_SIGNER_URL: signer.url })).toMatch(
      /DEPOSIT_MNEMONIC \(or DEPOSIT_MNEMONIC_FILE\): workers given DEPOSIT_XPUB need it/,
    );
  }, 120_000);

  it('in production an API process given the settlement key or the mnemonic refuses to start (exit 78), naming both', async () => {
    const refused = await startServiceProcess({
      env: {
        ...s.env,
        NODE_ENV: 'production',
        SETTLEMENT_PRIVATE_KEY: s.chain.env.SETTLEMENT_PRIVATE_KEY!,
        DEPOSIT_MNEMONIC: TEST_DEPOSIT_MNEMONIC,
      },
      args: ['--role=api'],
    }).then(
      async (p) => {
        await p.stop('SIGKILL');
        return 'started';
      },
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/process exited \(78\)/);
    expect(refused).toMatch(
      /SETTLEMENT_PRIVATE_KEY \(or SETTLEMENT_PRIVATE_KEY_FILE\): refused in an API process when NODE_ENV=production/,
    );
    expect(refused).toMatch(/DEPOSIT_MNEMONIC \(or DEPOSIT_MNEMONIC_FILE\): refused in an API process when NODE_ENV=production/);
  }, 60_000);
});
