// The development operator token of the embedded default: with no OPERATOR_TOKEN, outside production and
// on the embedded database only, the service keeps one in DATA_DIR/dev-operator-token (created once, 0600)
// and prints it at start-up, so that the operator walkthroughs of docs/getting-started.md work on a fresh `npm start`.
// Production never reads, prints or accepts it (production requires OPERATOR_TOKEN and a PostgreSQL URL).
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from '../../logger.js';

export const DEV_OPERATOR_TOKEN_FILE = 'dev-operator-token';

export interface DevOperatorSettings {
  nodeEnv: 'development' | 'test' | 'production';
  deployment: 'embedded' | 'postgres' | 'production';
  operatorToken: string | undefined;
  /** OPERATOR_TOKENS_FILE: when set, no development token is made. */
  operatorTokens?: unknown;
  dataDir: string;
}

/** Whether this process may use a development operator token: embedded, development, no OPERATOR_TOKEN(S_FILE). */
export function devOperatorTokenAllowed(s: DevOperatorSettings): boolean {
  return s.nodeEnv === 'development' && s.deployment === 'embedded' && s.operatorToken === undefined && s.operatorTokens === undefined;
}

/** Reads DATA_DIR/dev-operator-token, creating it on first use; `created` tells which. */
export function ensureDevOperatorToken(dataDir: string): { token: string; path: string; created: boolean } {
  const dir = resolve(dataDir);
  const path = join(dir, DEV_OPERATOR_TOKEN_FILE);
  try {
    const token = readFileSync(path, 'utf8').trim();
    if (/^[A-Za-z0-9._~+/-]{16,}$/.test(token)) return { token, path, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dir, { recursive: true });
  const token = `dev-operator-${randomBytes(24).toString('base64url')}`;
  writeFileSync(path, `${token}\n`, { mode: 0o600 }); // the DATA_DIR lock makes this process the only writer
  return { token, path, created: true };
}

/** OPERATOR_TOKEN, else on the embedded development default the development token (printed), else none. */
export function chooseOperatorToken(s: DevOperatorSettings, logger: Logger): string | undefined {
  if (s.operatorToken !== undefined || !devOperatorTokenAllowed(s)) return s.operatorToken;
  const dev = ensureDevOperatorToken(s.dataDir);
  logger.info(
    { token_file: dev.path, token_created: dev.created },
    `development operator token (embedded development default, OPERATOR_TOKEN unset; never in production): ${dev.token} ` +
      `-- use it with: export OPERATOR_TOKEN=$(cat ${dev.path})`,
  );
  return dev.token;
}
