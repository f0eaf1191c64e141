// Inbound frames of one market-maker connection, with a constant cost per frame whatever the sender does:
// each frame is checked against the frame budget (a burst, then a rate; junk frames have a smaller budget;
// before authentication a count), parsed at once, outside any promise, offered to `admit` (the quote
// budget), and queued in an array that one loop drains in order. The socket keeps being read meanwhile, so
// the budget is judged when a frame arrives: a frame past the quote budget, or one that finds
// MM_MAX_QUEUED_FRAMES frames waiting, is queued as a `rate_limited` answer, which costs no database work
// and goes out in its turn (answers stay in the order of the frames, as clients that match them first in,
// first out expect). The connection stays; only the frame budget, the junk budget, the pre-authentication
// count, or answers piling up past the frame burst close it with 1008.
//
// Why not a promise chain (`queue = queue.then(...)`): with thousands of frames queued, every error
// thrown inside a link (a JSON.parse failure) captured an async stack through all pending links, so the
// cost per bad frame grew with the queue: 40,000 bad frames stalled the whole process for 12 s.
import type { WebSocket } from 'ws';
import { FrameBudget, JUNK_FRAME_BURST, type FrameLimits } from './limits.js';
import { parseClientFrame, type ParsedFrame } from './protocol.js';

export interface InboundHooks {
  authenticated(): boolean;
  ending(): boolean;
  /** A valid pong: true when it answered an outstanding ping (handled at once, outside the budget). */
  answerPong(): boolean;
  /**
   * An authenticated connection's frame, at arrival: null to handle it, or why it is over budget (it is
   * then answered `rate_limited` in its turn, e.g. a quote past the connection's quote budget).
   */
  admit?(frame: ParsedFrame): string | null;
  /** Handles one parsed frame; frames are handled one at a time, in order. */
  handle(frame: ParsedFrame): Promise<void> | void;
  /** A bound was passed: close the connection with 1008 and this reason. */
  refuse(reason: string): void;
  /** `handle` threw. */
  failed(err: unknown): void;
}

/** Attaches the 'message' listener of one connection. */
/**
 * A parsed frame through the connection's budget: the frame to handle (possibly marked rate_limited by the
 * hooks' admit), null when it needs nothing more (a pong the heartbeat took), or why the connection is refused.
 */
function admitFrame(parse: () => ParsedFrame, budget: FrameBudget, limits: FrameLimits, hooks: InboundHooks): ParsedFrame | string | null {
  const now = Date.now();
  if (!budget.takeFrame(now)) {
    return `more than ${Math.max(limits.frameBurst, limits.framesPerSecond)} frames at once or ${limits.framesPerSecond} per second`;
  }
  const parsed = parse(); // after the frame budget: a flood is refused before it is parsed
  if (parsed.kind === 'error' && !budget.takeJunk(now)) return `more than ${JUNK_FRAME_BURST} malformed frames`;
  if (parsed.kind === 'message' && parsed.message.type === 'pong' && hooks.answerPong()) return null;
  const authenticated = hooks.authenticated();
  if (!authenticated && !budget.takeUnauthenticated()) return `more than ${limits.maxUnauthenticatedFrames} frames before authentication`;
  const over = authenticated && hooks.admit ? hooks.admit(parsed) : null;
  return over ? { kind: 'rate_limited', frame: parsed, why: over } : parsed;
}

export function receiveFrames(ws: WebSocket, limits: FrameLimits, hooks: InboundHooks): void {
  const budget = new FrameBudget(limits, Date.now());
  let pending: ParsedFrame[] = [];
  let head = 0; // next frame to handle (shift() would copy the array)
  let work = 0; // frames waiting that are not rate_limited answers (their handling may wait on the database)
  let draining = false;

  /** Closes 1008 and stops reading: the rest of a flood stays in the kernel's buffers and costs nothing. */
  const refuse = (reason: string) => {
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
    try {
      await inFlight;
      while (head < pending.length && !hooks.ending()) {
        const frame = pending[head++]!;
        if (frame.kind !== 'rate_limited') work -= 1;
        await run(frame);
        // Frames keep arriving while the queue drains: drop the handled ones now and then.
        if (head >= 1024) {
          pending = pending.slice(head);
          head = 0;
        }
      }
    } finally {
      pending = [];
      head = 0;
      work = 0;
      draining = false;
    }
  };

  ws.on('message', (data, isBinary) => {
    if (hooks.ending()) return; // closing: only the peer's close frame matters now
    const admitted = admitFrame(() => parseClientFrame(data, isBinary), budget, limits, hooks);
    if (admitted === null) return;
    if (typeof admitted === 'string') return refuse(admitted);
    let frame = admitted;
    if (draining) {
      if (frame.kind !== 'rate_limited') {
        if (work >= limits.maxQueuedFrames) {
          frame = {
            kind: 'rate_limited',
            frame,
            why: `more than ${limits.maxQueuedFrames} frames waiting on this connection: nothing was done`,
          };
        } else {
          work += 1;
        }
      }
      if (pending.length - head - work >= Math.max(limits.frameBurst, limits.framesPerSecond)) {
        return refuse(`more than ${Math.max(limits.frameBurst, limits.framesPerSecond)} answers waiting`);
      }
      pending.push(frame);
      return;
    }
    const inFlight = run(frame);
    if (inFlight) void drain(inFlight);
  });
}
