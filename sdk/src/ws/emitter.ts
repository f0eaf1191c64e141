// A small typed event emitter (no dependency on Node's EventEmitter types, so the package's declarations
// type-check without @types/node).
export type Listener<V> = (value: V) => void;

export class TypedEmitter<Events extends Record<string, unknown>> {
  readonly #listeners = new Map<keyof Events, Set<Listener<never>>>();
  readonly #onceWrappers = new WeakMap<Listener<never>, Listener<never>>();

  on<E extends keyof Events>(event: E, listener: Listener<Events[E]>): this {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as Listener<never>);
    return this;
  }

  once<E extends keyof Events>(event: E, listener: Listener<Events[E]>): this {
    const wrapped: Listener<Events[E]> = (value) => {
      this.off(event, wrapped);
      listener(value);
    };
    this.#onceWrappers.set(listener as Listener<never>, wrapped as Listener<never>);
    return this.on(event, wrapped);
  }

  off<E extends keyof Events>(event: E, listener: Listener<Events[E]>): this {
    const set = this.#listeners.get(event);
    set?.delete(listener as Listener<never>);
    const wrapped = this.#onceWrappers.get(listener as Listener<never>);
    if (wrapped) set?.delete(wrapped);
    return this;
  }

  /** The next `event`, or a rejection after `timeoutMs`. */
  nextEvent<E extends keyof Events>(event: E, timeoutMs: number): Promise<Events[E]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => (this.off(event, on), reject(new Error(`no ${String(event)} within ${timeoutMs} ms`))), timeoutMs);
      const on = (m: Events[E]) => (clearTimeout(timer), this.off(event, on), resolve(m));
      this.on(event, on);
    });
  }

  protected emit<E extends keyof Events>(event: E, value: Events[E]): void {
    for (const listener of [...(this.#listeners.get(event) ?? [])]) (listener as Listener<Events[E]>)(value);
  }
}

/** Yields every value `listen` delivers, from now until one of `ends` is called (for `for await`). */
export async function* stream<V>(listen: (push: (v: V) => void) => () => void, ends: Set<() => void>): AsyncGenerator<V, void, undefined> {
  const queue: V[] = [];
  let ended = false;
  let wake: (() => void) | null = null;
  const unlisten = listen((v) => (queue.push(v), wake?.()));
  const onEnd = () => ((ended = true), wake?.());
  ends.add(onEnd);
  try {
    for (;;) {
      while (queue.length) yield queue.shift()!;
      if (ended) return;
      await new Promise<void>((r) => (wake = r));
      wake = null;
    }
  } finally {
    unlisten();
    ends.delete(onEnd);
  }
}
