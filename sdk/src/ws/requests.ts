// Requests of one connection waiting for their answer (`subscribed` or `quote_ack`). The service answers a
// connection's frames one at a time, in order, so answers are matched to requests first in, first out, and
// an `error` while requests wait is the answer to the oldest one.
import WebSocket from 'ws';
import type { ServerMessage } from '../../../generated/asyncapi/types.ts';
import { MarketMakerRequestError } from './types.ts';

export type AnswerType = 'subscribed' | 'quote_ack' | 'mmp_status';

interface Pending {
  answer: AnswerType;
  resolve(m: ServerMessage): void;
  reject(err: Error): void;
}

export class PendingRequests {
  #pending: Pending[] = [];

  constructor(private readonly timeoutMs: number) {}

  /** Sends `message` on `ws` and resolves with its answer of type `answer` (or rejects on error/timeout). */
  send(ws: WebSocket | null, message: { type: string; [field: string]: unknown }, answer: AnswerType): Promise<ServerMessage> {
    if (!ws || ws.readyState !== WebSocket.OPEN)
      return Promise.reject(new Error(`cannot send ${message.type}: the connection is not open`));
    return new Promise((resolve, reject) => {
      const entry: Pending = {
        answer,
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
      const timer = setTimeout(() => {
        const i = this.#pending.indexOf(entry);
        if (i >= 0) this.#pending.splice(i, 1);
        reject(new Error(`no ${answer} for ${message.type} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.#pending.push(entry);
      ws.send(JSON.stringify(message));
    });
  }

  /** An answer frame: settles the oldest request if it waits for this type. */
  answer(frame: ServerMessage): void {
    const head = this.#pending[0];
    if (head?.answer === frame.type) {
      this.#pending.shift();
      head.resolve(frame);
    }
  }

  /** An `error` frame: the answer to the oldest waiting request. */
  error(code: string, message: string): void {
    this.#pending.shift()?.reject(new MarketMakerRequestError(code, `${code}: ${message}`));
  }

  /** The connection closed: every waiting request fails. */
  failAll(code: number): void {
    for (const p of this.#pending.splice(0)) p.reject(new Error(`the connection closed (${code}) before the answer`));
  }
}
