// Client messages by type (spec/asyncapi.yaml): the gateway provides one handler per client message
// type, so a client message added to the AsyncAPI document is a compile error until it is handled.
import type { ClientMessage, ClientMessageType } from '../../generated/asyncapi/types.js';
import type { ParsedFrame } from './protocol.js';

/**
 * What the handler of type T receives: the message validated against its schema, except `auth_response`,
 * which arrives with only its type checked: its field errors are `auth_result` failures, checked in order
 * by the handshake (spec/asyncapi.yaml "Errors").
 */
export type Received<T extends ClientMessageType> = T extends 'auth_response'
  ? Record<string, unknown>
  : Extract<ClientMessage, { type: T }>;

export type ClientMessageHandlers<C> = { [T in ClientMessageType]: (c: C, m: Received<T>) => Promise<void> | void };

/** Hands a parsed frame (not an error) to the handler of its type. */
export function dispatchClientMessage<C>(
  handlers: ClientMessageHandlers<C>,
  c: C,
  parsed: Extract<ParsedFrame, { kind: 'message' | 'auth_response' }>,
): Promise<void> | void {
  if (parsed.kind === 'auth_response') return handlers.auth_response(c, parsed.frame);
  // TypeScript cannot pair a union member with its own key of the map; `type` selects exactly that handler.
  const handler = handlers[parsed.message.type] as (c: C, m: ClientMessage) => Promise<void> | void;
  return handler(c, parsed.message);
}
