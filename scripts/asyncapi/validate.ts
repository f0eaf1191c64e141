// Checks spec/asyncapi.yaml: the AsyncAPI parser's diagnostics, every message
// example against its payload schema, and the published worked example of the
// signed handshake message against src/ws/auth-message.ts and viem.
// Usage: npx tsx scripts/asyncapi/validate.ts [path/to/asyncapi.yaml]
// Exit 1 on any error (parser error-severity diagnostics included); warnings only print.
// The loading lives in spec.ts, the reading-out in catalog.ts; both are re-exported here.
import { pathToFileURL } from 'node:url';
import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { bytesToHex, hashMessage, recoverMessageAddress } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { buildAuthMessage, isValidAuthDomain, normalizeSignature } from '../../src/ws/auth-message.js';
import { createAjv, extractDefaultAuthDomain, extractWorkedExample, messageCatalog, type MessageInfo } from './catalog.js';
import { DEFAULT_ASYNCAPI_PATH, isObject, loadSpec, type JsonObject, type LoadedSpec } from './spec.js';

export { DEFAULT_ASYNCAPI_PATH, loadSpec, resolveLocalRefs, type LoadedSpec } from './spec.js';
export {
  createAjv,
  extractDefaultAuthDomain,
  extractWorkedExample,
  messageCatalog,
  type MessageInfo,
  type WorkedExample,
} from './catalog.js';

export interface CheckResult {
  errors: string[];
  warnings: string[];
  infos: string[];
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
