// Compiles every Solidity source in contracts/ with solc-js (npm `solc`, no download) into
// contracts/build/<Contract>.json ({abi, bytecode}). The build output is committed beside its source so tests
// and `npm run chain:dev` need no compiler at run time; `--check` recompiles and fails when a committed build
// differs from its source (run by `npm test`).
//   npm run contracts          # rewrite contracts/build/
//   npm run contracts -- --check
// Only the project's own contracts are here (solc 0.8, about 5 s for the check). Circle's USDC is not: its sources
// may not be committed, nor its bytecode, so src/testing/circle-usdc-build.ts compiles it at test time with solc
// 0.6.12 into a cache outside git, and src/testing/circle-usdc.test.ts checks its sources' provenance (ms).
import { mkdirSync, readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import solc from 'solc';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'contracts');
const OUT = join(SRC, 'build');

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
}

export function compileContracts(): Map<string, string> {
  const sources: Record<string, { content: string }> = {};
  for (const f of readdirSync(SRC)
    .filter((f) => f.endsWith('.sol'))
    .sort()) {
    sources[f] = { content: readFileSync(join(SRC, f), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: { optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const files = new Map<string, string>();
  for (const [, contracts] of Object.entries(out.contracts ?? {})) {
    for (const [name, c] of Object.entries(contracts)) {
      const json = { contract: name, compiler: `solc ${solc.version()}`, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
      files.set(`${name}.json`, JSON.stringify(json, null, 2) + '\n');
    }
  }
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const files = compileContracts();
  let stale = 0;
  if (!check) mkdirSync(OUT, { recursive: true });
  for (const [name, text] of files) {
    const path = join(OUT, name);
    if (check) {
      if (!existsSync(path) || readFileSync(path, 'utf8') !== text) {
        console.error(`contracts/build/${name} differs from its source: run npm run contracts`);
        stale++;
      }
    } else writeFileSync(path, text);
  }
  if (stale) process.exit(1);
  console.log(`${files.size} contract(s) ${check ? 'match their sources' : 'written to contracts/build/'}`);
}
