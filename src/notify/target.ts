// What the notifier needs of a destination: send one message (resolve once the destination has it),
// and close.

import type { TargetConfig } from './config.js';
import { webhookTarget } from './webhook.js';

export interface Target {
  send(message: string): Promise<void>;
  close(): Promise<void>;
}

export async function openTarget(config: TargetConfig): Promise<Target> {
  switch (config.kind) {
    case 'webhook':
      return webhookTarget(config);
    case 'redis':
      return (await import('./redis.js')).redisTarget(config);
  }
}
