// The per-frame cost of src/ws/inbound.ts does not grow with the frames waiting (issue 17 item 1: in a
// promise chain, each bad frame cost time proportional to the queue). Real parser, a stand-in socket.
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { describe, expect, it } from 'vitest';
import { receiveFrames, type InboundHooks } from './inbound.js';
import type { ParsedFrame } from './protocol.js';
import { JUNK_FRAME_BURST } from './limits.js';

function setup(limits = { framesPerSecond: 1e9, frameBurst: 1e9, maxQueuedFrames: 1e9, maxUnauthenticatedFrames: 1e9 }) {
  const ws = Object.assign(new EventEmitter(), {
    paused: false,
    pause() {
      ws.paused = true;
    },
    resume() {
      ws.paused = false;
    },
  });
  const handled: ParsedFrame[] = [];
  const refusals: string[] = [];
  let release: () => void = () => undefined;
  const hooks: InboundHooks = {
    authenticated: () => false,
    ending: () => refusals.length > 0,
    answerPong: () => false,
    handle: (f) => {
      handled.push(f);
      // an auth_response holds the queue until released, as a signature check on the database would
      if (f.kind === 'auth_response') return new Promise<void>((r) => (release = r));
    },
    refuse: (reason) => void refusals.push(reason),
    failed: (err) => {
      throw err;
    },
  };
  receiveFrames(ws as unknown as WebSocket, limits, hooks);
  const emit = (text: string) => ws.emit('message', Buffer.from(text), false);
  return { ws, emit, handled, refusals, release: () => release() };
}

const perFrameUs = (n: number, fn: () => void) => {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return ((performance.now() - t0) * 1000) / n;
};

const PONG = '{"type":"pong"}';

describe('receiveFrames', () => {
  it('frames cost the same with 3,000 or 38,000 waiting, and drain in order once the held frame completes', async () => {
    const s = setup();
    s.emit('{"type":"auth_response"}');
    perFrameUs(2_000, () => s.emit(PONG)); // warm-up
    const shallow = Math.min(...[1, 2, 3, 4, 5, 6].map(() => perFrameUs(500, () => s.emit(PONG))));
    perFrameUs(32_000, () => s.emit(PONG));
    const deep = Math.min(...[1, 2, 3, 4, 5, 6].map(() => perFrameUs(500, () => s.emit(PONG))));
    s.release();
    const t0 = performance.now();
    while (s.handled.length < 40_001) await new Promise((r) => setImmediate(r));
    const drainUs = ((performance.now() - t0) * 1000) / 40_000;
    console.log(
      `per frame: ${shallow.toFixed(2)} µs with 3,000-5,000 waiting, ${deep.toFixed(2)} µs with 37,000-39,000 waiting; drain ${drainUs.toFixed(2)} µs per frame`,
    );
    expect(s.handled).toHaveLength(40_001);
    expect(s.handled.slice(1).every((f) => f.kind === 'message' && f.message.type === 'pong')).toBe(true);
    // machines are noisy: loose bounds, still far below a cost that grows with the queue (~280 µs at 40,000)
    expect(deep).toBeLessThan(Math.max(5 * shallow, 60));
    expect(drainUs).toBeLessThan(50);
  });

  it('answers frames that find the queue full rate_limited in their turn and keeps reading; closes past the frame budget, junk and the pre-authentication count', async () => {
    const q = setup({ framesPerSecond: 1e9, frameBurst: 1e9, maxQueuedFrames: 3, maxUnauthenticatedFrames: 1e9 });
    q.emit('{"type":"auth_response"}');
    for (let i = 0; i < 10; i++) q.emit(PONG);
    expect(q.refusals).toEqual([]);
    q.release();
    while (q.handled.length < 11) await new Promise((r) => setImmediate(r));
    // in order: the 3 that found room, then the 7 that did not, each as a rate_limited answer of its frame
    expect(q.handled.slice(1).map((f) => f.kind)).toEqual([...Array(3).fill('message'), ...Array(7).fill('rate_limited')]);
    const r = setup({ framesPerSecond: 5, frameBurst: 250, maxQueuedFrames: 1e9, maxUnauthenticatedFrames: 1e9 });
    for (let i = 0; i < 260; i++) r.emit(PONG);
    expect(r.refusals).toEqual(['more than 250 frames at once or 5 per second']);
    expect(r.handled).toHaveLength(250);
    const j = setup();
    for (let i = 0; i < 100; i++) j.emit('x');
    expect(j.refusals).toEqual([`more than ${JUNK_FRAME_BURST} malformed frames`]);
    expect(j.handled).toHaveLength(JUNK_FRAME_BURST);
    const u = setup({ framesPerSecond: 1e9, frameBurst: 1e9, maxQueuedFrames: 1e9, maxUnauthenticatedFrames: 4 });
    for (let i = 0; i < 10; i++) u.emit('{"type":"auth"}');
    expect(u.refusals).toEqual(['more than 4 frames before authentication']);
    expect(u.handled).toHaveLength(4);
  });
});
