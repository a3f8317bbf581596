// The Redis target (ioredis): each message is RPUSHed to the list named by the URL's path
// (redis://HOST:PORT/KEY), as MinIO's Redis target in its "access" format. While Redis is down,
// a send fails at once (no offline queue inside the client): the notifier retries with back-off.

import { Redis } from 'ioredis';
import type { TargetConfig } from './config.js';
import type { Target } from './target.js';

export function redisTarget(config: TargetConfig): Target {
  const url = new URL(config.url);
  const key = decodeURIComponent(url.pathname.slice(1));
  if (!key) throw new Error(`notify-redis: target ${config.id} names no list (redis://HOST:PORT/KEY)`);
  const client = new Redis({
    host: url.hostname,
    port: Number(url.port || 6379),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // reconnects are the notifier's back-off: the client tries again at most every second
    retryStrategy: () => 1000,
  });
  // a connection error is answered by the failed send; the client must not throw it as an event
  client.on('error', () => undefined);
  let connecting: Promise<void> | undefined;
  return {
    async send(message) {
      if (client.status === 'wait' || client.status === 'end') {
        connecting ??= client.connect().finally(() => (connecting = undefined));
        await connecting;
      }
      await client.rpush(key, message);
    },
    async close() {
      client.disconnect();
    },
  };
}
