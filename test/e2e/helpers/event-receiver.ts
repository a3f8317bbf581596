// An HTTP receiver of bucket notification webhooks for the tests: keeps every JSON body POSTed to
// it, in arrival order; can go down (stops listening, refusing connections) and come back on the
// same port.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EventRecord {
  eventVersion: string;
  eventSource: string;
  awsRegion: string;
  eventTime: string;
  eventName: string;
  userIdentity: { principalId: string };
  requestParameters: { sourceIPAddress: string };
  responseElements: Record<string, string>;
  s3: {
    s3SchemaVersion: string;
    configurationId: string;
    bucket: { name: string; ownerIdentity: { principalId: string }; arn: string };
    object: { key: string; size?: number; eTag?: string; versionId?: string; sequencer: string };
  };
}

export interface Received {
  path: string;
  authorization?: string;
  body: { Records?: EventRecord[]; Event?: string; EventName?: string; Key?: string; Bucket?: string };
}

export interface EventReceiver {
  readonly port: number;
  readonly url: string;
  readonly received: Received[];
  /** the event records received so far, in arrival order */
  records(): EventRecord[];
  down(): Promise<void>;
  up(): Promise<void>;
  /** Resolves once `test` holds of what arrived (polled), or rejects after `timeoutMs`. */
  waitFor(test: (r: EventReceiver) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startEventReceiver(): Promise<EventReceiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const self: EventReceiver = {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    records: () => received.flatMap((r) => r.body.Records ?? []),
    async down() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
    async up() {
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    async waitFor(test, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      while (!test(self)) {
        if (Date.now() > until) throw new Error(`timed out; received so far:\n${JSON.stringify(received.map((r) => r.body), null, 1).slice(0, 4000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return self;
}
