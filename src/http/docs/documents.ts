// The published documents: spec/openapi.yaml and spec/asyncapi.yaml as JSON and YAML, with the server
// entries rewritten to the instance that serves them (PUBLIC_URL, else the request's Host), an ETag per
// variant and If-None-Match revalidation. Read from spec/ once at start-up; comments survive in the YAML.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDocument, type Document } from 'yaml';

export type DocumentName = 'openapi' | 'asyncapi';
export type DocumentFormat = 'json' | 'yaml';

export interface PublishedDocument {
  body: string;
  contentType: string;
  etag: string;
}

const SPEC_DIR = fileURLToPath(new URL('../../../spec/', import.meta.url));
/** host[:port] as a Host header may carry it; anything else falls back to the configured default. */
const HOST_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
/** Distinct base URLs kept (Host headers are client input: the cache must stay bounded). */
const MAX_VARIANTS = 32;

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
  const cache = new Map<string, PublishedDocument>();

  /** The base URL (scheme://host[:port], no trailing slash) a request to this instance should use. */
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
        doc = publish(sources[name], name, format, base);
        if (cache.size >= MAX_VARIANTS) cache.delete(cache.keys().next().value!);
        cache.set(key, doc);
      }
      return doc;
    },
  };
}

export type DocumentStore = ReturnType<typeof createDocumentStore>;

function publish(text: string, name: DocumentName, format: DocumentFormat, base: string): PublishedDocument {
  const doc = parseDocument(text);
  if (name === 'openapi') rewriteOpenApiServers(doc, base);
  else rewriteAsyncApiServers(doc, base);
  const body = format === 'json' ? `${JSON.stringify(doc.toJS(), null, 2)}\n` : doc.toString({ lineWidth: 0 });
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag, contentType: format === 'json' ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8' };
}

function rewriteOpenApiServers(doc: Document, base: string): void {
  doc.set('servers', doc.createNode([{ url: base, description: 'This instance (the service that served this document).' }]));
}

/** Every AsyncAPI server keeps its name (channels refer to it) and points at this instance. */
function rewriteAsyncApiServers(doc: Document, base: string): void {
  const url = new URL(base);
  const protocol = url.protocol === 'https:' ? 'wss' : 'ws';
  const servers = doc.get('servers', true) as { items?: Array<{ key: unknown }> } | undefined;
  for (const pair of servers?.items ?? []) {
    const name = String((pair.key as { value?: unknown })?.value ?? pair.key);
    doc.setIn(['servers', name, 'host'], url.host);
    doc.setIn(['servers', name, 'protocol'], protocol);
    if (url.pathname !== '/') doc.setIn(['servers', name, 'pathname'], url.pathname.replace(/\/+$/, ''));
    doc.setIn(['servers', name, 'title'], 'This instance');
    doc.setIn(['servers', name, 'summary'], 'The service that served this document: HTTP and WebSocket on one port.');
    doc.setIn(['servers', name, 'description'], `The WebSocket is served at \`${protocol}://${url.host}${url.pathname.replace(/\/+$/, '')}/v1/ws\`.`);
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
