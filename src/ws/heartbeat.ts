// One timer per process drives every connection's heartbeat (not one timer per connection): each tick
// either pings a connection or, when it already missed the allowed number of pongs, closes it.

export interface HeartbeatState {
  /** Pings sent since the last pong. */
  missedPongs: number;
}

/** What a tick does to one connection: after `maxMissed` unanswered pings, close instead of pinging. */
export function heartbeatAction(state: HeartbeatState, maxMissed: number): 'ping' | 'close' {
  return state.missedPongs >= maxMissed ? 'close' : 'ping';
}

/** Runs `tick` every `intervalMs`; a tick still running (a slow database) makes the next one skip. */
export function startTicker(intervalMs: number, tick: () => Promise<void> | void, onError: (err: unknown) => void): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    Promise.resolve()
      .then(tick)
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
