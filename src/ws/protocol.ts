// Frames in and out: classifying a client frame (spec/asyncapi.yaml "Errors"), and serializing server
// messages, each checked against the AsyncAPI schema outside production.
import { clientMessageTypes, validateClientMessage, validateServerMessage } from '../../generated/asyncapi/validators.js';
import type { ClientMessage, ErrorMessage, ServerMessage } from '../../generated/asyncapi/types.js';

export type ParsedFrame =
  | { kind: 'message'; message: ClientMessage }
  /** type auth_response with any fields: its field errors are auth_result failures, checked in order later. */
  | { kind: 'auth_response'; frame: Record<string, unknown> }
  | { kind: 'error'; code: ErrorMessage['code']; message: string };

export function parseClientFrame(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): ParsedFrame {
  if (isBinary) return { kind: 'error', code: 'malformed_message', message: 'binary frames are not used: send one JSON object per text frame' };
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
    const where = first ? `${first.instancePath || '/'} ${first.message ?? ''}`.trim() : 'does not match its schema';
    return { kind: 'error', code: 'malformed_message', message: `${type} message: ${where}` };
  }
  return { kind: 'message', message: value };
}

/** JSON of a server message; outside production a message that breaks the AsyncAPI schema throws. */
export function serializeServerMessage(msg: ServerMessage, checkSchema: boolean): string {
  if (checkSchema && !validateServerMessage(msg)) {
    throw new Error(`server message does not match spec/asyncapi.yaml: ${JSON.stringify(validateServerMessage.errors)}`);
  }
  return JSON.stringify(msg);
}
