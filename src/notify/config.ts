// The notification targets an operator declares (--notify-webhook ID=URL and its kin): each is
// addressed in a bucket's NotificationConfiguration by the ARN `arn:tusk:sqs:<region>:<ID>:<kind>`,
// as MinIO's `arn:minio:sqs::<ID>:webhook`.

import { readFileSync } from 'node:fs';

export const TARGET_KINDS = ['webhook', 'redis', 'amqp', 'nats', 'mqtt', 'postgresql'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export interface TargetConfig {
  id: string;
  kind: TargetKind;
  /**
   * webhook: the URL events are POSTed to; redis: redis://HOST:PORT/LIST-KEY;
   * amqp: amqp://USER:PASS@HOST:PORT/VHOST?exchange=X&exchange_type=T&routing_key=K;
   * nats: nats://HOST:PORT/SUBJECT[?jetstream=true]; mqtt: mqtt://HOST:PORT/TOPIC;
   * postgresql: postgres://USER:PASS@HOST:PORT/DB?table=T[&format=namespace|access]
   */
  url: string;
  /** webhook: the Authorization header's value */
  auth?: string;
  /** webhook over https: PEM CA certificates to trust (instead of the system's) */
  ca?: string;
}

export interface NotifyConfig {
  targets: TargetConfig[];
  /** events a target may have pending; past it, new events for that target are dropped (counted, logged) */
  queueLimit: number;
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** `ID=VALUE` pairs; the value may hold '=' itself. */
function pairs(items: string[], what: string): Array<[string, string]> {
  return items.map((item) => {
    const eq = item.indexOf('=');
    const id = item.slice(0, eq);
    if (eq < 0 || !ID.test(id) || eq === item.length - 1) throw new Error(`${what}: expected ID=VALUE (ID of letters, digits, - and _), got '${item}'`);
    return [id, item.slice(eq + 1)];
  });
}

const SCHEMES: Record<TargetKind, readonly string[]> = {
  webhook: ['http:', 'https:'],
  redis: ['redis:', 'rediss:'],
  amqp: ['amqp:', 'amqps:'],
  nats: ['nats:', 'tls:'],
  mqtt: ['mqtt:', 'mqtts:'],
  postgresql: ['postgres:', 'postgresql:'],
};

/**
 * Targets from the settings' lists: `declared[kind]` holds `ID=URL` items, `auth` and `ca`
 * `ID=VALUE` items naming a webhook. An ID names one target of one kind.
 */
export function parseNotifyTargets(
  declared: Partial<Record<TargetKind, string[]>>,
  auth: string[],
  ca: string[],
): TargetConfig[] {
  const targets: TargetConfig[] = [];
  const byId = new Map<string, TargetConfig>();
  for (const kind of TARGET_KINDS) {
    for (const [id, url] of pairs(declared[kind] ?? [], `notify-${kind}`)) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new Error(`notify-${kind}: '${url}' is not a URL`);
      }
      if (!SCHEMES[kind].includes(parsed.protocol)) throw new Error(`notify-${kind}: '${url}' must start with ${SCHEMES[kind].join(' or ')}//`);
      if (byId.has(id)) throw new Error(`notify-${kind}: target ID '${id}' is declared twice`);
      const target: TargetConfig = { id, kind, url };
      byId.set(id, target);
      targets.push(target);
    }
  }
  const webhook = (id: string, what: string): TargetConfig => {
    const t = byId.get(id);
    if (!t || t.kind !== 'webhook') throw new Error(`${what}: no webhook target '${id}' (declare it with --notify-webhook)`);
    return t;
  };
  for (const [id, value] of pairs(auth, 'notify-webhook-auth')) webhook(id, 'notify-webhook-auth').auth = value;
  for (const [id, file] of pairs(ca, 'notify-webhook-ca')) {
    const t = webhook(id, 'notify-webhook-ca');
    try {
      t.ca = readFileSync(file, 'utf8');
    } catch (e) {
      throw new Error(`notify-webhook-ca: cannot read ${file}: ${(e as Error).message}`);
    }
  }
  return targets;
}

/** The ARN a NotificationConfiguration names `target` by. */
export function targetArn(target: Pick<TargetConfig, 'id' | 'kind'>, region: string): string {
  return `arn:tusk:sqs:${region}:${target.id}:${target.kind}`;
}

/** The declared target an ARN names (its region this server's or empty, as MinIO's), or undefined. */
export function targetOfArn(arn: string, targets: readonly TargetConfig[], region: string): TargetConfig | undefined {
  const m = /^arn:tusk:sqs:([^:]*):([^:]+):([^:]+)$/.exec(arn);
  if (!m || (m[1] !== '' && m[1] !== region)) return undefined;
  return targets.find((t) => t.id === m[2] && t.kind === m[3]);
}
