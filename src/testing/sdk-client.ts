// Integration tests call the running service through the SDK generated from spec/openapi.yaml
// (generated/openapi/sdk.gen.ts), so a request or response that drifts from the spec fails to compile
// or fails the SDK's response schema, instead of passing through an untyped helper.
//
//   const alice = sdkClient(baseUrl, token);
//   const res = await send(getRfq({ client: alice, path: { id } }));
//   expect(res.status).toBe(200);
//   expect(res.data?.status).toBe('open');
//
// Tests that must send what the SDK cannot express (malformed JSON, wrong types, raw headers) use a raw
// fetch and say why.
import { createClient, createConfig, type Client } from '../../generated/openapi/client/index.js';

export type { Client };

/** A generated-SDK client for the service at `baseUrl`; with a token, every request carries `Authorization: Bearer <token>`. */
export function sdkClient(baseUrl: string, token?: string): Client {
  return createClient(createConfig({ baseUrl, ...(token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } }) }));
}

export interface SdkResponse<D, E> {
  status: number;
  /** The typed body of a 2xx response (checked by the SDK's response schema); undefined otherwise. */
  data: D | undefined;
  /** The typed body of a non-2xx response (the spec's `Error`); undefined on 2xx. */
  error: E | undefined;
  headers: Headers;
}

/**
 * Awaits an SDK call (`getRfq({client, path})`, ...) and returns its status with the typed body. Throws when
 * no response came (network error) or when a 2xx body failed the SDK's response schema, so such a test fails
 * with the reason instead of a confusing `data: undefined`.
 */
export async function send<D, E>(
  call: Promise<({ data: D; error: undefined } | { data: undefined; error: E }) & { response?: Response }>,
): Promise<SdkResponse<D, E>> {
  const { status, data, error, response } = await sent(call);
  return { status, data, error, headers: response.headers };
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  return JSON.stringify(err)?.slice(0, 600) ?? String(err);
}

type SdkResult = { data?: unknown; error?: unknown; response?: Response };

/**
 * `send`'s check, keeping the SDK's own result shape (`data`, `error`, `response`) and adding the status: for
 * tests that pass the result on to helpers expecting the SDK's shape. `send` is built on it.
 */
export async function sent<R extends SdkResult>(call: Promise<R>): Promise<R & { status: number; response: Response }> {
  const result = await call;
  const response = result.response;
  if (!response) throw new Error(`the SDK got no response: ${describe(result.error)}`);
  // The client catches its own validator's failure and hands it back as `error`: a success body off the spec.
  if (response.ok && result.error !== undefined) {
    throw new Error(`${response.status} ${response.url}: the body fails the SDK's response schema: ${describe(result.error)}`);
  }
  return { ...result, response, status: response.status };
}
