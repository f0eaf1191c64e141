// Takes the credentials out of URLs before text is stored, logged or shown (docs/prices.md, "Failures"). A
// price source's or a chain's endpoint can carry a key in its user info (https://user:key@host), its query
// string (?apikey=, ACCESS_TOKEN=) or its path (Alchemy's /v2/<key>, Infura's /v3/<key>, a provider's
// /<token>/hermes): what survives is the scheme and the host, never the rest. Base floor: imports nothing of
// src/, so the chain code and the price sources use the same scrubber.

const URL_IN_TEXT = /\b([a-z][a-z0-9+.-]*):\/\/[^\s"'<>`)\]]+/gi;

/** `https://host[:port]/…` for any absolute URL: user info, path, query string and fragment removed. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = u.pathname.length > 1 || u.search || u.hash ? '/…' : '';
    return `${u.protocol}//${u.host}${rest}`;
  } catch {
    // Not a URL the WHATWG parser accepts: keep only what precedes the first character that could start a secret.
    const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@\s]*@)?([^/?#\s]*)/i.exec(url);
    return m ? `${m[1]}${m[3]}/…` : '…';
  }
}

/** `text` with every absolute URL in it reduced by redactUrl (error messages of fetch, viem, pg...). */
export function redactUrls(text: string): string {
  return text.replace(URL_IN_TEXT, (u) => redactUrl(u));
}
