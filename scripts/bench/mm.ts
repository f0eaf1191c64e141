// `npm run bench:mm [-- --handshakes 1500 --concurrency 16 --idle 5000]`: market-maker WebSocket costs,
// measured side by side in one run against the real service (PostgreSQL + Redis):
//   1. raw EIP-191 signature checks per second (hash + the service's native recovery, this process);
//   2. authenticated handshakes per second end to end (connect, auth, challenge, sign, verify, session row),
//      after 300 warm-up handshakes, next to the same load against a bare `ws` server doing the challenge
//      and one native recovery (mm-bare-server.ts): the ceiling a handshake is compared with;
//   3. service memory per idle authenticated connection with `--idle` connections open (RSS delta / n).
import { createInterface } from 'node:readline';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { hashMessage } from 'viem';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { recoverSigner } from '../../src/domain/signatures/recover.js';
import { MarketMakerClient, signAuthChallenge, authMessageBytes, DEFAULT_AUTH_DOMAIN } from '@contest-rfq/sdk';
import { boxCpu, boxSnapshot, describePer, type BoxCpu, type BoxSnapshot } from './box-cpu.js';
import { loadAverage, pool, rssKb, startBenchService } from './harness.js';

const { values } = parseArgs({
  options: {
    handshakes: { type: 'string', default: '1500' },
    concurrency: { type: 'string', default: '16' },
    idle: { type: 'string', default: '5000' },
    recoveries: { type: 'string', default: '5000' },
  },
});
const H = Number(values.handshakes);
const C = Number(values.concurrency);
const IDLE = Number(values.idle);
const R = Number(values.recoveries);
const OPERATOR_TOKEN = 'bench-operator-token-0123456789';

