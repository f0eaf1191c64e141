// Checks spec/asyncapi.yaml: the AsyncAPI parser's diagnostics, every message
// example against its payload schema, and the published worked example of the
// signed handshake message against src/ws/auth-message.ts and viem.
// Usage: npx tsx scripts/asyncapi/validate.ts [path/to/asyncapi.yaml]
// Exit 1 on any error (parser error-severity diagnostics included); warnings only print.
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { bytesToHex, hashMessage, recoverMessageAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { parse as parseYaml } from 'yaml';
import { buildAuthMessage, isValidAuthDomain, normalizeSignature } from '../../src/ws/auth-message.js';

export const DEFAULT_ASYNCAPI_PATH = fileURLToPath(new URL('../../spec/asyncapi.yaml', import.meta.url));

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on .default.
const addFormats = addFormatsModule.default;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface MessageInfo {
  /** Key under components.messages, e.g. `authChallenge`. */
  key: string;
  /** Wire value of `type`, e.g. `auth_challenge`. */
  type: string;
  /** TypeScript interface name, e.g. `AuthChallengeMessage`. */
  typeName: string;
  /** Validator export name, e.g. `validateAuthChallenge`. */
  validatorName: string;
  /** `client`: the market maker sends it (operation action receive); `server`: the service sends it. */
  direction: 'client' | 'server';
  /** Payload schema with every local $ref resolved. */
  payload: JsonObject;
  examples: { name?: string | undefined; payload: Json }[];
}

export interface WorkedExample {
  privateKey: `0x${string}`;
  walletAddress: string;
  domain: string;
  nonce: string;
  timestamp: bigint;
  domainHex: string;
  nonceHex: string;
  timestampHex: string;
  messageHex: string;
  digest: string;
  signature: string;
}

export interface LoadedSpec {
  path: string;
  text: string;
  /** The YAML as written ($refs kept). */
  raw: JsonObject;
  /**
   * The same document with every local $ref resolved, except links to top-level objects
   * (`#/servers/...`, `#/channels/...`, `#/operations/...`): those stay $refs, as inlining
   * the channel into each operation would copy every message many times over.
   */
  resolved: JsonObject;
}

export interface CheckResult {
  errors: string[];
  warnings: string[];
  infos: string[];
}

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

const isLinkRef = (ref: string): boolean => /^#\/(servers|channels|operations)\//.test(ref);

export async function loadSpec(path: string = DEFAULT_ASYNCAPI_PATH): Promise<LoadedSpec> {
  const text = await readFile(path, 'utf8');
  const raw: unknown = parseYaml(text);
  if (!isObject(raw)) throw new Error(`${path}: not a YAML mapping`);
  return { path, text, raw, resolved: resolveLocalRefs(raw, isLinkRef) as JsonObject };
}

function pointerGet(root: JsonObject, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, got ${ref}`);
  let node: Json = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) || !(key in node)) throw new Error(`unresolvable $ref ${ref}`);
    node = node[key] as Json;
  }
  return node;
}

/**
 * Returns a copy of `root` with every `{"$ref": "#/..."}` replaced by a copy of its target,
 * except references for which `keep` returns true (they stay as they are).
 */
export function resolveLocalRefs(root: JsonObject, keep: (ref: string) => boolean = () => false): Json {
  const walk = (node: Json, stack: string[]): Json => {
    if (Array.isArray(node)) return node.map((item) => walk(item, stack));
    if (!isObject(node)) return node;
    const ref = node.$ref;
    if (typeof ref === 'string' && !keep(ref)) {
      if (stack.includes(ref)) throw new Error(`circular $ref ${[...stack, ref].join(' -> ')}`);
      return walk(pointerGet(root, ref), [...stack, ref]);
    }
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) out[key] = walk(value, stack);
    return out;
  };
  return walk(root, []);
}

/** Follows a chain of $refs in the raw document to the final pointer. */
function finalPointer(raw: JsonObject, ref: string): string {
  let current = ref;
  for (let hops = 0; hops < 16; hops++) {
    const target = pointerGet(raw, current);
    if (isObject(target) && typeof target.$ref === 'string') current = target.$ref;
    else return current;
  }
  throw new Error(`$ref chain too long from ${ref}`);
}

const pascal = (key: string): string => key.charAt(0).toUpperCase() + key.slice(1);

/** The messages of components.messages, in document order, with direction taken from the operations. */
export function messageCatalog(spec: LoadedSpec): MessageInfo[] {
  const { raw, resolved } = spec;
  const components = raw.components;
  const rawMessages = isObject(components) && isObject(components.messages) ? components.messages : {};
  const resolvedMessages = (resolved.components as JsonObject).messages as JsonObject;

  const direction = new Map<string, 'client' | 'server'>();
  const operations = isObject(raw.operations) ? raw.operations : {};
  for (const [opName, op] of Object.entries(operations)) {
    if (!isObject(op) || !Array.isArray(op.messages)) continue;
    const dir = op.action === 'receive' ? 'client' : op.action === 'send' ? 'server' : undefined;
    if (!dir) throw new Error(`operation ${opName}: action must be send or receive`);
    for (const m of op.messages) {
      if (!isObject(m) || typeof m.$ref !== 'string') throw new Error(`operation ${opName}: messages must be $refs`);
      const pointer = finalPointer(raw, m.$ref);
      const match = /^#\/components\/messages\/([^/]+)$/.exec(pointer);
      if (!match) throw new Error(`operation ${opName}: ${m.$ref} does not end at components.messages`);
      const key = match[1]!;
      const previous = direction.get(key);
      if (previous && previous !== dir) throw new Error(`message ${key} is both sent and received`);
      direction.set(key, dir);
    }
  }

  return Object.keys(rawMessages).map((key) => {
    const message = resolvedMessages[key] as JsonObject;
    const payload = message.payload;
    if (!isObject(payload)) throw new Error(`message ${key}: payload must be a schema object`);
    const properties = payload.properties;
    const typeSchema = isObject(properties) ? properties.type : undefined;
    const type = isObject(typeSchema) ? typeSchema.const : undefined;
    if (typeof type !== 'string') throw new Error(`message ${key}: payload.properties.type.const must be a string`);
    const dir = direction.get(key);
    if (!dir) throw new Error(`message ${key}: used by no send or receive operation`);
    const examples = Array.isArray(message.examples) ? message.examples : [];
    return {
      key,
      type,
      typeName: `${pascal(key)}Message`,
      validatorName: `validate${pascal(key)}`,
      direction: dir,
      payload,
      examples: examples.map((e) =>
        isObject(e) ? { name: typeof e.name === 'string' ? e.name : undefined, payload: e.payload ?? null } : { payload: null },
      ),
    };
  });
}

/** A new Ajv2020 instance as used for checks and for the generated standalone validators. */
export function createAjv(options: { standalone?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    allowUnionTypes: true,
    allErrors: false,
    ...(options.standalone ? { code: { source: true, esm: true } } : {}),
  });
  addFormats(ajv);
  return ajv;
}

/** The default AUTH_DOMAIN as published in info.description. */
export function extractDefaultAuthDomain(spec: LoadedSpec): string {
  const description = String((spec.raw.info as JsonObject | undefined)?.description ?? '');
  const match = /default `AUTH_DOMAIN` is exactly `([^`]+)`/.exec(description);
  if (!match) throw new Error('info.description: no "The default `AUTH_DOMAIN` is exactly `...`" sentence');
  return match[1]!;
}

/** The worked example block of info.description (the ```text block after "### Worked example"). */
export function extractWorkedExample(spec: LoadedSpec): WorkedExample {
  const description = String((spec.raw.info as JsonObject | undefined)?.description ?? '');
  const block = /### Worked example[\s\S]*?```text\n([\s\S]*?)```/.exec(description)?.[1];
  if (!block) throw new Error('info.description: no ```text block under "### Worked example"');
  const field = (label: string): string => {
    const match = new RegExp(`^\\s*${label}\\s{2,}(\\S+(?: \\S+)*)\\s*$`, 'm').exec(block);
    if (!match) throw new Error(`worked example: missing "${label}"`);
    return match[1]!;
  };
  const privateKey = field('private key');
  if (!/^0x[0-9a-f]{64}$/.test(privateKey)) throw new Error('worked example: bad private key');
  return {
    privateKey: privateKey as `0x${string}`,
    walletAddress: field('wallet_address'),
    domain: field('AUTH_DOMAIN'),
    nonce: field('nonce'),
    timestamp: BigInt(field('timestamp')),
    domainHex: field('domain bytes'),
    nonceHex: field('nonce bytes'),
    timestampHex: field('timestamp bytes'),
    messageHex: field('message'),
    digest: field('digest'),
    signature: field('signature'),
  };
}

async function checkParser(spec: LoadedSpec, result: CheckResult): Promise<void> {
  const parser = new Parser();
  const { document, diagnostics } = await parser.parse(spec.text, { source: spec.path });
  for (const d of diagnostics) {
    const where = `${spec.path}:${d.range.start.line + 1}:${d.range.start.character + 1}`;
    const line = `${where} ${d.code} ${d.message}${d.path.length ? ` (at ${d.path.join('.')})` : ''}`;
    if (d.severity === DiagnosticSeverity.Error) result.errors.push(line);
    else if (d.severity === DiagnosticSeverity.Warning) result.warnings.push(line);
    else result.infos.push(line);
  }
  if (!document && !result.errors.length) result.errors.push(`${spec.path}: the parser produced no document`);
}

function checkPayloads(messages: MessageInfo[], result: CheckResult): void {
  const ajv = createAjv();
  const types = new Set<string>();
  for (const m of messages) {
    const where = `components.messages.${m.key}`;
    if (types.has(m.type)) result.errors.push(`${where}: type "${m.type}" is used by another message`);
    types.add(m.type);
    if (m.payload.additionalProperties !== false) result.errors.push(`${where}: payload must set additionalProperties: false`);
    if (!Array.isArray(m.payload.required) || !m.payload.required.includes('type')) {
      result.errors.push(`${where}: payload must list "type" in required`);
    }
    if (!m.examples.length) result.errors.push(`${where}: at least one example is required`);
    let validate;
    try {
      validate = ajv.compile(m.payload);
    } catch (error) {
      result.errors.push(`${where}: payload schema does not compile: ${(error as Error).message}`);
      continue;
    }
    m.examples.forEach((example, i) => {
      if (!validate(example.payload)) {
        const detail = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
        result.errors.push(`${where}.examples[${i}]${example.name ? ` (${example.name})` : ''}: ${detail}`);
      }
    });
  }
}

const stripHex = (hex: string): string => hex.replace(/^0x/, '').toLowerCase();

async function checkWorkedExample(spec: LoadedSpec, messages: MessageInfo[], result: CheckResult): Promise<void> {
  const fail = (text: string): void => {
    result.errors.push(`worked example: ${text}`);
  };
  const we = extractWorkedExample(spec);
  const defaultDomain = extractDefaultAuthDomain(spec);
  if (!isValidAuthDomain(defaultDomain)) fail(`default AUTH_DOMAIN "${defaultDomain}" is not 35 ASCII bytes`);
  if (we.domain !== defaultDomain) fail('AUTH_DOMAIN differs from the documented default');

  const encoder = new TextEncoder();
  const domainHex = bytesToHex(encoder.encode(we.domain)).slice(2);
  if (stripHex(we.domainHex) !== domainHex) fail(`domain bytes should be ${domainHex}`);
  const description = String((spec.raw.info as JsonObject).description);
  if (!description.includes(`hex \`${domainHex}\``)) fail('the default AUTH_DOMAIN hex in the description is wrong');
  if (stripHex(we.nonceHex) !== we.nonce) fail('nonce bytes differ from nonce');

  const message = buildAuthMessage(we.domain, we.nonce, we.timestamp);
  const messageHex = bytesToHex(message).slice(2);
  if (stripHex(we.timestampHex) !== messageHex.slice(134)) fail(`timestamp bytes should be ${messageHex.slice(134)}`);
  if (stripHex(we.messageHex) !== messageHex) fail(`message should be ${messageHex}`);
  const digest = hashMessage({ raw: message }).slice(2);
  if (stripHex(we.digest) !== digest) fail(`digest should be ${digest}`);

  const account = privateKeyToAccount(we.privateKey);
  if (account.address !== we.walletAddress) fail(`wallet_address should be ${account.address}`);
  const signature = await account.signMessage({ message: { raw: message } });
  if (stripHex(we.signature) !== stripHex(signature)) fail(`signature should be ${stripHex(signature)}`);
  const normalized = normalizeSignature(we.signature);
  if (!normalized) {
    fail('signature does not have the auth_response shape');
  } else {
    const recovered = await recoverMessageAddress({ message: { raw: message }, signature: normalized });
    if (recovered !== account.address) fail(`signature recovers to ${recovered}`);
  }

  // The message examples must be this same exchange.
  const byType = new Map(messages.map((m) => [m.type, m]));
  const challenge = byType.get('auth_challenge')?.examples.find((e) => e.name === 'workedExample')?.payload;
  if (!isObject(challenge) || challenge.nonce !== we.nonce || String(challenge.timestamp) !== String(we.timestamp)) {
    fail('auth_challenge example "workedExample" must carry the worked nonce and timestamp');
  }
  const responses = byType.get('auth_response')?.examples ?? [];
  if (!responses.some((e) => e.name === 'workedExample')) fail('auth_response needs an example named "workedExample"');
  for (const example of responses) {
    const p = example.payload;
    if (!isObject(p) || typeof p.signature !== 'string' || typeof p.wallet_address !== 'string') continue;
    const sig = normalizeSignature(p.signature);
    const recovered = sig ? await recoverMessageAddress({ message: { raw: message }, signature: sig }) : null;
    if (recovered?.toLowerCase() !== p.wallet_address.toLowerCase()) {
      fail(`auth_response example "${example.name ?? '?'}" does not verify against the worked challenge`);
    }
  }
}

/** Runs every check; never throws for problems in the document, reports them instead. */
export async function checkAsyncApi(path: string = DEFAULT_ASYNCAPI_PATH): Promise<CheckResult> {
  const result: CheckResult = { errors: [], warnings: [], infos: [] };
  let spec: LoadedSpec;
  try {
    spec = await loadSpec(path);
  } catch (error) {
    result.errors.push((error as Error).message);
    return result;
  }
  await checkParser(spec, result);
  try {
    const messages = messageCatalog(spec);
    checkPayloads(messages, result);
    await checkWorkedExample(spec, messages, result);
  } catch (error) {
    result.errors.push((error as Error).message);
  }
  return result;
}

async function main(): Promise<void> {
  const path = process.argv[2] ?? DEFAULT_ASYNCAPI_PATH;
  const { errors, warnings, infos } = await checkAsyncApi(path);
  for (const line of infos) console.log(`info: ${line}`);
  for (const line of warnings) console.warn(`warning: ${line}`);
  for (const line of errors) console.error(`error: ${line}`);
  console.log(`${path}: ${errors.length} error(s), ${warnings.length} warning(s)`);
  process.exitCode = errors.length ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
