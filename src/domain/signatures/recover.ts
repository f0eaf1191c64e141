// Signature recovery off the event loop. A secp256k1 recovery costs about 1.2 ms of CPU (viem's pure-JS
// curve): two per RFQ fill, one per market-maker handshake. With SIGNATURE_THREADS > 0 they run on a pool
// of worker threads (piscina), so an API process uses more than one core for them and its event loop keeps
// serving requests meanwhile; with 0 (the default below 4 cores, and in-process tests) they run inline.
// Hashing (keccak of the typed data or the message) stays on the caller's thread: it is cheap.
import { Piscina } from 'piscina';
import { recoverAddress, type Address, type Hex } from 'viem';

let pool: Piscina | null = null;

/** Sets the pool's size (0: recover inline). Called once at startup; a later call replaces the pool. */
export function configureRecoveryThreads(threads: number): void {
  void pool?.destroy();
  pool =
    threads > 0
      ? new Piscina({
          filename: new URL('./recover.worker.mjs', import.meta.url).href,
          minThreads: threads,
          maxThreads: threads,
          idleTimeout: 60_000,
        })
      : null;
}

/** The address whose key signed `hash` (throws on a malformed signature, as viem's recoverAddress does). */
export async function recoverSigner(hash: Hex, signature: Hex): Promise<Address> {
  return pool ? ((await pool.run({ hash, signature })) as Address) : recoverAddress({ hash, signature });
}

/** Stops the pool's threads (graceful shutdown). */
export async function closeRecoveryThreads(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.destroy();
}
