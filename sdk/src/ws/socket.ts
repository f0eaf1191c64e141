// Closing a WebSocket the way the clients stop: a 1000 close, then cut off if the peer never answers it.
import type WebSocket from 'ws';

/** Resolves once `ws` closed after a 1000 close frame, or after `graceMs` (then the socket is terminated). */
export function closeSocket(ws: WebSocket, reason: string, graceMs = 2_000): Promise<void> {
  return new Promise<void>((resolve) => {
    ws.once('close', () => resolve());
    ws.close(1000, reason);
    setTimeout(() => (ws.terminate(), resolve()), graceMs).unref?.();
  });
}
