// `npm run operator:token -- NAME`: a new operator token for the account NAME, and the line that grants it
// in OPERATOR_TOKENS_FILE (docs/operations.md, "Operator accounts and rotation"). The token is printed once,
// on stderr; only its SHA-256 goes into the file. Reads and writes no file itself.
import { createHash, randomBytes } from 'node:crypto';
import { OPERATOR_NAME } from '../src/config/operator-tokens.js';

const name = process.argv[2];
if (!name || !OPERATOR_NAME.test(name)) {
  process.stderr.write('usage: npm run operator:token -- NAME   (NAME: 1-64 of [A-Za-z0-9._@-], starting with a letter or digit)\n');
  process.exit(64);
}
const token = `op_${randomBytes(32).toString('base64url')}`;
process.stderr.write(`token for ${name} (hand it to them; it is not stored anywhere): ${token}\n`);
process.stdout.write(`${name} ${createHash('sha256').update(token).digest('hex')}\n`);
