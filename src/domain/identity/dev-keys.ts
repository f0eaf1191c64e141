// The development identity key pair in DATA_DIR/dev-privy/ (private.pem, public.pem). The service
// verifies against it when PRIVY_* are unset outside production; `npm run dev:token` signs with it.
import { createPublicKey, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { exportPKCS8, generateKeyPair, importPKCS8, type CryptoKey } from 'jose';

export interface DevKeyPair {
  dir: string;
  privateKey: CryptoKey;
  publicKeyPem: string;
  created: boolean;
}

export function devKeyDir(dataDir: string): string {
  return resolve(dataDir, 'dev-privy');
}

/** Reads the development key pair, creating it on first use. Safe when several processes start at once. */
export async function ensureDevKeyPair(dataDir: string): Promise<DevKeyPair> {
  const dir = devKeyDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const privatePath = join(dir, 'private.pem');
  let created = false;
  let privatePem = readIfExists(privatePath);
  if (privatePem === undefined) {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const tmp = join(dir, `.private.${process.pid}.${randomBytes(4).toString('hex')}.pem`);
    writeFileSync(tmp, await exportPKCS8(privateKey), { mode: 0o600 });
    try {
      linkSync(tmp, privatePath); // atomic and exclusive: a concurrent creator's key wins, never half a file
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      unlinkSync(tmp);
    }
    privatePem = readFileSync(privatePath, 'utf8');
  }
  // The public key is derived from the private one, so the two files can never disagree.
  const publicKeyPem = createPublicKey(privatePem).export({ type: 'spki', format: 'pem' }).toString();
  const publicPath = join(dir, 'public.pem');
  if (readIfExists(publicPath) !== publicKeyPem) writeFileSync(publicPath, publicKeyPem, { mode: 0o644 });
  return { dir, privateKey: await importPKCS8(privatePem, 'ES256', { extractable: false }), publicKeyPem, created };
}

function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
