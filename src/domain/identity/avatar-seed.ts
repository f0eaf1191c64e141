import { createHash } from 'node:crypto';

/**
 * Deterministic seed for generated avatars: the first 4 bytes of SHA-256(user id) as a signed
 * big-endian int32. Clients may rely on it never changing for a user.
 */
export function avatarSeed(userId: string): number {
  return createHash('sha256').update(userId.toLowerCase(), 'utf8').digest().readInt32BE(0);
}
