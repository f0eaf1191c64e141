// `npm run deposit:xpub`: DEPOSIT_XPUB for API processes (docs/settlement-custodial.md, "The deposit mnemonic"),
// the extended public key of m/44'/60'/<DEPOSIT_ACCOUNT_INDEX>'/0 of the deposit mnemonic, read from
// DEPOSIT_MNEMONIC_FILE (or DEPOSIT_MNEMONIC) and DEPOSIT_ACCOUNT_INDEX as the workers read them. Run it where the
// mnemonic already is (a worker host); prints the xpub (not a secret: it reveals the addresses, not the funds) and
// the first two addresses, to compare with the workers' ones. Writes no file.
import { readFileSync } from 'node:fs';
import { mnemonicProblem } from '../src/config/secrets.js';
import { depositXpubOf, parseDepositXpub, xpubDepositAddresses } from '../src/config/deposit-xpub.js';

const fail = (message: string): never => {
  process.stderr.write(`deposit-xpub: ${message}\n`);
  process.exit(64);
};
const file = process.env.DEPOSIT_MNEMONIC_FILE?.trim();
const inline = process.env.DEPOSIT_MNEMONIC?.trim();
if (file && inline) fail('DEPOSIT_MNEMONIC / DEPOSIT_MNEMONIC_FILE: set one, not both');
const mnemonic = (file ? readFileSync(file, 'utf8') : (inline ?? '')).trim().split(/\s+/).join(' ');
if (!mnemonic) fail('set DEPOSIT_MNEMONIC_FILE (or DEPOSIT_MNEMONIC) as the workers have it');
const bad = mnemonicProblem(mnemonic);
if (bad) fail(`DEPOSIT_MNEMONIC: ${bad} (the value is not shown)`);
const accountText = process.env.DEPOSIT_ACCOUNT_INDEX?.trim() || '0';
if (!/^\d{1,10}$/.test(accountText) || Number(accountText) >= 2 ** 31) fail('DEPOSIT_ACCOUNT_INDEX: must be a whole number below 2^31');
const account = Number(accountText);
const xpub = depositXpubOf(mnemonic, account);
// The addresses shown are derived as an API process derives them: from the xpub alone.
const parsed = parseDepositXpub(xpub, account);
if ('problem' in parsed) throw new Error(parsed.problem);
const at = xpubDepositAddresses(parsed.node);
process.stderr.write(`m/44'/60'/${account}'/0: address 1 is ${at(1n)}, address 2 is ${at(2n)}\n`);
process.stdout.write(`DEPOSIT_XPUB=${xpub}\n`);
