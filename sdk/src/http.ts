// The HTTP client: hey-api's output for spec/openapi.yaml (generated/sdk, written by `npm run generate`),
// one typed function per operationId, plus createClient({baseUrl, token}).
import { createClient as createHeyApiClient, createConfig, type Client, type Config } from '../../generated/sdk/client/index.ts';

export * from '../../generated/sdk/index.ts';
export type { Client, Config } from '../../generated/sdk/client/index.ts';

export interface CreateClientOptions {
  /** Where the service runs, e.g. `https://api.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** Bearer token for protected operations: a session token, an operator token, or a function returning one. */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  /** Throw on 4xx/5xx instead of returning `{error}` (default false, hey-api's default). */
  throwOnError?: boolean;
  /** Another fetch (tests, proxies). */
  fetch?: typeof fetch;
  headers?: Record<string, string>;
}

/**
 * A client for every generated operation: `getPreferences({client})`, `listContests({client, query})`...
 * The token is sent only to operations the spec marks as secured (bearer).
 */
export function createClient(options: CreateClientOptions): Client {
  const config: Config = { baseUrl: options.baseUrl.replace(/\/+$/, ''), throwOnError: options.throwOnError ?? false };
  if (options.token !== undefined) config.auth = options.token;
  if (options.fetch) config.fetch = options.fetch;
  if (options.headers) config.headers = options.headers;
  return createHeyApiClient(createConfig(config));
}
