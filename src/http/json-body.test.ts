import { describe, expect, it } from 'vitest';
import { callerCopy, jsonPayload, preserialized, withCallerFields } from './json-body.js';

const text = (b: Buffer | string) => (typeof b === 'string' ? b : b.toString('utf8'));

describe('withCallerFields', () => {
  const tricky = ['plain', 'a "caller":null in a title', 'back\\slash\\', '"caller":null', 'üñí €', '\\"caller\\":null'];
  const lobby = () =>
    preserialized({
      contests: tricky.map((title, i) => ({ contest_id: `c${i}`, title, caller: null as null | { joined: boolean } })),
      next_cursor: null,
    });

  it('splices the caller fields into the page bytes: the same bytes JSON.stringify writes for the copy', () => {
    const page = lobby();
    const fields = page.contests.map((_, i) => ({ joined: i % 2 === 0 }));
    const copy = withCallerFields(
      page,
      { contests: page.contests.map((c, i) => ({ ...c, caller: fields[i]! })), next_cursor: null },
      fields,
    );
    const bytes = jsonPayload(copy);
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(text(bytes)).toBe(JSON.stringify(copy));
    // The page itself is untouched.
    expect(text(jsonPayload(page))).toBe(JSON.stringify(page));
    expect(page.contests.every((c) => c.caller === null)).toBe(true);
  });

  it('splices a nested caller object (leaderboard rows) at the top level', () => {
    const page = preserialized({ total_entries: 2, entries: [{ rank: 1, handle: '"caller":null' }], caller: null as unknown });
    const caller = { rows: [{ rank: 7, handle: 'me "quoted"' }] };
    const copy = withCallerFields(page, { ...page, caller }, [caller]);
    expect(text(jsonPayload(copy))).toBe(JSON.stringify(copy));
  });

  it('falls back to serializing the copy when the page has another number of caller fields, or no stored bytes', () => {
    const page = lobby();
    const copy = { ...page, extra: true };
    expect(withCallerFields(page, copy, [{ joined: true }])).toBe(copy);
    expect(jsonPayload(copy)).toBe(JSON.stringify(copy));
    const unserialized = { caller: null };
    const copy2 = { caller: { joined: true } };
    expect(jsonPayload(withCallerFields(unserialized, copy2, [copy2.caller]))).toBe(JSON.stringify(copy2));
  });
});

describe('callerCopy', () => {
  it('reuses the copy for the same caller value and page, and builds a new one when either changes', () => {
    const page = preserialized({ total_entries: 1, caller: null as unknown });
    const caller = { rows: [{ rank: 1 }] };
    let builds = 0;
    const build = (p: typeof page, c: object) => () => (builds++, { ...p, caller: c });
    const first = callerCopy(page, caller, build(page, caller));
    expect(callerCopy(page, caller, build(page, caller))).toBe(first);
    expect(builds).toBe(1);
    expect(text(jsonPayload(first))).toBe(JSON.stringify({ total_entries: 1, caller }));

    // The page was reloaded (another object): a new copy from the new page's bytes.
    const reloaded = preserialized({ total_entries: 2, caller: null as unknown });
    const second = callerCopy(reloaded, caller, build(reloaded, caller));
    expect(second).not.toBe(first);
    expect(text(jsonPayload(second))).toBe(JSON.stringify({ total_entries: 2, caller }));

    // Another caller value (another user, or the same user's fields reloaded) never gets this copy.
    const other = { rows: [] };
    const third = callerCopy(reloaded, other, build(reloaded, other));
    expect(text(jsonPayload(third))).toBe(JSON.stringify({ total_entries: 2, caller: other }));
    expect(builds).toBe(3);
  });
});
