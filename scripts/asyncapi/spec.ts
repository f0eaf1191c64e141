// Loading spec/asyncapi.yaml for scripts/asyncapi/validate.ts and generate.ts: the YAML as written and with its
// local $refs resolved.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const DEFAULT_ASYNCAPI_PATH = fileURLToPath(new URL('../../spec/asyncapi.yaml', import.meta.url));

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

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

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

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
export function finalPointer(raw: JsonObject, ref: string): string {
  let current = ref;
  for (let hops = 0; hops < 16; hops++) {
    const target = pointerGet(raw, current);
    if (isObject(target) && typeof target.$ref === 'string') current = target.$ref;
    else return current;
  }
  throw new Error(`$ref chain too long from ${ref}`);
}
