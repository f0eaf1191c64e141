// docs/configuration.md is the operator's one list of settings: every key src/config/schema.ts reads must
// have its row there (a key added to the schema without documentation fails here).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schema } from './schema.js';

describe('docs/configuration.md', () => {
  it('documents every environment variable the service reads', () => {
    const doc = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const documented = new Set([...doc.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
    const missing = Object.keys(schema.shape).filter((k) => !documented.has(k) && !documented.has(k.replace(/_FILE$/, '')));
    expect(missing).toEqual([]);
  });
});
