// The onchain settlement's two secrets (src/config/chain.ts): SETTLEMENT_PRIVATE_KEY and DEPOSIT_MNEMONIC, each
// given inline or as a *_FILE path. A secret lives in a Secret, whose JSON, string and inspect forms are
// `[redacted]`: logging the config never shows it, and no problem message quotes a secret's value. Reads no environment.
import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';
import { english } from 'viem/accounts';
import type { Parsed } from './schema.js';

export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toJSON() {
    return '[redacted]';
  }
  toString() {
    return '[redacted]';
  }
  [inspect.custom]() {
    return '[redacted]';
  }
}

const WORDS = new Set(english);

/** Null when the phrase is 12-24 words of the BIP-39 English list (the checksum is left to derivation). */
export function mnemonicProblem(m: string): string | null {
  const words = m.trim().split(/\s+/);
  if (![12, 15, 18, 21, 24].includes(words.length)) return 'must be a BIP-39 phrase of 12, 15, 18, 21 or 24 words';
  if (words.some((w) => !WORDS.has(w))) return 'holds a word outside the BIP-39 English list';
  return null;
}

/** A secret from KEY or KEY_FILE (not both); the problem names the key, never the value. */
export function secretOf(
  e: Parsed,
  key: 'SETTLEMENT_PRIVATE_KEY' | 'DEPOSIT_MNEMONIC',
  problems: string[],
  read: (path: string) => string,
) {
  const inline = e[key];
  const file = e[`${key}_FILE`];
  if (inline !== undefined && file !== undefined) {
    problems.push(`${key} / ${key}_FILE: set one, not both`);
    return undefined;
  }
  if (file === undefined) return inline?.trim();
  try {
    return read(file).trim();
  } catch (err) {
    problems.push(`${key}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
}

export const readSecretFile = (path: string) => readFileSync(path, 'utf8');