/** What mm-clients.ts prints at the end of its timed run. */
interface GenResult {
  handshakes: number;
  seconds: number;
  cpu: number;
  sessionP50Ms: number;
  stopP50Ms: number;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const key = generatePrivateKey();
const account = privateKeyToAccount(key);
const bench = await startBenchService('benchmm', {
  OPERATOR_TOKEN,
  MM_MAX_CONNECTIONS_PER_IP: String(IDLE + C + 10),
  MM_MAX_UNAUTHENTICATED_PER_IP: String(Math.max(C, 50) + 10), // handshakes in flight at once
  HTTP_MAX_CONNECTIONS_PER_IP: '0', // every connection comes from 127.0.0.1
});
const { svc } = bench;
const clients: MarketMakerClient[] = [];
try {
  const base = svc.baseUrl;
  const reg = await fetch(`${base}/v1/admin/market-makers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ wallet_address: account.address, name: 'bench' }),
  });
  if (reg.status !== 201) throw new Error(`registering the market maker: ${reg.status} ${await reg.text()}`);
  const url = base.replace('http', 'ws') + '/v1/ws';

  // 1. Raw recoveries.
  const nonce = randomBytes(32).toString('hex');
  const ts = Math.floor(Date.now() / 1000);
  const signature = await signAuthChallenge(account, DEFAULT_AUTH_DOMAIN, nonce, ts);
  const raw = authMessageBytes(DEFAULT_AUTH_DOMAIN, nonce, ts);
  for (let i = 0; i < 200; i++) recoverSigner(hashMessage({ raw }), signature); // warm-up
  let t = performance.now();
  for (let i = 0; i < R; i++) recoverSigner(hashMessage({ raw }), signature);
  const recoveriesPerSec = R / ((performance.now() - t) / 1000);

  // 2. Handshakes end to end (each on a fresh connection, closed afterwards), from a load generator in a
  // process of its own (mm-clients.ts): the clients' signing does not run on this process's clock. Every
  // process's CPU is read from /proc between the end of its warm-up and its result (box-cpu.ts, as bench:rfq).
  const generate = async (target: string, server: Record<string, number>) => {
    const gen = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/mm-clients.ts', target, key, String(H), String(C)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let box0: BoxSnapshot | undefined;
    let result: GenResult | undefined;
    let box: BoxCpu | undefined;
    createInterface({ input: gen.stdout }).on('line', (line) => {
      const msg = JSON.parse(line) as { warm?: true } & GenResult;
      if (msg.warm) box0 = boxSnapshot();
      else if (box0) {
        box = boxCpu(box0, boxSnapshot(), { ...server, 'load generator': gen.pid! });
        result = msg;
      }
    });
    const code = await new Promise<number | null>((resolve) => gen.once('close', resolve));
    if (code !== 0 || !result || !box) throw new Error(`the load generator exited (${code}) without a result`);
    return { ...result, box, load: loadAverage() };
  };
  const gen = await generate(url, { service: svc.proc.pid! });
  const handshakesPerSec = gen.handshakes / gen.seconds;
  // The same load against the bare server (its own process, as the service is).
  const bare = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/mm-bare-server.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let b: Awaited<ReturnType<typeof generate>>;
  try {
    const port = await new Promise<number>((resolve, reject) => {
      bare.stdout.once('data', (d: Buffer) => resolve((JSON.parse(String(d).trim().split('\n')[0]!) as { port: number }).port));
      bare.once('exit', (code) => reject(new Error(`the bare server exited (${code})`)));
    });
    b = await generate(`ws://127.0.0.1:${port}/v1/ws`, { 'bare server': bare.pid! });
  } finally {
    bare.kill();
  }
  const barePerSec = b.handshakes / b.seconds;

  // 3. Idle authenticated connections.
  await sleep(2000);
  const before = rssKb(svc.proc.pid!);
  t = performance.now();
  await pool(IDLE, 50, async () => {
    const c = new MarketMakerClient({ url, account, reconnect: false, log: () => undefined }).start();
    clients.push(c);
    await c.waitForSession(60_000);
  });
  const openSecs = (performance.now() - t) / 1000;
  await sleep(5000);
  const after = rssKb(svc.proc.pid!);
  const perConnKb = (after - before) / IDLE;

  console.log(
    JSON.stringify({
      at: new Date().toISOString(),
      cores: availableParallelism(),
      recoveries: R,
      handshakes: H,
      concurrency: C,
      idle_connections: IDLE,
    }),
  );
  console.log(`raw signature checks     : ${recoveriesPerSec.toFixed(0)}/s (EIP-191 hash + native recovery, this process)`);
  console.log(
    `authenticated handshakes : ${handshakesPerSec.toFixed(0)}/s end to end (concurrency ${C}; clients signing in their own process, ${((100 * gen.cpu) / gen.seconds).toFixed(0)}% of a core)`,
  );
  console.log(`  service run, load average ${gen.load}; ${describePer(gen.box, gen.handshakes, 'handshake')}`);
  console.log(`bare ws server           : ${barePerSec.toFixed(0)}/s (challenge + one native recovery, no database; same load generator)`);
  console.log(`  bare run, load average ${b.load}; ${describePer(b.box, b.handshakes, 'handshake')}`);
  console.log(`handshakes / bare server : ${(handshakesPerSec / barePerSec).toFixed(2)} (goal >= 0.5)`);
  console.log(
    `per handshake (client)   : connect -> session p50 ${gen.sessionP50Ms.toFixed(1)} ms, stop -> closed p50 ${gen.stopP50Ms.toFixed(1)} ms`,
  );
  console.log(`ratio                    : a handshake costs ${(recoveriesPerSec / handshakesPerSec).toFixed(1)}x a raw recovery`);
  console.log(
    `idle authenticated conns : ${IDLE} opened in ${openSecs.toFixed(1)} s; service RSS ${(before / 1024).toFixed(0)} -> ${(after / 1024).toFixed(0)} MiB = ${perConnKb.toFixed(1)} KiB per connection`,
  );
} finally {
  await Promise.all(clients.map((c) => c.stop().catch(() => undefined)));
  await bench.stop();
}
