// The generated, typed SDK (generated/openapi, from spec/openapi.yaml) for integration tests: a client for one
// service process and bearer token, and `sent()` to read a call's status next to its typed data and error.
// Success bodies are checked by the SDK's zod validators, so a response off the spec fails the test.
import { createClient, createConfig, type Client } from '../../generated/openapi/client/index.js';

/** Pass as `{client}` to the functions of generated/openapi/sdk.gen.ts. */
export function sdkClient(baseUrl: string, token?: string): Client {
  return createClient(createConfig({ baseUrl, ...(token === undefined ? {} : { auth: token }) }));
}

type SdkResult = { data?: unknown; error?: unknown; response?: Response };

/** Awaits an SDK call and adds the HTTP status; throws when no response came back (the request never left). */
export async function sent<R extends SdkResult>(call: Promise<R>): Promise<R & { status: number; response: Response }> {
  const result = await call;
  const response = result.response;
  if (!response) throw new Error(`the generated client got no response: ${String(result.error)}`);
  // The client catches its own validator's failure and hands it back as `error`: a success body off the spec.
  if (response.ok && result.error !== undefined)
    throw new Error(
      `${response.status} body breaks spec/openapi.yaml: ${result.error instanceof Error ? result.error.message : JSON.stringify(result.error)}`,
    );
  return { ...result, response, status: response.status };
}
