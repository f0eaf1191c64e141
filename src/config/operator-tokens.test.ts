import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseOperatorTokens } from './operator-tokens.js';
import { ConfigError, loadConfig } from './load.js';

const sha = (token: string) => createHash('sha256').update(token).digest('hex');
const file = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), 'optokens-')), 'operators');
  writeFileSync(path, text);
  return path;
};

describe('OPERATOR_TOKENS_FILE', () => {
  it('parses names and hashes, ignoring comments and blank lines; accepts the sha256: prefix and upper-case hex', () => {
    const text = `# operators\n\nalice ${sha('a-token')}\nbob   sha256:${sha('b-token').toUpperCase()}  # on call\n`;
    expect(parseOperatorTokens(text)).toEqual({
      accounts: [
        { name: 'alice', sha256: sha('a-token') },
        { name: 'bob', sha256: sha('b-token') },
      ],
      problems: [],
    });
  });

  it('names every bad line: a token instead of its hash, a bad name, duplicates, the reserved name of OPERATOR_TOKEN', () => {
    const text = [
      `alice not-a-hash-but-a-token`,
      `-bad ${sha('x')}`,
      `carol ${sha('c')}`,
      `Carol ${sha('d')}`,
      `dave ${sha('c')}`,
      `default ${sha('e')}`,
      `eve`,
    ].join('\n');
    const { problems } = parseOperatorTokens(text, ['default']);
    expect(problems).toEqual([
      expect.stringMatching(/^line 1: the hash must be the 64 hex digits/),
      expect.stringMatching(/^line 2: the name must be/),
      expect.stringMatching(/^line 4: the name Carol is used twice/),
      expect.stringMatching(/^line 5: the same token hash is listed twice/),
      expect.stringMatching(/^line 6: the name default is used twice \(it is the name of OPERATOR_TOKEN\)/),
      expect.stringMatching(/^line 7: expected "<name> <sha256 hex>", found 1 field/),
    ]);
  });

  it('is read at start-up: a missing or bad file stops the start, naming the file and the line', () => {
    const bad = file(`alice ${sha('a')}\nbob nothex\n`);
    expect(() => loadConfig({ OPERATOR_TOKENS_FILE: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ OPERATOR_TOKENS_FILE: bad })).toThrow(`OPERATOR_TOKENS_FILE: ${bad} line 2: the hash must be`);
    expect(() => loadConfig({ OPERATOR_TOKENS_FILE: '/nonexistent/operators' })).toThrow(
      /OPERATOR_TOKENS_FILE: cannot read \/nonexistent\/operators \(ENOENT\)/,
    );
    const good = file(`alice ${sha('a')}\n`);
    expect(loadConfig({ OPERATOR_TOKENS_FILE: good, OPERATOR_TOKENS_RELOAD_MS: '250' }).operatorTokens).toEqual({
      file: good,
      accounts: [{ name: 'alice', sha256: sha('a') }],
      reloadMs: 250,
    });
  });

  it('production takes OPERATOR_TOKENS_FILE instead of OPERATOR_TOKEN', () => {
    const prod = { NODE_ENV: 'production', DATABASE_URL: 'postgres://x/y' };
    expect(() => loadConfig(prod)).toThrow(/OPERATOR_TOKEN \/ OPERATOR_TOKENS_FILE: one is required/);
    expect(() => loadConfig({ ...prod, OPERATOR_TOKENS_FILE: file(`alice ${sha('a')}\n`) })).not.toThrow(/OPERATOR_TOKEN/);
  });
});
