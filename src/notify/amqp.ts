// The AMQP 0-9-1 target (amqplib; RabbitMQ), as MinIO's notify_amqp: each message is published to
// an exchange with a routing key, persistent (delivery mode 2), on a confirm channel, and a send
// resolves once the broker has confirmed it (publisher confirms), so a message the broker did not
// take is retried. amqp://USER:PASS@HOST:PORT/VHOST?exchange=X&routing_key=K[&exchange_type=T]:
// the exchange is declared (durable) on connect; with no exchange, the default one routes by the
// routing key to the queue of that name. Messages are mandatory (MinIO's `mandatory` default, on):
// one no queue takes is returned by the broker, and its send fails and is retried, so that events
// wait in Tusk until a consumer's queue is bound (?mandatory=false: the broker may drop them).

import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import type { TargetConfig } from './config.js';
import { LazyConnection, takeParam, withTimeout, type Target } from './target.js';

const EXCHANGE_TYPES = ['direct', 'fanout', 'topic', 'headers'];
const TIMEOUT_MS = 10_000;

export function amqpTarget(config: TargetConfig): Target {
  const url = new URL(config.url);
  const exchange = takeParam(url, 'exchange') ?? '';
  const routingKey = takeParam(url, 'routing_key') ?? '';
  const exchangeType = takeParam(url, 'exchange_type') ?? 'direct';
  const mandatory = takeParam(url, 'mandatory') !== 'false';
  /** messageIds the broker returned: a return comes before the confirm of the same message */
  const returned = new Set<string>();
  let sent = 0;
  if (!EXCHANGE_TYPES.includes(exchangeType)) throw new Error(`notify-amqp: exchange_type must be one of ${EXCHANGE_TYPES.join(', ')}, got '${exchangeType}'`);
  if (!exchange && !routingKey) throw new Error(`notify-amqp: target ${config.id} names neither an exchange nor a routing key (?exchange=X&routing_key=K)`);
  const connection = new LazyConnection<{ model: ChannelModel; channel: ConfirmChannel }>(
    async (lost) => {
      const connecting = connect(url.href, { timeout: TIMEOUT_MS });
      const model = await withTimeout(connecting, TIMEOUT_MS, 'amqp connect').catch((e: unknown) => {
        // a handshake that completes after the timeout must not leave its connection open
        void connecting.then((m) => m.close(), () => undefined);
        throw e;
      });
      // a closed connection or channel is answered by the failed send; it must not throw as an event
      model.on('error', () => undefined);
      model.on('close', lost);
      try {
        const channel = await model.createConfirmChannel();
        channel.on('error', () => undefined);
        channel.on('close', lost);
        channel.on('return', (m: { properties: { messageId?: string } }) => m.properties.messageId && returned.add(m.properties.messageId));
        if (exchange) await channel.assertExchange(exchange, exchangeType, { durable: true });
        return { model, channel };
      } catch (e) {
        await model.close().catch(() => undefined);
        throw e;
      }
    },
    ({ model }) => model.close(),
  );
  return {
    send: (message) =>
      connection.use(({ channel }) =>
        withTimeout(
          new Promise<void>((resolve, reject) => {
            const messageId = `tusk-${++sent}`;
            const options = { persistent: true, mandatory, messageId, contentType: 'application/json' };
            channel.publish(exchange, routingKey, Buffer.from(message), options, (err: unknown) => {
              if (err) return reject(err instanceof Error ? err : new Error('the broker refused the message (nack)'));
              if (returned.delete(messageId)) return reject(new Error(`no queue is bound to exchange '${exchange}' with routing key '${routingKey}'`));
              resolve();
            });
          }),
          TIMEOUT_MS,
          'amqp publish',
        ),
      ),
    close: () => connection.close(),
  };
}
