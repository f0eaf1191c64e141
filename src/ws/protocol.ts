// Frames in and out: classifying a client frame (spec/asyncapi.yaml "Errors"), and serializing server
// messages, each checked against the AsyncAPI schema outside production.
import { clientMessageTypes, validateClientMessage, validateServerMessage } from '../../generated/asyncapi/validators.js';
import type { ClientMessage, ErrorMessage, QuoteAckMessage, ServerMessage } from '../../generated/asyncapi/types.js';
import { quoteAck } from '../domain/rfq/api.js';

export type ParsedFrame =
  | { kind: 'message'; message: ClientMessage }
  /** type auth_response with any fields: its field errors are auth_result failures, checked in order later. */
  | { kind: 'auth_response'; frame: Record<string, unknown> }
  /** A `quote` or `quote_cancel` with a string rfq_id whose other fields break the schema: answered by its quote_ack. */
  | {
      kind: 'quote_refused';
      type: 'quote' | 'quote_cancel';
      rfqId: string;
      clientQuoteId: string | null;
      error: NonNullable<QuoteAckMessage['error']>;
    }
  | { kind: 'error'; code: ErrorMessage['code']; message: string }
  /** A frame refused for its rate (src/ws/inbound.ts): answered `rate_limited` in its turn, nothing else done. */
  | { kind: 'rate_limited'; frame: ParsedFrame; why: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The quote_ack error of a quote whose field at `path` breaks the schema (spec/asyncapi.yaml QuoteAckMessage):
 * the specific code where there is one, so the maker can tell a bad value from a broken frame.
 */
function quoteFieldError(type: 'quote' | 'quote_cancel', path: string): NonNullable<QuoteAckMessage['error']> {
  if (type === 'quote_cancel') return 'quote_not_live';
  if (path === '/rfq_id') return 'unknown_rfq';
  if (path === '/odds_bps' || path === '/max_fill_micros' || path === '/signature') return 'invalid_odds';
  if (path === '/valid_until_ms') return 'quote_expired';
  return 'malformed_quote';
}

export function parseClientFrame(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): ParsedFrame {
  if (isBinary)
    return { kind: 'error', code: 'malformed_message', message: 'binary frames are not used: send one JSON object per text frame' };
  const text = Buffer.isBuffer(data)
    ? data.toString('utf8')
    : Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.from(data).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'error', code: 'malformed_message', message: 'frame is not a JSON object' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'error', code: 'malformed_message', message: 'frame is not a JSON object' };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { kind: 'error', code: 'malformed_message', message: 'frame has no string field "type"' };
  if (type === 'auth_response') return { kind: 'auth_response', frame: value as Record<string, unknown> };
  if (!(clientMessageTypes as readonly string[]).includes(type)) {
    return { kind: 'error', code: 'unknown_message_type', message: `unknown message type: ${type.slice(0, 64)}` };
  }
  if (!validateClientMessage(value)) {
    const first = validateClientMessage.errors?.[0];
    const { rfq_id: rfqId, client_quote_id: cqid } = value as { rfq_id?: unknown; client_quote_id?: unknown };
    if ((type === 'quote' || type === 'quote_cancel') && typeof rfqId === 'string' && rfqId.length <= 64) {
      const clientQuoteId = type === 'quote' && typeof cqid === 'string' && UUID.test(cqid) ? cqid.toLowerCase() : null;
      return { kind: 'quote_refused', type, rfqId, clientQuoteId, error: quoteFieldError(type, first?.instancePath ?? '') };
    }
    const where = first ? `${first.instancePath || '/'} ${first.message ?? ''}`.trim() : 'does not match its schema';
    return { kind: 'error', code: 'malformed_message', message: `${type} message: ${where}` };
  }
  return { kind: 'message', message: value };
}

/** The `error` frame (spec/asyncapi.yaml ErrorMessage): every site that answers one builds it here. */
export const errorFrame = (code: ErrorMessage['code'], message: string): ErrorMessage => ({ type: 'error', code, message });

/** The `error` not_authenticated answer to a frame that needs a session (`what`: the frame's type). */
export const notAuthenticatedFrame = (what: string): ErrorMessage =>
  errorFrame('not_authenticated', `authenticate (auth, auth_response) before ${what}`);

/** JSON of a server message; outside production a message that breaks the AsyncAPI schema throws. */
export function serializeServerMessage(msg: ServerMessage, checkSchema: boolean): string {
  if (checkSchema && !validateServerMessage(msg)) {
    throw new Error(`server message does not match spec/asyncapi.yaml: ${JSON.stringify(validateServerMessage.errors)}`);
  }
  return JSON.stringify(msg);
}

/**
 * The answer to a frame refused for its rate (spec/asyncapi.yaml "Frame limits"): a quote or quote_cancel
 * gets its `quote_ack` `rate_limited` (with its ids, so the maker can correlate it), anything else `error`
 * `rate_limited`. Nothing of the frame was acted on.
 */
export function rateLimitedAnswer(frame: ParsedFrame, why: string): ServerMessage {
  const quote =
    frame.kind === 'quote_refused'
      ? { rfqId: frame.rfqId, clientQuoteId: frame.clientQuoteId }
      : frame.kind === 'message' && (frame.message.type === 'quote' || frame.message.type === 'quote_cancel')
        ? { rfqId: frame.message.rfq_id, clientQuoteId: frame.message.type === 'quote' ? (frame.message.client_quote_id ?? null) : null }
        : null;
  if (!quote) return errorFrame('rate_limited', why);
  return quoteAck(quote.rfqId, quote.clientQuoteId, { error: 'rate_limited' });
}
