// The signed-in user's preferences (public handle) and linked X account.
import type { Preferences } from '../../../generated/openapi/types.gen.js';
import { avatarSeed } from '../../domain/identity/avatar-seed.js';
import { getUser, type UserRecord } from '../../domain/identity/users.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { requireUser } from './principal.js';
import type { IdentityLifecycle } from '../../trading/identity-lifecycle.js';

export function toPreferences(u: UserRecord): Preferences {
  return {
    user_id: u.id,
    handle: u.handle,
    x_handle: u.xHandle,
    x_avatar_url: u.xAvatarUrl,
    avatar_seed: avatarSeed(u.id),
    address: u.walletAddress,
  };
}

/** `identity`: a new handle shows on leaderboards and top participants; setting one publishes `contests.changed`. */
export function usersHandlers(deps: {
  identity: Pick<IdentityLifecycle, 'setHandle'>;
}): HandlersFor<'getPreferences' | 'updatePreferences'> {
  return {
    getPreferences: async (_req, { db, auth }) => {
      const { userId } = requireUser(auth);
      return { status: 200, body: toPreferences(await getUser(db, userId)), headers: NO_STORE };
    },
    updatePreferences: async ({ body }, { db, auth }) => {
      const { userId } = requireUser(auth);
      const { handle } = body;
      const user = handle === undefined ? await getUser(db, userId) : await deps.identity.setHandle(db, userId, handle);
      return { status: 200, body: toPreferences(user), headers: NO_STORE };
    },
  };
}
