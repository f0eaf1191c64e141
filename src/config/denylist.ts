// The withdrawal denylist file (WITHDRAWAL_DENYLIST_FILE): one EVM address a line; blank lines and `#` comments
// are ignored. Read by src/config/load.ts at start-up (a bad file stops the start) and by
// src/domain/money/denylist.ts on every re-read (a bad file is then refused and the list in force stays), the way
// the operator tokens file is (src/config/operator-tokens.ts). Reads no environment.
import { isAddress } from 'viem';

/** Parses the file's text into lower-case addresses; `problems` names each bad line (1-based) and is empty when the file is good. */
export function parseDenylist(text: string): { addresses: string[]; problems: string[] } {
  const addresses = new Set<string>();
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) return;
    // A mixed-case address with a wrong EIP-55 checksum is a typo more often than not: refused, not guessed.
    if (!isAddress(line, { strict: true })) {
      problems.push(`line ${i + 1}: not an EVM address (0x and 40 hex digits; a mixed-case address must carry a valid EIP-55 checksum)`);
      return;
    }
    addresses.add(line.toLowerCase());
  });
  return { addresses: [...addresses], problems };
}
