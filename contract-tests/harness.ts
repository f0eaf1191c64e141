// Contract-test harness: boots the real service, calls it through the generated SDK (or raw requests the
// SDK cannot produce), and checks every response against spec/openapi.yaml (check.ts), recording each
// conforming (operationId, documented status) pair for coverage-report.ts.
import { randomBytes } from 'node:crypto';
import { createClient, createConfig, type Client } from '../generated/openapi/client/index.ts';
import * as sdk from '../generated/openapi/sdk.gen.ts';
import { startServiceProcess, type ServiceProcess } from '../src/testing/service-process.js';
import { createTestDatabase, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../src/testing/postgres.js';
import { matchOperation, type SpecOperation } from './spec.ts';
import { checkResponse, ContractViolation, operationById, operations, type Checked, type Expected } from './check.ts';

export {
  checkErrorResponse,
  checkResponse,
  ContractViolation,
  doc,
  ERROR_SCHEMA,
  expectErrorBody,
  operations,
  schemaErrors,
} from './check.ts';
export type { Checked, Expected } from './check.ts';

// ---------------------------------------------------------------- calling the service

type SdkResult = { data?: unknown; error?: unknown; response?: Response };
export type SdkFunction = (options: {
  client: Client;
  path?: unknown;
  query?: unknown;
  body?: unknown;
  headers?: unknown;
}) => Promise<SdkResult>;

/** The generated SDK function of an operation, for tests that iterate the spec. */
export function sdkFunction(operationId: string): SdkFunction {
  const fn = (sdk as unknown as Record<string, SdkFunction | undefined>)[operationId];
  if (typeof fn !== 'function') throw new Error(`the generated SDK has no function ${operationId}`);
  return fn;
}

export interface ContractClient {
  /** Pass as `{client}` to the generated SDK functions; every response it gets is checked. */
  client: Client;
  /** Awaits an SDK call, rethrows contract violations, and asserts the expected status and code. */
  run<R extends SdkResult>(call: Promise<R>, expected: { status: number; code?: string }): Promise<R & { checked: Checked }>;
}

/**
 * A generated-SDK client whose fetch checks every response. For an operation that may not be built yet,
 * pass allowNotBuilt: a 501 NOT_IMPLEMENTED then comes back as `checked.notBuilt` (neither a failure nor
 * coverage) and the test can skip itself; otherwise 501 is a contract violation (the spec does not document it).
 */
export function createContractClient(baseUrl: string, opts: { token?: string; allowNotBuilt?: boolean } = {}): ContractClient {
  const outcomes = new WeakMap<Response, Checked>();
  const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const response = await fetch(request);
    const op = matchOperation(operations, request.method, new URL(request.url).pathname);
    if (!op) throw new ContractViolation(`the SDK called ${request.method} ${request.url}, which is no operation of the spec`);
    outcomes.set(response, checkResponse(op.operationId, response, await response.clone().text(), { allowNotBuilt: opts.allowNotBuilt }));
    return response;
  };
  const client = createClient(
    createConfig({ baseUrl, fetch: recordingFetch as typeof fetch, ...(opts.token ? { auth: opts.token } : {}) }),
  );
  return {
    client,
    async run(call, expected) {
      const result = await call;
      if (result.error instanceof ContractViolation) throw result.error;
      const checked = result.response && outcomes.get(result.response);
      if (!checked) throw new Error(`the generated client sent no request: ${explain(result.error)}`);
      if (checked.notBuilt) return { ...result, checked };
      const problems: string[] = [];
      if (checked.status !== expected.status) problems.push(`expected status ${expected.status}, got ${checked.status}`);
      const code = (checked.body as { code?: unknown } | null)?.code;
      if (expected.code !== undefined && code !== expected.code)
        problems.push(`expected error code ${expected.code}, got ${JSON.stringify(code)}`);
      if (checked.status < 300 && result.error !== undefined)
        problems.push(`the generated client rejected the response: ${explain(result.error)}`);
      if (problems.length)
        throw new ContractViolation(
          `${checked.operationId} -> ${checked.status}:\n  - ${problems.join('\n  - ')}\n  body: ${checked.text.slice(0, 600)}`,
        );
      return { ...result, checked };
    },
  };
}

function explain(err: unknown): string {
  if (err instanceof Error) return err.message;
  return JSON.stringify(err)?.slice(0, 600) ?? String(err);
}

/** A request the SDK cannot (or would refuse to) produce: bad values, bad JSON, wrong media type, huge bodies. */
export interface RawRequest {
  method?: string;
  /** Concrete path; default: the operation's template filled from pathParams. */
  path?: string;
  pathParams?: Record<string, string | number>;
  query?: Record<string, string | number>;
  headers?: Record<string, string>;
  token?: string;
  /** Sent as JSON (Content-Type application/json unless contentType is given). */
  body?: unknown;
  /** Sent as is. */
  rawBody?: string | Uint8Array<ArrayBuffer>;
  contentType?: string;
}

