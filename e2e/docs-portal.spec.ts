// The docs portal in a real browser: /docs renders every operation of spec/openapi.yaml (counted from the
// document), its try-it client calls the running service (anonymous and with a bearer session), and
// /docs/ws renders every message of spec/asyncapi.yaml with the signing example. Every request the pages
// make must stay on the service's own origin (no CDN, no fonts, no telemetry). Screenshots are kept in
// test-results/ as artifacts.
import { readFileSync } from 'node:fs';
import { test, expect, type Page, type TestInfo } from '@playwright/test';
import { parse } from 'yaml';
import { createTestDatabase, dropQueuePrefixes, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../src/testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../src/testing/service-process.js';
import { createTestPrivy, randomWallet, type TestPrivy } from '../src/testing/identity.js';

const spec = (file: string) => parse(readFileSync(new URL(`../spec/${file}`, import.meta.url), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- free-form YAML documents
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
/** Every operation of the OpenAPI document as Scalar names it in element ids: `<METHOD><path>`. */
const OPERATIONS: string[] = Object.entries(spec('openapi.yaml').paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
  METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()}${path}`),
);
const ASYNCAPI = spec('asyncapi.yaml');
const MESSAGES: string[] = Object.keys(ASYNCAPI.channels.marketMaker.messages);
const SIGNATURE = /signature\s+([0-9a-f]{130})/.exec(ASYNCAPI.info.description as string)![1]!;

let db: TestDatabase;
let svc: ServiceProcess;
let privy: TestPrivy;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  db = await createTestDatabase('e2edocs');
  privy = await createTestPrivy();
  svc = await startServiceProcess({
    env: {
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniquePrefix('e2edocs'),
      RATE_LIMIT_PER_MINUTE: '0',
      ...privy.env,
    },
  });
});

test.afterAll(async () => {
  await svc?.stop();
  await db?.drop();
  await dropQueuePrefixes();
});

/**
 * Records every request of the page that leaves the service's origin (127.0.0.1:<port>), and every load
 * the pages' Content-Security-Policy blocked (those never reach page.on('request')).
 */
function offOrigin(page: Page): string[] {
  const outside: string[] = [];
  const own = new URL(svc.baseUrl).origin;
  page.on('request', (req) => {
    const url = new URL(req.url());
    if (url.origin !== own && !['data:', 'blob:', 'about:'].includes(url.protocol)) outside.push(req.url());
  });
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) outside.push(`blocked by CSP: ${msg.text()}`);
  });
  return outside;
}

async function screenshot(page: Page, info: TestInfo, name: string): Promise<void> {
  const path = info.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: false });
  await info.attach(name, { path, contentType: 'image/png' });
}

/** Ids Scalar gives operation sections and sidebar entries end in `/<METHOD><path>`. */
const renderedOperations = (page: Page) =>
  page.evaluate((ops) => {
    const ids = Array.from(document.querySelectorAll('[id]'), (e) => e.id);
    return ops.filter((op) => ids.some((id) => id.endsWith(`/${op}`)));
  }, OPERATIONS);

test('/docs renders every operation of the OpenAPI document from this service only', async ({ page }, info) => {
  expect(OPERATIONS.length).toBeGreaterThan(30);
  const outside = offOrigin(page);
  await page.goto(`${svc.baseUrl}/docs`);
  await expect.poll(() => renderedOperations(page), { timeout: 45_000 }).toEqual(OPERATIONS);
  await expect(page.getByText(spec('openapi.yaml').info.title as string).first()).toBeVisible();
  await screenshot(page, info, 'docs');
  expect(outside).toEqual([]);
});

async function openTryIt(page: Page, op: string): Promise<void> {
  await page.goto(`${svc.baseUrl}/docs`);
  const section = page.locator(`[id$="/${op}"]`).first();
  await section.waitFor({ timeout: 45_000 });
  await section.scrollIntoViewIfNeeded();
  await section
    .getByRole('button', { name: /test request/i })
    .first()
    .click();
}

test('try-it: GET /v1/markets/current answers 200 in the page', async ({ page }, info) => {
  const outside = offOrigin(page);
  await openTryIt(page, 'GET/v1/markets/current');
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/markets/current');
  await page.getByRole('button', { name: /^send/i }).first().click();
  const response = await answered;
  expect(response.status()).toBe(200);
  expect(new URL(response.url()).origin).toBe(svc.baseUrl); // the served document names this instance
  await expect(page.getByText('200 OK').first()).toBeVisible();
  await expect(page.getByText('"market_id"').first()).toBeVisible();
  await screenshot(page, info, 'try-it-markets-current');
  expect(outside).toEqual([]);
});

test('try-it with bearer auth: a session token typed in the page reaches a protected route', async ({ page }, info) => {
  const wallet = randomWallet();
  const res = await fetch(`${svc.baseUrl}/v1/auth/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ privy_token: await privy.token(`did:privy:e2e${Date.now()}`, wallet.address) }),
  });
  const { session_token } = (await res.json()) as { session_token: string };
  expect(res.status).toBe(200);

  const outside = offOrigin(page);
  await openTryIt(page, 'GET/v1/user/available_balance');
  await page.getByPlaceholder('Token').first().fill(session_token);
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/user/available_balance');
  await page.getByRole('button', { name: /^send/i }).first().click();
  const response = await answered;
  expect(response.request().headers().authorization).toBe(`Bearer ${session_token}`);
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ available_micros: '0' });
  await screenshot(page, info, 'try-it-bearer');
  expect(outside).toEqual([]);
});

