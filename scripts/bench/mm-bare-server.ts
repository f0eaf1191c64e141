// The handshake ceiling of `bench:mm`: a bare `ws` server (no express, no database, no session row) that
// speaks the service's handshake (auth -> auth_challenge -> auth_response -> auth_result) and does the same
// cryptographic work: one 32-byte random nonce, the 75-byte message, its EIP-191 hash and ONE native
// recovery (src/domain/signatures/recover.ts). Run as its own process: `tsx scripts/bench/mm-bare-server.ts`
// prints `{"port": N}` and serves until killed.
import { randomBytes } from 'node:crypto';
import { hashMessage } from 'viem';
import { WebSocketServer } from 'ws';
import { authMessageBytes, DEFAULT_AUTH_DOMAIN } from '@contest-rfq/sdk';
import { normalizeSignature, recoverSigner } from '../../src/domain/signatures/recover.js';

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', path: '/v1/ws' });
wss.on('connection', (ws) => {
  let challenge: { nonce: string; timestamp: number } | null = null;
  ws.on('message', (data) => {
    const f = JSON.parse(String(data)) as { type?: string; wallet_address?: string; signature?: string };
    if (f.type === 'auth') {
      challenge = { nonce: randomBytes(32).toString('hex'), timestamp: Math.floor(Date.now() / 1000) };
      ws.send(JSON.stringify({ type: 'auth_challenge', ...challenge }));
    } else if (f.type === 'auth_response' && challenge) {
      const sig = normalizeSignature(f.signature);
      const digest = hashMessage({ raw: authMessageBytes(DEFAULT_AUTH_DOMAIN, challenge.nonce, challenge.timestamp) });
      const ok = sig !== null && recoverSigner(digest, sig).toLowerCase() === String(f.wallet_address).toLowerCase();
      challenge = null;
      ws.send(
        JSON.stringify(
          ok
            ? { type: 'auth_result', success: true, session_token: randomBytes(16).toString('hex'), expires_at: Date.now() + 3_600_000 }
            : { type: 'auth_result', success: false, error: 'invalid_signature' },
        ),
      );
    }
  });
});
wss.on('listening', () => {
  const addr = wss.address();
  console.log(JSON.stringify({ port: addr && typeof addr === 'object' ? addr.port : 0 }));
});
