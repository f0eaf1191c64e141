// Inbound frames of one market-maker connection, with a constant cost per frame whatever the sender does:
// each frame is checked against the frame budget (rate, and before authentication a count), parsed at
// once, outside any promise, and queued in a bounded array that one loop drains in order (the socket is
// paused while it runs). A frame past a bound closes the connection with 1008.
//
// Why not a promise chain (`queue = queue.then(...)`): with thousands of frames queued, every error
// thrown inside a link (a JSON.parse failure) captured an async stack through all pending links, so the
// cost per bad frame grew with the queue: 40,000 bad frames stalled the whole process for 12 s.
import type { WebSocket } from 'ws';
import { FrameBudget, type FrameLimits } from './limits.js';
import { parseClientFrame, type ParsedFrame } from './protocol.js';

export interface InboundHooks {
  authenticated(): boolean;
  ending(): boolean;
  /** A valid pong: true when it answered an outstanding ping (handled at once, outside the budget). */
  answerPong(): boolean;
  /** Handles one parsed frame; frames are handled one at a time, in order. */
  handle(frame: ParsedFrame): Promise<void> | void;
  /** A bound was passed: close the connection with 1008 and this reason. */
  refuse(reason: string): void;
  /** `handle` threw. */
  failed(err: unknown): void;
}

/** Attaches the 'message' listener of one connection. */
export function receiveFrames(ws: WebSocket, limits: FrameLimits, hooks: InboundHooks): void {
  const budget = new FrameBudget(limits, Date.now());
  let pending: ParsedFrame[] = [];
  let head = 0; // next frame to handle (shift() would copy the array)
  let draining = false;
  let refused = false;

  /** Closes 1008 and stops reading: the rest of a flood stays in the kernel's buffers and costs nothing. */
  const refuse = (reason: string) => {
    refused = true;
    hooks.refuse(reason);
    ws.pause(); // the peer gets the close frame; the gateway cuts the socket off if it never answers
  };

  /** Runs the handler; a promise when it went asynchronous (then later frames wait for it). */
  const run = (frame: ParsedFrame): Promise<void> | null => {
    try {
      const result = hooks.handle(frame);
      return result ? result.catch(hooks.failed) : null;
    } catch (err) {
      hooks.failed(err);
      return null;
    }
  };

  const drain = async (inFlight: Promise<void>) => {
    draining = true;
    ws.pause(); // stop reading the socket until the queue drains
    try {
      await inFlight;
      while (head < pending.length && !hooks.ending()) await run(pending[head++]!);
    } finally {
      pending = [];
      head = 0;
      draining = false;
      if (!refused) ws.resume();
    }
  };

  ws.on('message', (data, isBinary) => {
    if (hooks.ending()) return; // closing: only the peer's close frame matters now
    if (!budget.takeFrame(Date.now())) return refuse(`more than ${limits.framesPerSecond} frames per second`);
    const frame = parseClientFrame(data, isBinary);
    if (frame.kind === 'message' && frame.message.type === 'pong' && hooks.answerPong()) return;
    if (!hooks.authenticated() && !budget.takeUnauthenticated()) {
      return refuse(`more than ${limits.maxUnauthenticatedFrames} frames before authentication`);
    }
    if (draining) {
      if (pending.length - head >= limits.maxQueuedFrames) return refuse(`more than ${limits.maxQueuedFrames} frames waiting`);
      pending.push(frame);
      return;
    }
    const inFlight = run(frame);
    if (inFlight) void drain(inFlight);
  });
}
