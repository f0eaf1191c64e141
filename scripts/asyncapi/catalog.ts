// What scripts/asyncapi/validate.ts and generate.ts read out of the loaded spec: the message catalog, the
// documented default AUTH_DOMAIN and the worked handshake example; and the Ajv they compile schemas with.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { finalPointer, isObject, type JsonObject, type Json, type LoadedSpec } from './spec.js';

// ajv-formats is CommonJS with a default export; under NodeNext the callable sits on .default.
const addFormats = addFormatsModule.default;

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
