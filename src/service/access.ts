// Who a request is (src/service.ts): the operator accounts, the Privy verifier and the session cache, and the
// token resolver built on them.
import type { Runtime } from '../runtime.js';
import type { Em } from '../db/orm.js';
import { chooseOperatorToken } from '../domain/identity/dev-operator.js';
import { OperatorAccounts } from '../domain/identity/operator-accounts.js';
import { choosePrivyVerifier } from '../domain/identity/privy-setup.js';
import { createSessionCache } from '../http/session-cache.js';
import { createTokenResolver } from '../http/token-resolver.js';

export type Access = Awaited<ReturnType<typeof openAccess>>;

export async function openAccess(rt: Runtime, forkDb: () => Em) {
  const { config, logger } = rt;
  const operators = new OperatorAccounts({ token: chooseOperatorToken(config, logger), file: config.operatorTokens }, logger).start();
  if (operators.disabled)
    logger.warn(
      'operator API disabled: OPERATOR_TOKEN and OPERATOR_TOKENS_FILE are unset, so every /v1/admin request is refused (401); set one to enable it',
    );
  else logger.info({ operators: operators.names() }, 'operator accounts');
  const privy = await choosePrivyVerifier(
    { ...config.privy, production: config.nodeEnv === 'production', dataDir: config.dataDir },
    logger,
  );
  const sessions = createSessionCache(config.sessionCacheMs, rt.bus, logger);
  return { operators, privy, sessions, resolveToken: createTokenResolver(operators, forkDb, sessions) };
}