export function fillPath(op: SpecOperation, params: Record<string, string | number>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (params[name] === undefined) throw new Error(`${op.operationId}: no value for path parameter ${name}`);
    return encodeURIComponent(String(params[name]));
  });
}

export async function callRaw(baseUrl: string, operationId: string, req: RawRequest = {}, expected: Expected = {}): Promise<Checked> {
  const op = operationById(operationId);
  if (!op) throw new Error(`no operation ${operationId}`);
  const url = new URL(req.path ?? fillPath(op, req.pathParams ?? {}), baseUrl);
  for (const [k, v] of Object.entries(req.query ?? {})) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { ...req.headers };
  if (req.token !== undefined) headers.authorization = `Bearer ${req.token}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined = req.rawBody;
  if (body === undefined && req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] = 'application/json';
  }
  if (req.contentType !== undefined) headers['content-type'] = req.contentType;
  const response = await fetch(url, { method: req.method ?? op.method, headers, body });
  return checkResponse(operationId, response, await response.text(), expected);
}

// ---------------------------------------------------------------- the service under test

export interface ContractService {
  baseUrl: string;
  operatorToken: string;
  db: TestDatabase;
  process: ServiceProcess;
  client(opts?: { token?: string; allowNotBuilt?: boolean }): ContractClient;
  call(operationId: string, req?: RawRequest, expected?: Expected): Promise<Checked>;
  /** SIGTERM, wait for the exit code, drop the database. */
  stop(): Promise<number | null>;
}

/**
 * Against another deployment (QA: staging, a partner's sandbox): CONTRACT_BASE_URL names it and
 * CONTRACT_OPERATOR_TOKEN is its OPERATOR_TOKEN. No service or database is started then, and only the test
 * files that need neither settings of their own nor the database run (vitest.config.ts, REMOTE_CONTRACT_FILES).
 */
export const REMOTE_BASE_URL = process.env.CONTRACT_BASE_URL?.replace(/\/+$/, '') || undefined;

export const newOperatorToken = () => (REMOTE_BASE_URL ? remoteOperatorToken() : `contract-operator-${randomBytes(12).toString('hex')}`);

function remoteOperatorToken(): string {
  const token = process.env.CONTRACT_OPERATOR_TOKEN;
  if (!token) throw new Error("CONTRACT_BASE_URL is set: set CONTRACT_OPERATOR_TOKEN to that deployment's OPERATOR_TOKEN too");
  return token;
}

function remoteService(): ContractService {
  const baseUrl = REMOTE_BASE_URL!;
  const local = (what: string) => () => {
    throw new Error(`${what} needs a service started by the test; this file cannot run against CONTRACT_BASE_URL`);
  };
  return {
    baseUrl,
    operatorToken: remoteOperatorToken(),
    get db(): TestDatabase {
      return local('the database')();
    },
    get process(): ServiceProcess {
      return local('the service process')();
    },
    client: (opts) => createContractClient(baseUrl, opts),
    call: (operationId, req, expected) => callRaw(baseUrl, operationId, req, expected),
    stop: async () => 0,
  };
}

/**
 * Boots the real service on port 0 with a database of its own; one per test file. `role: 'api'` starts the
 * API without the workers (src/main.ts --role=api): no background job of the service can touch what the
 * test itself decides, e.g. the resolution of a market window.
 */
export async function startContractService(
  label: string,
  opts: { env?: Record<string, string>; operatorToken?: string; role?: 'all' | 'api' } = {},
): Promise<ContractService> {
  if (REMOTE_BASE_URL) return remoteService();
  const operatorToken = opts.operatorToken ?? newOperatorToken();
  const db = await createTestDatabase(label);
  let proc: ServiceProcess;
  try {
    proc = await startServiceProcess({
      env: {
        DATABASE_URL: db.url,
        REDIS_URL: TEST_REDIS_URL,
        QUEUE_PREFIX: uniquePrefix(label),
        OPERATOR_TOKEN: operatorToken,
        // info, not warn: startServiceProcess waits for the "listening" line, which is logged at info.
        LOG_LEVEL: 'info',
        PORT: '0',
        HOST: '127.0.0.1',
        ...opts.env,
      },
      args: opts.role ? [`--role=${opts.role}`] : [],
    });
  } catch (err) {
    await db.drop();
    throw err;
  }
  const baseUrl = proc.baseUrl;
  return {
    baseUrl,
    operatorToken,
    db,
    process: proc,
    client: (opts) => createContractClient(baseUrl, opts),
    call: (operationId, req, expected) => callRaw(baseUrl, operationId, req, expected),
    async stop() {
      try {
        return await proc.stop('SIGTERM');
      } finally {
        await db.drop();
      }
    },
  };
}
