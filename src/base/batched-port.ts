// Messages to another thread in batches: what is posted during one event-loop turn goes as one
// postMessage at its end. Each postMessage costs a structured clone and a wake-up of the receiving
// thread; the small-upload commits of a busy front end come many to a turn.

import type { MessagePort } from 'node:worker_threads';

export class BatchedPort<T> {
  private batch: T[] = [];

  constructor(private readonly port: MessagePort) {}

  post(message: T): void {
    if (this.batch.push(message) === 1) setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    const batch = this.batch;
    this.batch = [];
    this.port.postMessage(batch);
  };
}

/** The receiving end: `handle` each message of each batch, in order. */
export function onBatches<T>(port: MessagePort, handle: (message: T) => void): void {
  port.on('message', (batch: T[]) => {
    for (const message of batch) handle(message);
  });
}
