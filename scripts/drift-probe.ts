// `npm run check:drift`: proves that the spec reaches the compiler. Copies spec/ to a temporary folder,
// renames a response field, a query parameter and a status, adds a WebSocket client message, renames a field
// of five server frames, generates into that folder and type-checks src/ against it: each change must fail
// `tsc` in the code that uses it (a frame's field in the one function that builds the frame).
// `--src DIR` checks another copy of src/ (e.g. an older commit's, to see the probe fail there);
// `--verbose` prints every tsc error.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const srcArg = process.argv.indexOf('--src');
const srcDir = srcArg >= 0 ? resolve(process.argv[srcArg + 1] ?? '') : join(root, 'src');

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- free-form YAML edits

interface Drift {
  change: string;
  /** A tsc error line that shows the change was caught where it is used. */
  expect: RegExp;
}

const drifts: Drift[] = [
  { change: 'ContestLobbyRow.entries_filled renamed entries_count', expect: /contests-wire\.ts.*entries_(filled|count)/ },
  { change: 'PopularMarket.yes_count renamed yes_total', expect: /handlers\/contests(-reads)?\.ts.*yes_(count|total)/ },
  {
    change: 'query parameter window_ms of getContestTopParticipants renamed lookback_ms',
    expect: /handlers\/contests(-reads)?\.ts.*'window_ms'/,
  },
  { change: 'uploadPoolImage answers 200 instead of 201', expect: /handlers\/pool-images\.ts.*(201|200)/ },
  { change: 'new WebSocket client message `drift`', expect: /ws\/(message-handlers|gateway)\.ts.*'drift'/ },
  ...frameRenames().map((r) => ({ change: `${r.schema}.${r.from} renamed ${r.to}`, expect: r.expect })),
];

