// The operator accounts file (OPERATOR_TOKENS_FILE): one account per line, `<name> <sha256 of its token>`
// (64 hex digits, optionally prefixed `sha256:`); blank lines and `#` comments are ignored. Read by
// src/config/load.ts at start-up (a bad file stops the start) and by src/domain/identity/operator-accounts.ts on
// every re-read (a bad file is then refused and the accounts in force stay). Reads no environment.
import { readFileSync } from 'node:fs';

export interface OperatorTokenLine {
  name: string;
  /** Lowercase hex SHA-256 of the token. */
  sha256: string;
}

export const OPERATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
/** The account OPERATOR_TOKEN (or the development token) is known by. */
export const DEFAULT_OPERATOR_NAME = 'default';

/** Parses the file's text; `problems` names each bad line (1-based) and is empty when the file is good. */
export function parseOperatorTokens(text: string, reserved: readonly string[] = []): { accounts: OperatorTokenLine[]; problems: string[] } {
  const accounts: OperatorTokenLine[] = [];
  const problems: string[] = [];
  const names = new Set(reserved.map((n) => n.toLowerCase()));
  const hashes = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return;
    const at = `line ${i + 1}`;
    const parts = line.split(/\s+/);
    if (parts.length !== 2) return problems.push(`${at}: expected "<name> <sha256 hex>", found ${parts.length} field(s)`);
    const [name, hashField] = parts as [string, string];
    const sha256 = hashField.replace(/^sha256:/i, '').toLowerCase();
    if (!OPERATOR_NAME.test(name)) return problems.push(`${at}: the name must be 1-64 of [A-Za-z0-9._@-], starting with a letter or digit`);
    if (!/^[0-9a-f]{64}$/.test(sha256)) {
      return problems.push(
        `${at}: the hash must be the 64 hex digits of the token's SHA-256 (printf %s "$TOKEN" | sha256sum), not the token itself`,
      );
    }
    if (names.has(name.toLowerCase())) {
      return problems.push(`${at}: the name ${name} is used twice${reserved.includes(name) ? ' (it is the name of OPERATOR_TOKEN)' : ''}`);
    }
    if (hashes.has(sha256)) return problems.push(`${at}: the same token hash is listed twice`);
    names.add(name.toLowerCase());
    hashes.add(sha256);
    accounts.push({ name, sha256 });
  });
  return { accounts, problems };
}

/** OPERATOR_TOKENS_FILE at start-up: every bad line is a problem (the service does not start on a bad file). */
export function readOperatorTokens(file: string | undefined, hasDefault: boolean, problems: string[]) {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`OPERATOR_TOKENS_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    return undefined;
  }
  const parsed = parseOperatorTokens(text, hasDefault ? [DEFAULT_OPERATOR_NAME] : []);
  for (const p of parsed.problems) problems.push(`OPERATOR_TOKENS_FILE: ${file} ${p}`);
  return { file, accounts: parsed.accounts };
}
