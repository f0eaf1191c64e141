// Named operator accounts: OPERATOR_TOKEN (the account `default`, or the development token on the embedded
// default) and the lines of OPERATOR_TOKENS_FILE, each a name and the SHA-256 of its token. The file is
// re-read every OPERATOR_TOKENS_RELOAD_MS: a changed file takes effect without a restart (add the new token,
// hand it out, remove the old line). A file that cannot be read or parsed is refused and the accounts in
// force stay, so a half-written file never locks every operator out (docs/operations.md).
import { readFile } from 'node:fs/promises';
import { timingSafeEqual } from 'node:crypto';
import { DEFAULT_OPERATOR_NAME, parseOperatorTokens, type OperatorTokenLine } from '../../config/operator-tokens.js';
import type { Logger } from '../../logger.js';
import { hashToken } from './sessions.js';

interface Account {
  name: string;
  digest: Buffer;
}

export interface OperatorAccountsSettings {
  /** OPERATOR_TOKEN or the development token, known as `default`. */
  token: string | undefined;
  /** OPERATOR_TOKENS_FILE as read at start-up. */
  file?: { file: string; accounts: OperatorTokenLine[]; reloadMs: number } | undefined;
}

export class OperatorAccounts {
  readonly #fixed: Account[];
  #fromFile: Account[];
  #lastText: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #reloading: Promise<void> | undefined;

  constructor(
    private readonly settings: OperatorAccountsSettings,
    private readonly log?: Logger,
  ) {
    this.#fixed = settings.token ? [{ name: DEFAULT_OPERATOR_NAME, digest: hashToken(settings.token) }] : [];
    this.#fromFile = toAccounts(settings.file?.accounts ?? []);
  }

  /** No OPERATOR_TOKEN and no file: the operator API is off (not merely without accounts). */
  get disabled(): boolean {
    return !this.settings.token && !this.settings.file;
  }

  names(): string[] {
    return [...this.#fixed, ...this.#fromFile].map((a) => a.name);
  }

  /** The account whose token hashes to `digest`, or null. Compares with every account in constant time each. */
  match(digest: Buffer): string | null {
    let found: string | null = null;
    for (const a of this.#fixed) if (timingSafeEqual(digest, a.digest)) found ??= a.name;
    for (const a of this.#fromFile) if (timingSafeEqual(digest, a.digest)) found ??= a.name;
    return found;
  }

  /** Re-reads the file now; resolves once applied or refused (never rejects). */
  reload(): Promise<void> {
    const file = this.settings.file?.file;
    if (!file) return Promise.resolve();
    this.#reloading ??= this.#reload(file).finally(() => (this.#reloading = undefined));
    return this.#reloading;
  }

  async #reload(file: string): Promise<void> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      this.log?.error({ err, file }, 'OPERATOR_TOKENS_FILE cannot be read; the operator accounts in force stay');
      return;
    }
    if (text === this.#lastText) return;
    this.#lastText = text;
    const parsed = parseOperatorTokens(
      text,
      this.#fixed.map((a) => a.name),
    );
    if (parsed.problems.length) {
      this.log?.error({ file, problems: parsed.problems }, 'OPERATOR_TOKENS_FILE refused; the operator accounts in force stay');
      return;
    }
    const next = toAccounts(parsed.accounts);
    const key = (list: Account[]) => list.map((a) => `${a.name} ${a.digest.toString('hex')}`).join('\n');
    if (key(next) === key(this.#fromFile)) return;
    const before = new Set(this.#fromFile.map((a) => a.name));
    this.#fromFile = next;
    const after = new Set(parsed.accounts.map((a) => a.name));
    this.log?.info(
      { file, accounts: [...after], added: [...after].filter((n) => !before.has(n)), removed: [...before].filter((n) => !after.has(n)) },
      'operator accounts re-read from OPERATOR_TOKENS_FILE',
    );
  }

  /** Re-reads the file every reloadMs until stop(). */
  start(): this {
    const every = this.settings.file?.reloadMs;
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

function toAccounts(lines: OperatorTokenLine[]): Account[] {
  return lines.map((l) => ({ name: l.name, digest: Buffer.from(l.sha256, 'hex') }));
}
