import type { Random } from './random.js';

/**
 * Keys that exist on the endpoint and may be read. A key being read is never handed out for deletion, so a
 * mixed run does not count its own races (GET of a key it is deleting) as endpoint errors.
 */
export class Population {
  private readonly keys: string[] = [];
  private readonly position = new Map<string, number>();
  private readonly readers = new Map<string, number>();

  get size(): number {
    return this.keys.length;
  }

  add(key: string): void {
    if (this.position.has(key)) return;
    this.position.set(key, this.keys.length);
    this.keys.push(key);
  }

  /** A random key, marked as being read until release(). */
  borrow(random: Random): string | undefined {
    if (this.keys.length === 0) return undefined;
    const key = this.keys[Math.floor(random() * this.keys.length)]!;
    this.readers.set(key, (this.readers.get(key) ?? 0) + 1);
    return key;
  }

  release(key: string): void {
    const n = (this.readers.get(key) ?? 1) - 1;
    if (n > 0) this.readers.set(key, n);
    else this.readers.delete(key);
  }

  /** Removes and returns a random key nobody is reading (a few tries), or undefined. */
  takeForDelete(random: Random): string | undefined {
    for (let attempt = 0; attempt < 8 && this.keys.length > 0; attempt++) {
      const key = this.keys[Math.floor(random() * this.keys.length)]!;
      if (!this.readers.has(key)) {
        this.remove(key);
        return key;
      }
    }
    return undefined;
  }

  private remove(key: string): void {
    const at = this.position.get(key);
    if (at === undefined) return;
    const last = this.keys.pop()!;
    if (last !== key) {
      this.keys[at] = last;
      this.position.set(last, at);
    }
    this.position.delete(key);
  }
}
