// Node refusals of a broadcast, classified from the texts geth, op-geth and anvil answer (refusals.ts).
import { describe, expect, it } from 'vitest';
import { classifyRefusal } from './refusals.js';

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
  ])('%s → %s', (message, kind) => {
    expect(classifyRefusal(rpc(message))).toBe(kind);
  });

  it('a transport failure is not a refusal: undefined, so the caller retries', () => {
    expect(classifyRefusal(rpc('HTTP request failed.', 'fetch failed'))).toBeUndefined();
    expect(classifyRefusal(rpc('The request took too long to respond.', 'timed out'))).toBeUndefined();
  });
});
