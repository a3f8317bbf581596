// The webhook target: each message is one POST of JSON; any 2xx answer is a delivery, anything
// else (or no answer in time) a failure to retry. A POST carries the events queued by the time it
// starts, up to WEBHOOK_BATCH (S3's event message is a `Records` array): one POST per event cost
// about as much server CPU as the PUT itself (bench/notify-overhead.mjs).

import http from 'node:http';
import https from 'node:https';
import type { TargetConfig } from './config.js';
import type { Target } from './target.js';

const TIMEOUT_MS = 10_000;
/** Most events one POST carries. */
export const WEBHOOK_BATCH = 100;

export function webhookTarget(config: TargetConfig): Target {
  const url = new URL(config.url);
  const secure = url.protocol === 'https:';
  const agent = secure ? new https.Agent({ keepAlive: true, ...(config.ca ? { ca: config.ca } : {}) }) : new http.Agent({ keepAlive: true });
  const request = secure ? https.request : http.request;
  return {
    batch: WEBHOOK_BATCH,
    send: (body) =>
      new Promise<void>((resolve, reject) => {
        const req = request(url, {
          method: 'POST',
          agent,
          timeout: TIMEOUT_MS,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            ...(config.auth ? { authorization: config.auth } : {}),
          },
        });
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve();
            else reject(new Error(`HTTP ${status}`));
          });
          res.on('error', reject);
        });
        req.on('timeout', () => req.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)));
        req.on('error', reject);
        req.end(body);
      }),
    close: async () => agent.destroy(),
  };
}
