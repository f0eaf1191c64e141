// Runs in a worker thread of the recovery pool (src/domain/signatures/recover.ts): one secp256k1 public-key
// recovery (about 1.2 ms of CPU with viem's pure-JS curve). Plain JavaScript so that any process can load
// it, with or without a TypeScript loader (the service, vitest, the benches).
import { recoverAddress } from 'viem';

/** @param {{ hash: `0x${string}`, signature: `0x${string}` }} task */
export default function recover(task) {
  return recoverAddress(task);
}
