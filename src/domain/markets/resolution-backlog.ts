// How late RFQ windows resolve (docs/deployment.md, "Time to resolve"): windows with open positions whose
// end is more than RESOLUTION_OVERDUE_AFTER_MS ago and that have no outcome yet (nor a dispute), the oldest
// one's end, and the DISPUTED windows waiting for the operator. GET /v1/admin/status and the
// crfq_windows_overdue, crfq_window_resolution_lag_seconds and crfq_windows_disputed gauges report it.
import type { Em } from '../../db/orm.js';
import { repos } from '../../db/repos.js';

export interface ResolutionBacklog {
  overdue: number;
  oldestOverdueEndMs: number | null;
  disputed: number;
}

export async function resolutionBacklog(em: Em, nowMs: number, overdueAfterMs: number): Promise<ResolutionBacklog> {
  const r = await repos(em).priceSources.resolutionBacklog(nowMs - overdueAfterMs);
  return { overdue: r.overdue, oldestOverdueEndMs: r.oldestEndMs, disputed: r.disputed };
}
