// Which Privy app verifies identity tokens: the configured one; in production with PRIVY_* unset none (Privy
// sign-in is off: wallets sign in with SIWE); elsewhere with PRIVY_* unset the development identity whose key
// pair lives in DATA_DIR/dev-privy (tokens minted by `npm run dev:token`; SETTLEMENT_MODE=onchain refuses it
// unless ALLOW_DEV_IDENTITY_ONCHAIN=true: src/config/chain.ts).
import type { Logger } from '../../logger.js';
import { DEV_PRIVY_APP_ID } from './dev-identity.js';
import { ensureDevKeyPair } from './dev-keys.js';
import { createPrivyVerifier, type PrivyVerifier } from './privy-token.js';

export interface PrivySettings {
  appId: string | undefined;
  verificationKey: string | undefined;
  production: boolean;
  /** DATA_DIR: where the development key pair is kept. */
  dataDir: string;
}

export async function choosePrivyVerifier(settings: PrivySettings, logger: Logger): Promise<PrivyVerifier | undefined> {
  const { appId, verificationKey } = settings;
  if (appId && verificationKey) return createPrivyVerifier(appId, verificationKey);
  if (settings.production) {
    logger.info('Privy sign-in is off (PRIVY_APP_ID/PRIVY_VERIFICATION_KEY unset): wallets sign in with SIWE (POST /v1/auth/wallet)');
    return undefined;
  }
  const dev = await ensureDevKeyPair(settings.dataDir);
  logger.info(
    { privy_app_id: DEV_PRIVY_APP_ID, key_dir: dev.dir, key_created: dev.created },
    `development identity: PRIVY_APP_ID/PRIVY_VERIFICATION_KEY unset, so Privy tokens are verified against the development key in ${dev.dir}; ` +
      'mint one with: npm run -s dev:token -- --wallet 0x<address>',
  );
  return createPrivyVerifier(DEV_PRIVY_APP_ID, dev.publicKeyPem);
}
