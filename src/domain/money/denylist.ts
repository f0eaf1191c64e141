// WITHDRAWAL_DENYLIST_FILE in force (docs/operations.md, "Custody"): the addresses a withdrawal may not be sent
// to, re-read every WITHDRAWAL_DENYLIST_RELOAD_MS like the operator tokens file
// (src/domain/identity/operator-accounts.ts): a changed file takes effect without a restart; a file that cannot
// be read or parsed is refused (logged as an error) and the list in force stays, so a half-written file never
// empties the denylist.
import { readFile } from 'node:fs/promises';
import { parseDenylist } from '../../config/denylist.js';
import type { Logger } from '../../logger.js';

export interface DenylistSettings {
  file: string;
  /** As read at start-up, lower case. */
  addresses: readonly string[];
  reloadMs: number;
}

export class Denylist {
  #addresses: Set<string>;
  #lastText: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reloading: Promise<void> | undefined;

  constructor(
    private readonly settings: DenylistSettings | undefined,
    private readonly log?: Pick<Logger, 'info' | 'error'>,
  ) {
    this.#addresses = new Set(settings?.addresses ?? []);
  }

  /** Whether `address` (any case) is listed now. */
  has(address: string): boolean {
    return this.#addresses.has(address.toLowerCase());
  }

  get size(): number {
    return this.#addresses.size;
  }

  /** Re-reads the file now; resolves once applied or refused (never rejects). */
  reload(): Promise<void> {
    const file = this.settings?.file;
    if (!file) return Promise.resolve();
    this.#reloading ??= this.#reload(file).finally(() => (this.#reloading = undefined));
    return this.#reloading;
  }

  async #reload(file: string): Promise<void> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      this.log?.error({ err, file }, 'WITHDRAWAL_DENYLIST_FILE cannot be read; the denylist in force stays');
      return;
    }
    if (text === this.#lastText) return;
    this.#lastText = text;
    const parsed = parseDenylist(text);
    if (parsed.problems.length) {
      this.log?.error({ file, problems: parsed.problems }, 'WITHDRAWAL_DENYLIST_FILE refused; the denylist in force stays');
      return;
    }
    const next = new Set(parsed.addresses);
    const added = [...next].filter((a) => !this.#addresses.has(a)).length;
    const removed = [...this.#addresses].filter((a) => !next.has(a)).length;
    if (!added && !removed) return;
    this.#addresses = next;
    this.log?.info({ file, addresses: next.size, added, removed }, 'withdrawal denylist re-read from WITHDRAWAL_DENYLIST_FILE');
  }

  /** Re-reads the file every reloadMs until stop(). */
  start(): this {
    const every = this.settings?.reloadMs;
    if (every && !this.#timer) {
      this.#timer = setInterval(() => void this.reload(), every);
      this.#timer.unref();
    }
    return this;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
