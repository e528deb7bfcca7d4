/**
 * A first-come, first-served async mutex. The SQLite engine holds one per file (shared by every
 * connection to that file in the process) so that at most one transaction is open at a time,
 * even when its callback awaits: no caller can see another's uncommitted rows, and no
 * synchronous wait for SQLite's write lock can block the event loop while the holder is parked
 * on a microtask.
 *
 * Acquiring a free gate is synchronous ({@link AsyncGate.tryEnter}), so an uncontended
 * transaction pays no extra turn of the event loop.
 */
export class AsyncGate {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  /** True while someone holds the gate. */
  get held(): boolean {
    return this.#held;
  }

  /** Takes the gate when it is free; false (and nothing changed) when it is held. */
  tryEnter(): boolean {
    if (this.#held) return false;
    this.#held = true;
    return true;
  }

  /** Resolves once the caller holds the gate (callers are served in the order they asked). */
  enter(): Promise<void> {
    if (this.tryEnter()) return Promise.resolve();
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Hands the gate to the next waiter, or frees it. */
  leave(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

interface SharedGate {
  readonly gate: AsyncGate;
  users: number;
}

const GATES = new Map<string, SharedGate>();

/** The gate of a file (by its canonical path), shared by every connection to it in this process. */
export function gateOf(key: string): AsyncGate {
  let entry = GATES.get(key);
  if (!entry) {
    entry = { gate: new AsyncGate(), users: 0 };
    GATES.set(key, entry);
  }
  entry.users++;
  return entry.gate;
}

/** Gives back a gate taken with {@link gateOf}; the last user's release forgets it. */
export function releaseGate(key: string): void {
  const entry = GATES.get(key);
  if (!entry) return;
  entry.users--;
  if (entry.users <= 0) GATES.delete(key);
}
