// The load generator of `bench:mm` item 2, run as its own process (so that its signing does not share a
// core's time slices with the figure measured): `tsx scripts/bench/mm-clients.ts <ws url> <private key>
// <handshakes> <concurrency>` opens that many authenticated connections, `concurrency` at a time (each
// closed once its session is up), after a warm-up. It prints `{"warm": true}` when the warm-up is done and
// the timed run starts (bench:mm snapshots every process's CPU there), then one JSON line: {handshakes, seconds, cpu}.
import { MarketMakerClient } from '@contest-rfq/sdk';
import { privateKeyToAccount } from 'viem/accounts';
import { pool } from './harness.js';

const [url, key, h, c] = process.argv.slice(2);
const account = privateKeyToAccount(key as `0x${string}`);
const H = Number(h);
const C = Number(c);

const toSession: number[] = [];
const toStopped: number[] = [];
const handshake = async () => {
  const t0 = performance.now();
  const client = new MarketMakerClient({ url: url!, account, reconnect: false, log: () => undefined }).start();
  await client.waitForSession(30_000);
  const t1 = performance.now();
  await client.stop();
  toSession.push(t1 - t0);
  toStopped.push(performance.now() - t1);
};
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
await pool(Math.min(300, H), C, handshake); // warm-up: the server JIT-compiles its handshake path and the curve code
toSession.length = 0;
toStopped.length = 0;
console.log(JSON.stringify({ warm: true }));
const cpu0 = process.cpuUsage();
const t = performance.now();
await pool(H, C, handshake);
const seconds = (performance.now() - t) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({ handshakes: H, seconds, cpu: (cpu.user + cpu.system) / 1e6, sessionP50Ms: p50(toSession), stopP50Ms: p50(toStopped) }),
);
