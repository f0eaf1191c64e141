// `npm run generate`: writes generated/ from spec/ (never edit generated/ by hand).
//   generated/openapi/   partner SDK, types and zod schemas (@hey-api/openapi-ts)
//   generated/asyncapi/  message types and compiled validators (scripts/asyncapi/generate.ts)
//   generated/openapi/operations.gen.ts  request parts and responses per operationId (scripts/generate-operations.ts)
//   generated/sdk/       the HTTP client of the SDK package (sdk/): same client without zod, so the package's
//                        only runtime dependencies are viem and ws
// `npm run generate -- --check` generates into a temporary folder and fails when generated/ differs.
// `--spec DIR --out DIR` read another spec/ folder and write another generated/ folder (the drift probe).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, existsSync, cpSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';
import { generateAsyncApi } from './asyncapi/generate.js';
import { generateOperations } from './generate-operations.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
const option = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? resolve(process.argv[i + 1] ?? '') : undefined;
};
const specDir = option('--spec') ?? join(root, 'spec');

async function generateOpenApi(outDir: string): Promise<void> {
  await createClient({
    input: join(specDir, 'openapi.yaml'),
    output: { path: outDir, module: { extension: '.ts' }, clean: true },
    logs: { level: 'silent', file: false },
    plugins: [
      '@hey-api/client-fetch',
      '@hey-api/typescript',
      'zod',
      // Responses are checked with zod; requests are validated by the service (the zod plugin cannot express
      // binary image bodies, so client-side request validation would refuse every image upload).
      { name: '@hey-api/sdk', validator: { request: false, response: 'zod' } },
      '@hey-api/schemas',
    ],
  } as never);
}

// The partner client shipped in @contest-rfq/sdk: typed functions per operation, no response validation
// (no zod dependency, and a value the service adds to an enum later does not break old clients).
async function generateSdkClient(outDir: string): Promise<void> {
  await createClient({
    input: join(specDir, 'openapi.yaml'),
    output: { path: outDir, module: { extension: '.ts' }, clean: true },
    logs: { level: 'silent', file: false },
    plugins: ['@hey-api/client-fetch', '@hey-api/typescript', '@hey-api/sdk'],
  } as never);
}

async function generateAll(outDir: string): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  await generateOpenApi(join(outDir, 'openapi'));
  await generateSdkClient(join(outDir, 'sdk'));
  await generateOperations(join(specDir, 'openapi.yaml'), join(outDir, 'openapi'));
  await generateAsyncApi(join(outDir, 'asyncapi'), join(specDir, 'asyncapi.yaml'));
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

const target = option('--out') ?? join(root, 'generated');
const scratch = mkdtempSync(join(tmpdir(), 'crfq-generate-'));
try {
  await generateAll(scratch);
  if (check) {
    const want = listFiles(scratch);
    const have = listFiles(target);
    const problems: string[] = [];
    for (const f of want) {
      if (!have.includes(f)) problems.push(`missing: generated/${f}`);
      else if (!readFileSync(join(scratch, f)).equals(readFileSync(join(target, f)))) problems.push(`stale:   generated/${f}`);
    }
    for (const f of have) if (!want.includes(f)) problems.push(`extra:   generated/${f}`);
    if (problems.length) {
      console.error(`generated/ is out of date with spec/ (run \`npm run generate\` and commit):\n  ${problems.join('\n  ')}`);
      process.exit(1);
    }
    console.log(`generated/ is up to date (${want.length} files)`);
  } else {
    rmSync(target, { recursive: true, force: true });
    cpSync(scratch, target, { recursive: true });
    console.log(`wrote ${listFiles(target).length} files into generated/`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