test('/docs/ws renders every message of the AsyncAPI document and the signing example', async ({ page }, info) => {
  expect(MESSAGES.length).toBeGreaterThan(5);
  const outside = offOrigin(page);
  await page.goto(`${svc.baseUrl}/docs/ws`);
  for (const name of MESSAGES) await expect(page.locator(`[id="message-${name}"]`)).toBeAttached({ timeout: 30_000 });
  await expect(page.locator('#worked-example')).toBeVisible();
  await expect(page.getByText(SIGNATURE).first()).toBeAttached();
  await expect(page.getByText(new URL(svc.baseUrl).host).first()).toBeAttached(); // the server is this instance
  await screenshot(page, info, 'docs-ws');
  await page.locator('#worked-example').scrollIntoViewIfNeeded();
  await screenshot(page, info, 'docs-ws-signing');
  expect(outside).toEqual([]);
});

/** Each operation of the AsyncAPI document with the wire name of its message (its heading on /docs/ws). */
const OPERATION_MESSAGES: Array<[string, string]> = Object.entries(
  ASYNCAPI.operations as Record<string, { messages: Array<{ $ref: string }> }>,
).map(([id, op]) => {
  const key = op.messages[0]!.$ref.split('/').pop()!;
  const ref = ASYNCAPI.channels.marketMaker.messages[key].$ref as string;
  return [id, ASYNCAPI.components.messages[ref.split('/').pop()!].name as string];
});

test('/docs/ws heads each operation with its message, shows no literal backtick, and /docs links it', async ({ page }, info) => {
  expect(OPERATION_MESSAGES.length).toBeGreaterThan(15);
  await page.goto(`${svc.baseUrl}/docs/ws`);
  for (const [id, name] of OPERATION_MESSAGES) {
    await expect(page.locator(`li[id$="-${id}"] h3 span.font-mono.text-base`)).toHaveText(name, { timeout: 30_000 });
  }
  await expect(page.getByText('fair odds less 5%').first()).toBeAttached();
  // The handshake's example address is this instance's, not localhost:3000.
  await expect(page.locator('#asyncapi code', { hasText: `ws://${new URL(svc.baseUrl).host}/v1/ws` }).first()).toBeAttached();
  const text = await page.locator('#asyncapi').innerText();
  expect(text).not.toContain('SEND /v1/ws');
  expect(text).not.toContain('`');
  // Nor drawn by CSS around inline code (the renderer's typography adds `::before`/`::after` backticks).
  const drawn = await page.evaluate(() =>
    Array.from(document.querySelectorAll('#asyncapi code')).flatMap((el) =>
      ['::before', '::after'].map((p) => getComputedStyle(el, p).content).filter((c) => c.includes('`')),
    ),
  );
  expect(drawn).toEqual([]);
  await screenshot(page, info, 'docs-ws-operations');
  await page.goto(`${svc.baseUrl}/docs`);
  await expect(page.locator('nav.portal-nav a[href$="/docs/ws"]')).toBeVisible();
});
