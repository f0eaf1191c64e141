// GET /v1/admin/status: the whole-system view for operators (src/http/system-status.ts builds it).
import { NO_STORE, type HandlersFor } from '../handler.js';
import type { SystemStatusSource } from '../system-status.js';

export function systemStatusHandlers(source: SystemStatusSource): HandlersFor<'getSystemStatus'> {
  return {
    getSystemStatus: async () => ({ status: 200, body: await source.report(), headers: NO_STORE }),
  };
}
