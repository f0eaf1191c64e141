// The signed-in user's preferences (public handle) and linked X account.
import type { Preferences } from '../../../generated/openapi/types.gen.js';
import { avatarSeed } from '../../domain/identity/avatar-seed.js';
import { getUser, setHandle, type UserRecord } from '../../domain/identity/users.js';
import { NO_STORE, type HandlersFor } from '../handler.js';
import { requireUser } from './principal.js';
import type { Bus } from '../../bus/bus.js';
import { publishContestsChanged } from '../../bus/contest-events.js';

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

/** `bus`: a new handle shows on leaderboards and top participants, so setting one publishes `contests.changed`. */
export function usersHandlers(deps: { bus: Bus }): HandlersFor<'getPreferences' | 'updatePreferences'> {
  return {
    getPreferences: async (_req, { db, auth }) => {
      const { userId } = requireUser(auth);
      return { status: 200, body: toPreferences(await getUser(db, userId)), headers: NO_STORE };
    },
    updatePreferences: async ({ body }, { db, auth }) => {
      const { userId } = requireUser(auth);
      const { handle } = body;
      const user = handle === undefined ? await getUser(db, userId) : await setHandle(db, userId, handle);
      if (handle !== undefined) await publishContestsChanged(deps.bus, null);
      return { status: 200, body: toPreferences(user), headers: NO_STORE };
    },
  };
}
