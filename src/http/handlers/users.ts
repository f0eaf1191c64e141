// The signed-in user's preferences (public handle) and linked X account.
import type { Orm } from '../../db/orm.js';
import type { Preferences, UpdatePreferencesRequest } from '../../../generated/openapi/types.gen.js';
import { avatarSeed } from '../../domain/identity/avatar-seed.js';
import { getUser, setHandle, type UserRecord } from '../../domain/identity/users.js';
import type { Handlers } from '../handler.js';
import { requireUser } from './principal.js';

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

export function usersHandlers(deps: { orm: Orm }): Handlers {
  const { orm } = deps;
  return {
    getPreferences: async (req) => {
      const { userId } = requireUser(req.auth);
      return { status: 200, body: toPreferences(await getUser(orm.em.fork(), userId)), headers: { 'Cache-Control': 'no-store' } };
    },
    updatePreferences: async (req) => {
      const { userId } = requireUser(req.auth);
      const { handle } = req.body as UpdatePreferencesRequest;
      const em = orm.em.fork();
      const user = handle === undefined ? await getUser(em, userId) : await setHandle(em, userId, handle);
      return { status: 200, body: toPreferences(user), headers: { 'Cache-Control': 'no-store' } };
    },
  };
}
