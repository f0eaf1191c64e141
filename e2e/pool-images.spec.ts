// Contest images in a real browser: what the operator uploads and the per-category defaults must decode
// in Chromium (naturalWidth > 0), and a second visit must not download them again (immutable caching,
// ETag revalidation). The service runs as in the integration tests: real process, real PostgreSQL.
import { randomUUID } from 'node:crypto';
import { test, expect, type Page } from '@playwright/test';
import { createTestDatabase, dropQueuePrefixes, TEST_REDIS_URL, uniquePrefix, type TestDatabase } from '../src/testing/postgres.js';
import { startServiceProcess, type ServiceProcess } from '../src/testing/service-process.js';
import { CATEGORIES, defaultImageId, encodePng } from '../src/domain/contests/images.js';

const OPERATOR_TOKEN = `e2e-operator-${randomUUID()}`;
let db: TestDatabase;
let svc: ServiceProcess;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  db = await createTestDatabase('e2eimages');
  svc = await startServiceProcess({
    env: {
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: uniquePrefix('e2eimages'),
      RATE_LIMIT_PER_MINUTE: '0',
      OPERATOR_TOKEN,
    },
  });
});

test.afterAll(async () => {
  await svc?.stop();
  await db?.drop();
  await dropQueuePrefixes();
});

async function upload(bytes: Uint8Array, contentType: string): Promise<string> {
  const res = await fetch(`${svc.baseUrl}/v1/admin/pool-images`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${OPERATOR_TOKEN}`, 'Content-Type': contentType },
    body: new Uint8Array(bytes),
  });
  const body = (await res.json()) as { image_id: string };
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.image_id;
}

/** A JPEG or WebP as Chromium's own encoder writes it: 24x16. */
async function encodeInBrowser(page: Page, type: 'image/jpeg' | 'image/webp'): Promise<Buffer> {
  const dataUrl = await page.evaluate((t) => {
    const canvas = document.createElement('canvas');
    canvas.width = 24;
    canvas.height = 16;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = '#1e90ff';
    ctx.fillRect(0, 0, 24, 16);
    ctx.fillStyle = '#ffd700';
    ctx.fillRect(6, 4, 12, 8);
    return canvas.toDataURL(t);
  }, type);
  expect(dataUrl.startsWith(`data:${type};base64,`), 'Chromium encodes the type').toBe(true);
  return Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
}

/** Renders the gallery on a page of the service's origin and returns each image's decoded width. */
async function showGallery(page: Page, ids: string[]): Promise<Record<string, number>> {
  await page.goto(`${svc.baseUrl}/healthz`);
  const html = ids.map((id) => `<img data-id="${id}" src="/v1/pool-images/${id}/raw">`).join('\n');
  await page.setContent(`<!doctype html><title>gallery</title><body>${html}</body>`, { waitUntil: 'load' });
  return page.evaluate(() =>
    Object.fromEntries(Array.from(document.images, (img) => [img.dataset.id!, img.complete ? img.naturalWidth : -1])),
  );
}

/** Image responses the service logged (one "request" line per response). */
const imageRequests = () =>
  svc.logs
    .filter((l) => l.msg === 'request' && typeof l.path === 'string' && l.path.startsWith('/v1/pool-images/'))
    .map((l) => ({ path: l.path as string, status: l.status as number }));

test('uploaded PNG, JPEG and WebP and the category defaults decode in Chromium; a second visit comes from the cache', async ({ page }) => {
  const png = await upload(
    encodePng(48, 32, (x, y) => [x * 5, y * 7, 180]),
    'image/png',
  );
  await page.goto(`${svc.baseUrl}/healthz`);
  const jpeg = await upload(await encodeInBrowser(page, 'image/jpeg'), 'image/jpeg');
  const webp = await upload(await encodeInBrowser(page, 'image/webp'), 'image/webp');
  const defaults = CATEGORIES.map(defaultImageId);
  const ids = [png, jpeg, webp, ...defaults];

  const widths = await showGallery(page, ids);
  expect(widths).toEqual({ [png]: 48, [jpeg]: 24, [webp]: 24, ...Object.fromEntries(defaults.map((id) => [id, 64])) });
  await expect.poll(() => imageRequests().filter((r) => r.status === 200).length).toBe(ids.length);

  // Second visit, new page in the same browser context: everything still decodes, and the service sees
  // no new download (answers straight from the HTTP cache, or at most 304 revalidations).
  const seen = imageRequests().length;
  const again = await page.context().newPage();
  expect(await showGallery(again, ids)).toEqual(widths);
  await again.waitForTimeout(300); // let any request the browser did send reach the service's log
  const secondVisit = imageRequests().slice(seen);
  expect(secondVisit.filter((r) => r.status !== 304)).toEqual([]);

  // A forced revalidation sends the cached ETag: the service answers 304 and the browser still has the bytes.
  const status = await again.evaluate(async (url) => {
    const res = await fetch(url, { cache: 'no-cache' });
    return `${res.status} ${(await res.arrayBuffer()).byteLength > 0}`;
  }, `/v1/pool-images/${png}/raw`);
  expect(status).toBe('200 true');
  await expect
    .poll(() =>
      imageRequests()
        .slice(seen)
        .some((r) => r.path === `/v1/pool-images/${png}/raw` && r.status === 304),
    )
    .toBe(true);
});
