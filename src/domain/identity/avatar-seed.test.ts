import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { avatarSeed } from './avatar-seed.js';

describe('avatarSeed', () => {
  it('is the first four bytes of SHA-256(user id) read as a signed big-endian int32', () => {
    const id = '9b2e4f1a-6c3d-4e8f-a1b2-c3d4e5f60718';
    const digest = createHash('sha256').update(id).digest();
    const expected = (digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]! | 0;
    expect(avatarSeed(id)).toBe(expected);
  });

  it('is stable for a user, whatever the letter case of the id', () => {
    const id = '4d5e6f70-8192-4a3b-9c4d-5e6f708192a3';
    expect(avatarSeed(id)).toBe(avatarSeed(id));
    expect(avatarSeed(id.toUpperCase())).toBe(avatarSeed(id));
  });

  it('always fits a signed int32 and takes both signs', () => {
    const seeds = Array.from({ length: 500 }, (_, i) => avatarSeed(`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`));
    for (const s of seeds) {
      expect(Number.isInteger(s)).toBe(true);
      expect(s).toBeGreaterThanOrEqual(-(2 ** 31));
      expect(s).toBeLessThanOrEqual(2 ** 31 - 1);
    }
    expect(seeds.some((s) => s < 0)).toBe(true);
    expect(seeds.some((s) => s > 0)).toBe(true);
    expect(new Set(seeds).size).toBeGreaterThan(495);
  });
});
