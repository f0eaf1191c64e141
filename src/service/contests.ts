// Contests and identity (src/service.ts): the public contest reads' page caches, and the lifecycles' steps,
// the only publishers of `contests.changed` and `sessions.changed`; the demo seed on start.
import type { Runtime } from '../runtime.js';
import type { Em } from '../db/orm.js';
import { onContestsChanged } from '../bus/contest-events.js';
import { CONTEST_PAGE_TTL_MS } from '../constants.js';
import { seedDemoOnStart } from '../domain/demo/seed.js';
import type { SettlementAdapter } from '../domain/settlement/adapter.js';
import { PageCache } from '../http/page-cache.js';
import { createContestLifecycle } from '../trading/contest-lifecycle.js';
import { createIdentityLifecycle } from '../trading/identity-lifecycle.js';
import type { Producers } from './producers.js';

export type Contests = Awaited<ReturnType<typeof openContests>>;

export async function openContests(rt: Runtime, forkDb: () => Em, producers: Producers, settlement: SettlementAdapter) {
  // The public contest reads' pages, dropped on `contests.changed` from any process (src/http/page-cache.ts).
  const caches = {
    pages: new PageCache({ ttlMs: CONTEST_PAGE_TTL_MS }),
    callers: new PageCache({ ttlMs: CONTEST_PAGE_TTL_MS, maxPages: 20_000 }),
  };
  onContestsChanged(rt.bus, (contestId) => (caches.pages.invalidate(contestId), caches.callers.invalidate(contestId)));
  const contests = createContestLifecycle({ forkDb, bus: rt.bus, resolution: producers.resolution, log: rt.logger });
  const identity = createIdentityLifecycle({ bus: rt.bus, contests });
  if (await seedDemoOnStart(rt.orm.em.fork(), settlement, rt.config, rt.logger)) await contests.allChanged();
  return { caches, contests, identity };
}