/** Server-frame fields renamed in the AsyncAPI document: each must fail `tsc` where the frame is built. */
function frameRenames(): { schema: string; message: string; from: string; to: string; expect: RegExp }[] {
  return [
    {
      schema: 'RfqMessage',
      message: 'rfq',
      from: 'quote_deadline_ms',
      to: 'deadline_ms',
      expect: /domain\/rfq\/records\.ts.*'?quote_deadline_ms/,
    },
    { schema: 'QuoteAckMessage', message: 'quoteAck', from: 'accepted', to: 'is_accepted', expect: /domain\/rfq\/quotes\.ts.*'?accepted/ },
    {
      schema: 'QuoteResultMessage',
      message: 'quoteResult',
      from: 'fill_stake_micros',
      to: 'filled_micros',
      expect: /domain\/rfq\/records\.ts.*'?fill_stake_micros/,
    },
    {
      schema: 'RfqClosedMessage',
      message: 'rfqClosed',
      from: 'closed_at_ms',
      to: 'closed_ms',
      expect: /domain\/rfq\/records\.ts.*'?closed_at_ms/,
    },
    {
      schema: 'PositionSettledMessage',
      message: 'positionSettled',
      from: 'maker_pnl_micros',
      to: 'pnl_micros',
      expect: /domain\/rfq\/records\.ts.*'?maker_pnl_micros/,
    },
    { schema: 'UserEventMessage', message: 'userEvent', from: 'at_ms', to: 'at', expect: /domain\/user-events\/log\.ts.*'?at_ms/ },
    {
      schema: 'ResyncRequiredMessage',
      message: 'resyncRequired',
      from: 'resume_seq',
      to: 'head_seq',
      expect: /(domain\/user-events\/log|ws\/user-stream)\.ts.*'?resume_seq/,
    },
  ];
}

function mutateOpenApi(text: string): string {
  const doc = parse(text.replaceAll('entries_filled', 'entries_count').replaceAll('yes_count', 'yes_total')) as Obj;
  const top = doc.paths['/v1/contests/{id}/top-participants'].get;
  const windowParam = top.parameters.find((p: Obj) => p.name === 'window_ms');
  if (!windowParam) throw new Error('drift probe: getContestTopParticipants has no window_ms parameter any more; update the probe');
  windowParam.name = 'lookback_ms';
  const upload = doc.paths['/v1/admin/pool-images'].post.responses;
  upload['200'] = upload['201'];
  delete upload['201'];
  return stringify(doc);
}

function mutateAsyncApi(text: string): string {
  const doc = parse(text) as Obj;
  const c = doc.components;
  if (c.messages.drift) throw new Error('drift probe: the AsyncAPI document has a drift message; pick another name for the probe');
  c.schemas.DriftMessage = { ...c.schemas.PongMessage, properties: { type: { type: 'string', const: 'drift' } } };
  c.messages.drift = {
    ...c.messages.pong,
    name: 'drift',
    title: 'Drift',
    payload: { $ref: '#/components/schemas/DriftMessage' },
    examples: [{ name: 'bare', payload: { type: 'drift' } }],
  };
  doc.channels.marketMaker.messages.drift = { $ref: '#/components/messages/drift' };
  doc.operations.receiveDrift = {
    ...doc.operations.receivePong,
    title: 'Drift',
    messages: [{ $ref: '#/channels/marketMaker/messages/drift' }],
  };
  for (const r of frameRenames()) {
    const schema = c.schemas[r.schema] as Obj | undefined;
    if (!schema?.properties?.[r.from]) throw new Error(`drift probe: ${r.schema} has no ${r.from} any more; update the probe`);
    schema.properties[r.to] = schema.properties[r.from];
    delete schema.properties[r.from];
    schema.required = (schema.required as string[]).map((f) => (f === r.from ? r.to : f));
    for (const branch of ['if', 'then', 'else'] as const) {
      const props = (schema[branch] as Obj | undefined)?.properties as Obj | undefined;
      if (props && r.from in props) {
        props[r.to] = props[r.from];
        delete props[r.from];
      }
    }
    for (const ex of (c.messages[r.message]?.examples ?? []) as Obj[]) {
      if (ex.payload && r.from in ex.payload) {
        ex.payload[r.to] = ex.payload[r.from];
        delete ex.payload[r.from];
      }
    }
  }
  return stringify(doc);
}

function run(cmd: string, args: string[], cwd: string) {
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
}

const started = Date.now();
const tmp = mkdtempSync(join(tmpdir(), 'crfq-drift-'));
try {
  const spec = join(tmp, 'spec');
  cpSync(join(root, 'spec'), spec, { recursive: true });
  writeFileSync(join(spec, 'openapi.yaml'), mutateOpenApi(readFileSync(join(spec, 'openapi.yaml'), 'utf8')));
  writeFileSync(join(spec, 'asyncapi.yaml'), mutateAsyncApi(readFileSync(join(spec, 'asyncapi.yaml'), 'utf8')));

  const project = join(tmp, 'project');
  const gen = run('npx', ['tsx', join(root, 'scripts/generate.ts'), '--spec', spec, '--out', join(project, 'generated')], root);
  if (gen.status !== 0) throw new Error(`generating from the drifted spec failed:\n${gen.stdout}${gen.stderr}`);
  cpSync(srcDir, join(project, 'src'), { recursive: true });
  cpSync(join(root, 'workers'), join(project, 'workers'), { recursive: true }); // src/ imports the worker entry
  cpSync(join(root, 'package.json'), join(project, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
  const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as Obj;
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ ...tsconfig, include: ['src', 'workers', 'generated'], exclude: ['**/*.test.ts', 'src/testing'] }),
  );

  const tsc = run('npx', ['tsc', '--noEmit', '-p', 'tsconfig.json'], project);
  const errors = `${tsc.stdout}${tsc.stderr}`.split('\n').filter((l) => /error TS\d+/.test(l));
  let missed = 0;
  for (const d of drifts) {
    const hit = errors.find((l) => d.expect.test(l));
    if (!hit) missed += 1;
    console.log(`${hit ? 'caught' : 'MISSED'}  ${d.change}${hit ? `\n        ${hit.trim()}` : ''}`);
  }
  if (process.argv.includes('--verbose')) console.log(errors.join('\n'));
  console.log(
    `${errors.length} tsc error(s) against the drifted spec; ${drifts.length - missed} of ${drifts.length} changes caught (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  if (missed > 0 || tsc.status === 0) {
    console.error('drift probe FAILED: a spec change compiles cleanly against the handlers');
    process.exitCode = 1;
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
