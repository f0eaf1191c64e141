// The URL scrubber: no user info, path, query string or fragment survives, in a URL or in text around it.
import { describe, expect, it } from 'vitest';
import { redactUrl, redactUrls } from './redact-url.js';

describe('redactUrl', () => {
  it('keeps the scheme and host only', () => {
    expect(redactUrl('https://base-mainnet.g.alchemy.com/v2/AbCdEf123')).toBe('https://base-mainnet.g.alchemy.com/…');
    expect(redactUrl('https://user:s3cret@rpc.example.com:8545')).toBe('https://rpc.example.com:8545');
    expect(redactUrl('https://hermes.example/v2/updates/price/1?ids[]=0xab&ACCESS_TOKEN=tok')).toBe('https://hermes.example/…');
    expect(redactUrl('wss://mainnet.infura.io/ws/v3/0123456789abcdef')).toBe('wss://mainnet.infura.io/…');
    expect(redactUrl('http://127.0.0.1:9')).toBe('http://127.0.0.1:9');
    expect(redactUrl('https://api.binance.com/')).toBe('https://api.binance.com');
  });

  it('scrubs every URL inside a message and leaves the rest', () => {
    const viem = 'HTTP request failed.\n\nURL: https://user:pw@eth.example.com/v2/KEY123?x=1\nRequest body: {"method":"eth_call"}';
    const out = redactUrls(viem);
    expect(out).toBe('HTTP request failed.\n\nURL: https://eth.example.com/…\nRequest body: {"method":"eth_call"}');
    for (const secret of ['pw', 'KEY123', 'x=1']) expect(out).not.toContain(secret);
    expect(redactUrls('fetch failed (connect ECONNREFUSED 127.0.0.1:9)')).toBe('fetch failed (connect ECONNREFUSED 127.0.0.1:9)');
    expect(redactUrls("see 'https://www.binance.com/en/terms'.")).toBe("see 'https://www.binance.com/…'.");
  });
});
