// The docs portal's static files, served by the service itself (no CDN: partners sit behind firewalls and
// the tests run offline): the Scalar and AsyncAPI browser bundles from node_modules and our own small
// start-up scripts. Loaded on first use, kept in memory with a gzip copy and an ETag.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const HERE = fileURLToPath(new URL('./', import.meta.url));

/** The nearest node_modules above this file that holds `pkg`: the checkout's, from src/ and from the build in dist/src/ alike. */
function packageFile(pkg: string, file: string): string {
  for (let dir = HERE; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', pkg))) return join(dir, 'node_modules', pkg, file);
    if (dirname(dir) === dir) return join(HERE, 'node_modules', pkg, file); // not installed: the read fails and names this path
  }
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** URL name under /docs/assets/ -> file and media type. Nothing else is ever read from disk. */
const FILES: Record<string, { path: string; contentType: string }> = {
  'scalar.js': { path: packageFile('@scalar/api-reference', 'dist/browser/standalone.js'), contentType: JS },
  'asyncapi.js': { path: packageFile('@asyncapi/react-component', 'browser/standalone/index.js'), contentType: JS },
  'asyncapi.css': { path: packageFile('@asyncapi/react-component', 'styles/default.min.css'), contentType: CSS },
  'scalar-init.js': { path: `${HERE}client/scalar-init.js`, contentType: JS },
  'asyncapi-init.js': { path: `${HERE}client/asyncapi-init.js`, contentType: JS },
  'portal.css': { path: `${HERE}client/portal.css`, contentType: CSS },
};

export interface Asset {
  body: Buffer;
  gzipped: Buffer;
  contentType: string;
  etag: string;
}

const loaded = new Map<string, Asset>();

/** The asset, or undefined for a name that is not one of ours. */
export function loadAsset(name: string): Asset | undefined {
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!file) return undefined;
  let asset = loaded.get(name);
  if (!asset) {
    const body = readFileSync(file.path);
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    asset = { body, gzipped: gzipSync(body, { level: 6 }), contentType: file.contentType, etag };
    loaded.set(name, asset);
  }
  return asset;
}
