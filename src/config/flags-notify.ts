// `tusk serve`'s bucket notification targets, declared once each (src/config/flag.ts); one
// --notify-KIND per target kind of src/notify, each target ID=URL, ARN arn:tusk:sqs:REGION:ID:KIND.

import type { TargetKind } from '../notify/config.js';
import { flag, type Flag, type FlagSection } from './flag.js';
import { list, parsePositive } from './values.js';

const targets = (help: string, doc: string): Flag<string[]> => flag({ arg: 'ID=URL[,…]', multiple: true, parse: list, help, doc });

/** One flag per target kind: the compiler checks that none is missing. */
const TARGET_FLAGS = {
  'notify-webhook': targets('POST each event as JSON to URL', 'bucket notification webhook targets (see *Bucket notifications*); ARN `arn:tusk:sqs:REGION:ID:webhook`'),
  'notify-redis': targets('RPUSH each event to the list redis://HOST:PORT/KEY', 'Redis targets: each event `RPUSH`ed to the list `redis://HOST:PORT/KEY`; ARN `arn:tusk:sqs:REGION:ID:redis`'),
  'notify-amqp': targets(
    'publish each event (persistent, confirmed) to RabbitMQ: amqp://USER:PASS@HOST:PORT/VHOST?exchange=X&routing_key=K [&exchange_type=fanout|direct|topic|headers]',
    'AMQP 0-9-1 (RabbitMQ) targets: `amqp://USER:PASS@HOST:PORT/VHOST?exchange=X&routing_key=K` (`exchange_type` `direct` unless given, `mandatory=false` to let the broker drop unroutable events); ARN `arn:tusk:sqs:REGION:ID:amqp`',
  ),
  'notify-nats': targets(
    'publish each event to nats://HOST:PORT/SUBJECT, acknowledged by JetStream with ?jetstream=true',
    'NATS targets: `nats://USER:PASS@HOST:PORT/SUBJECT`, `?jetstream=true` for JetStream-acknowledged publishing; ARN `…:ID:nats`',
  ),
  'notify-mqtt': targets('publish each event with QoS 1 to mqtt://HOST:PORT/TOPIC', 'MQTT targets: `mqtt://USER:PASS@HOST:PORT/TOPIC` (QoS 1); ARN `…:ID:mqtt`'),
  'notify-postgresql': targets(
    'write each event to a table: postgres://USER:PASS@HOST:PORT/DB?table=T [&format=namespace|access]',
    'PostgreSQL targets: `postgres://USER:PASS@HOST:PORT/DB?table=T&format=namespace` (default) or `format=access`; ARN `…:ID:postgresql`',
  ),
} satisfies Record<`notify-${TargetKind}`, Flag<string[]>>;

export const NOTIFY = {
  title: 'Bucket notifications (targets a NotificationConfiguration names as arn:tusk:sqs:REGION:ID:KIND):',
  flags: {
    ...TARGET_FLAGS,
    'notify-webhook-auth': flag({
      arg: 'ID=VALUE', multiple: true, parse: list,
      help: 'Authorization header sent to webhook ID (no , in VALUE)',
      doc: '`Authorization` header sent to webhook `ID` (no `,` in VALUE)',
    }),
    'notify-webhook-ca': flag({
      arg: 'ID=FILE', multiple: true, shown: 'system CAs', parse: list,
      help: "PEM CA certificates webhook ID's https URL is checked against",
      doc: "PEM CA certificates webhook `ID`'s `https` URL is checked against",
    }),
    'notify-queue-limit': flag({
      arg: 'N', default: '100000', parse: (v) => parsePositive(v, 'notify-queue-limit'),
      help: 'events a target may have pending; past it new events for that target are dropped, counted and logged',
      doc: 'events a target may have pending; past it, new events for that target are dropped (counted in `tusk_notify_dropped_total`, logged)',
    }),
  },
} satisfies FlagSection;
