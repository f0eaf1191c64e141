// Node refusals of a broadcast, classified from the texts geth, op-geth and anvil answer (refusals.ts).
import { describe, expect, it } from 'vitest';
import { classifyRefusal, refusalLogLevel } from './refusals.js';

const rpc = (message: string, details = message) => Object.assign(new Error(message), { shortMessage: message, details });

describe('classifyRefusal', () => {
  it.each([
    ['already known', 'already_known'],
    ['nonce too low: next nonce 8, tx nonce 7', 'nonce_too_low'],
    ['replacement transaction underpriced', 'underpriced'],
    ['transaction underpriced: tip needed 1, tip permitted 0', 'underpriced'],
    ['max fee per gas less than block base fee: address 0xab, maxFeePerGas: 1 baseFee: 7', 'underpriced'],
    ['insufficient funds for gas * price + value: balance 0, tx cost 3000000', 'insufficient_funds'],
    ['intrinsic gas too low', 'other'],
    // Re-sending an already-mined transaction after a restart, as geth, Erigon, Nethermind and anvil answer it.
    ['ALREADY_EXISTS: already known', 'already_known'],
    ['transaction already imported', 'already_known'],
    ['Known transaction', 'already_known'],
    ['OldNonce, Current nonce: 8, nonce of rejected tx: 7', 'nonce_too_low'],
    ['nonce has already been used', 'nonce_too_low'],
  ])('%s → %s', (message, kind) => {
    expect(classifyRefusal(rpc(message))).toBe(kind);
  });

  it('a transport failure is not a refusal: undefined, so the caller retries', () => {
    expect(classifyRefusal(rpc('HTTP request failed.', 'fetch failed'))).toBeUndefined();
    expect(classifyRefusal(rpc('The request took too long to respond.', 'timed out'))).toBeUndefined();
  });
});

describe('refusalLogLevel', () => {
  it('a re-sent transaction the node already holds or mined is info, never a warning; an unknown refusal is an error', () => {
    for (const message of ['already known', 'nonce too low: next nonce 8, tx nonce 7', 'OldNonce']) {
      expect(refusalLogLevel(classifyRefusal(rpc(message))!)).toBe('info');
    }
    expect(refusalLogLevel('underpriced')).toBe('info');
    expect(refusalLogLevel('insufficient_funds')).toBe('info');
    expect(refusalLogLevel('other')).toBe('error');
  });
});
