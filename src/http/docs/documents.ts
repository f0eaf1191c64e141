// The published documents: spec/openapi.yaml and spec/asyncapi.yaml as JSON and YAML, with the server
// entries and the examples' localhost:3000 rewritten to the instance that serves them (PUBLIC_URL, else the
// request's Host), an ETag per
// variant and If-None-Match revalidation. Read from spec/ once at start-up; comments survive in the YAML.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDocument, type Document } from 'yaml';

export type DocumentName = 'openapi' | 'asyncapi';
export type DocumentFormat = 'json' | 'yaml';

export interface PublishedDocument {
  /** The bytes served: compact JSON, or the YAML text. */
  body: Buffer;
  contentType: string;
  etag: string;
  /** The parsed document (JSON format only), for the dispatcher to serialise. */
  json?: Record<string, unknown>;
}

const SPEC_DIR = fileURLToPath(new URL('../../../spec/', import.meta.url));
/** host[:port] as a Host header may carry it; anything else falls back to the configured default. */
const HOST_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
/** Distinct base URLs kept (Host headers are client input: the cache must stay bounded). */
const MAX_VARIANTS = 16;

export interface DocumentSource {
  /** Base URL of this instance, e.g. `https://api.example.com` (PUBLIC_URL), or undefined to use the Host header. */
  publicUrl: string | undefined;
  /** Used when the request has no usable Host header. */
  fallbackHost: string;
}

export function createDocumentStore(source: DocumentSource, specDir = SPEC_DIR) {
  const sources: Record<DocumentName, string> = {
    openapi: readFileSync(`${specDir}openapi.yaml`, 'utf8'),
    asyncapi: readFileSync(`${specDir}asyncapi.yaml`, 'utf8'),
  };
  const pathname = source.publicUrl ? new URL(source.publicUrl).pathname.replace(/\/+$/, '') : '';
  // Parsing and printing a document takes ~100 ms: done once per (document, format) into a template with
  // placeholders, so that a request with a new Host costs a string replacement and a hash, never a parse.
  const templates = new Map<string, string>();
  const template = (name: DocumentName, format: DocumentFormat): string => {
    const key = `${name}.${format}`;
    let text = templates.get(key);
    if (text === undefined) {
      text = render(sources[name], name, format, pathname);
      templates.set(key, text);
    }
    return text;
  };
  const cache = new Map<string, PublishedDocument>();

  /** The base URL (scheme://host[:port][/path], no trailing slash) a request to this instance should use. */
  const baseUrl = (host: string | undefined): string => {
    if (source.publicUrl) return source.publicUrl.replace(/\/+$/, '');
    return `http://${host && HOST_RE.test(host) ? host.toLowerCase() : source.fallbackHost}`;
  };

  return {
    baseUrl,
    get(name: DocumentName, format: DocumentFormat, host: string | undefined): PublishedDocument {
      const base = baseUrl(host);
      const key = `${name}.${format} ${base}`;
      let doc = cache.get(key);
      if (!doc) {
        const url = new URL(base);
        const text = template(name, format)
          .replaceAll(BASE_URL, base)
          .replaceAll(HOST, url.host)
          .replaceAll(WS_PROTOCOL, url.protocol === 'https:' ? 'wss' : 'ws');
        // JSON goes out as the dispatcher serialises it (JSON.stringify, compact): the ETag is of those bytes.
        const json = format === 'json' ? (JSON.parse(text) as Record<string, unknown>) : undefined;
        const body = Buffer.from(json ? JSON.stringify(json) : text);
        const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
        doc = { body, etag, json, contentType: format === 'json' ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8' };
        if (cache.size >= MAX_VARIANTS) cache.delete(cache.keys().next().value!);
        cache.set(key, doc);
      }
      return doc;
    },
  };
}

export type DocumentStore = ReturnType<typeof createDocumentStore>;

// Placeholders: plain scalars in YAML and JSON alike, and the values put in their place (a validated
// host[:port], an http(s) URL, ws/wss) need no quoting in either.
const BASE_URL = 'crfq-placeholder-base-url';
const HOST = 'crfq-placeholder-host';
const WS_PROTOCOL = 'crfq-placeholder-ws-protocol';

/**
 * The examples of spec/ name the development default, localhost:3000 (a SIWE message, the WebSocket URL):
 * served, they name this instance instead, so that what a partner copies works against what they read.
 */
const withThisInstance = (text: string) =>
  text
    .replaceAll('http://localhost:3000', BASE_URL)
    .replaceAll('ws://localhost:3000', `${WS_PROTOCOL}://${HOST}`)
    .replaceAll('localhost:3000', HOST);

function render(text: string, name: DocumentName, format: DocumentFormat, pathname: string): string {
  const doc = parseDocument(withThisInstance(text));
  if (name === 'openapi') {
    doc.set('servers', doc.createNode([{ url: BASE_URL, description: 'This instance (the service that served this document).' }]));
  } else {
    rewriteAsyncApiServers(doc, pathname);
  }
  return format === 'json' ? `${JSON.stringify(doc.toJS(), null, 2)}\n` : doc.toString({ lineWidth: 0 });
}

/** The handshake's example address in the description (spec/asyncapi.yaml "Handshake"). */
const LOCAL_WS_EXAMPLE = /`ws:\/\/localhost:3000\/v1\/ws`\s+locally;\s+`wss:\/\/`\s+behind\s+TLS/;

/** Every AsyncAPI server keeps its name (channels refer to it) and points at this instance, as does the handshake's example address. */
function rewriteAsyncApiServers(doc: Document, pathname: string): void {
  const description = doc.getIn(['info', 'description']);
  if (typeof description === 'string' && LOCAL_WS_EXAMPLE.test(description)) {
    doc.setIn(
      ['info', 'description'],
      description.replace(LOCAL_WS_EXAMPLE, `\`${WS_PROTOCOL}://${HOST}${pathname}/v1/ws\` on this instance`),
    );
  }
  const servers = doc.get('servers', true) as { items?: Array<{ key: unknown }> } | undefined;
  for (const pair of servers?.items ?? []) {
    const name = String((pair.key as { value?: unknown })?.value ?? pair.key);
    doc.setIn(['servers', name, 'host'], HOST);
    doc.setIn(['servers', name, 'protocol'], WS_PROTOCOL);
    if (pathname) doc.setIn(['servers', name, 'pathname'], pathname);
    doc.setIn(['servers', name, 'title'], 'This instance');
    doc.setIn(['servers', name, 'summary'], 'The service that served this document: HTTP and WebSocket on one port.');
    doc.setIn(['servers', name, 'description'], `The WebSocket is served at \`${WS_PROTOCOL}://${HOST}${pathname}/v1/ws\`.`);
  }
}

/** True when an If-None-Match header names this ETag (or `*`); weak comparison, as RFC 9110 asks for GET. */
export function matchesEtag(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === bare;
  });
}
