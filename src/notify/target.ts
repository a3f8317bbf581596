// What the notifier needs of a destination: send one message (resolve once the destination has it),
// how many events one message may carry, and close.

import type { TargetConfig } from './config.js';
import { webhookTarget } from './webhook.js';

export interface Target {
  send(message: string): Promise<void>;
  /** most events one message may carry (S3's `Records` array); one unless given */
  readonly batch?: number;
  close(): Promise<void>;
}

export async function openTarget(config: TargetConfig): Promise<Target> {
  switch (config.kind) {
    case 'webhook':
      return webhookTarget(config);
    case 'redis':
      return (await import('./redis.js')).redisTarget(config);
    case 'amqp':
      return (await import('./amqp.js')).amqpTarget(config);
    case 'nats':
      return (await import('./nats.js')).natsTarget(config);
    case 'mqtt':
      return (await import('./mqtt.js')).mqttTarget(config);
    case 'postgresql':
      return (await import('./postgresql.js')).postgresqlTarget(config);
  }
}

/**
 * A broker connection opened on first use and dropped on any failure, so that the notifier's
 * back-off is the only retry: a send while the broker is down fails at once (no client-side
 * buffering or reconnect loop that could hold a message the notifier believes undelivered).
 */
export class LazyConnection<C> {
  private current: Promise<C> | undefined;

  constructor(
    private readonly open: (lost: () => void) => Promise<C>,
    private readonly end: (connection: C) => Promise<unknown> | void,
  ) {}

  /** The open connection (opening it if needed). */
  get(): Promise<C> {
    if (!this.current) {
      const opening = this.open(() => {
        if (this.current === opening) this.drop();
      });
      this.current = opening;
      opening.catch(() => {
        if (this.current === opening) this.current = undefined;
      });
    }
    return this.current;
  }

  /** Runs `use` on the connection; a failure drops the connection (the next use opens a new one). */
  async use<T>(use: (connection: C) => Promise<T>): Promise<T> {
    const opening = this.get();
    try {
      return await use(await opening);
    } catch (e) {
      if (this.current === opening) this.drop();
      throw e;
    }
  }

  drop(): void {
    const was = this.current;
    this.current = undefined;
    void was?.then(
      (c) => Promise.resolve(this.end(c)).catch(() => undefined),
      () => undefined,
    );
  }

  async close(): Promise<void> {
    const was = this.current;
    this.current = undefined;
    const c = await was?.catch(() => undefined);
    if (c !== undefined) await Promise.resolve(this.end(c)).catch(() => undefined);
  }
}

/** A query parameter of a target URL, removed from it (the rest of the URL goes to the client library). */
export function takeParam(url: URL, name: string): string | undefined {
  const value = url.searchParams.get(name) ?? undefined;
  url.searchParams.delete(name);
  return value;
}

/** Rejects after `ms`: a broker that accepts a connection and never answers must not stall the queue. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
