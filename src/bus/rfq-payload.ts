// The one way back from a bus payload to a typed RFQ event (docs/trading.md, "The bus"). The publisher sends an
// RfqEvent (src/domain/rfq/events.ts) as JSON; what arrives is `unknown` (another process, maybe another
// version of the service), so each subscriber of rfq.open, rfq.closed and mm.event goes through rfqEventOf:
// the frame is checked against its spec/asyncapi.yaml schema (the generated validators) and must be a type the
// topic carries, the route and wallet their shape. A payload that fails is dropped by the caller (the bus is
// at most once; makers reconcile over HTTP).
import { validateServerMessage } from '../../generated/asyncapi/validators.js';
import type { RfqEvent } from '../domain/rfq/events.js';

/** The topics whose payload carries a server frame. */
export type FrameTopic = Extract<RfqEvent, { frame: unknown }>['topic'];
export type FrameEvent<T extends FrameTopic> = Extract<RfqEvent, { topic: T }>;
type FrameTypeOf<T extends FrameTopic> = FrameEvent<T>['frame']['type'];

/** The frame types each topic carries; `tsc` fails when this and RfqEvent disagree (both ways). */
const FRAME_TYPES = {
  'rfq.open': ['rfq'],
  'rfq.closed': ['rfq_closed'],
  'mm.event': ['quote_result', 'position_settled', 'mmp_status'],
} as const satisfies { [T in FrameTopic]: readonly FrameTypeOf<T>[] };
type Listed<T extends FrameTopic> = (typeof FRAME_TYPES)[T][number];
// Every frame type of an event is listed: a new mm.event frame in RfqEvent must be added above.
const everyTypeListed: { [T in FrameTopic]: [Exclude<FrameTypeOf<T>, Listed<T>>] extends [never] ? true : false } = {
  'rfq.open': true,
  'rfq.closed': true,
  'mm.event': true,
};
void everyTypeListed;

export type Checked<T extends FrameTopic> = { ok: true; event: FrameEvent<T> } | { ok: false; why: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isRoute = (v: unknown): boolean =>
  isObject(v) &&
  isStringArray(v.assets) &&
  Array.isArray(v.durations) &&
  v.durations.every((d) => typeof d === 'number') &&
  Array.isArray(v.legs) &&
  v.legs.every((l) => isObject(l) && typeof l.asset === 'string' && typeof l.duration_secs === 'number');

/** The payload of `topic` as its RfqEvent, or why it is not one. */
export function rfqEventOf<T extends FrameTopic>(topic: T, payload: unknown): Checked<T> {
  if (!isObject(payload)) return { ok: false, why: 'payload is not an object' };
  const frame = payload.frame;
  if (!validateServerMessage(frame)) {
    return { ok: false, why: `frame does not match spec/asyncapi.yaml: ${JSON.stringify(validateServerMessage.errors)}` };
  }
  if (!(FRAME_TYPES[topic] as readonly string[]).includes(frame.type)) return { ok: false, why: `a ${frame.type} frame on ${topic}` };
  if (topic === 'rfq.closed' && !isRoute(payload.route)) return { ok: false, why: 'rfq.closed without a route' };
  if (topic === 'mm.event' && typeof payload.wallet !== 'string') return { ok: false, why: 'mm.event without a wallet' };
  // Checked above: the frame against its schema and the topic, the route or wallet of the topics that have one.
  return { ok: true, event: { ...payload, topic, frame } as FrameEvent<T> };
}
