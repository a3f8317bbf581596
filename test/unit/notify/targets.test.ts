// The broker targets' settings (src/notify/redis.ts, amqp.ts, nats.ts, mqtt.ts, postgresql.ts) are checked when
// the target is made, before any connection: a mistake refuses the start with a message naming the
// target (never its URL, which may hold a password); and the lazy connection every broker target
// uses drops a failed connection so the next send opens a new one.

import { describe, expect, it } from 'vitest';
import { parseNotifyTargets, targetOfArn, type TargetConfig } from '../../../src/notify/config.js';
import { LazyConnection, openTarget } from '../../../src/notify/target.js';

const target = (kind: TargetConfig['kind'], url: string): TargetConfig => ({ id: 't', kind, url });

describe('broker notification targets', () => {
  it('parses the four kinds by their URL schemes; the ARN names kind and ID', () => {
    const targets = parseNotifyTargets(
      {
        amqp: ['q=amqp://u:p@h:5672/?exchange=x&routing_key=k'],
        nats: ['n=nats://h:4222/subj'],
        mqtt: ['m=mqtt://h:1883/a/b'],
        postgresql: ['p=postgres://u@h/db?table=t'],
      },
      [],
      [],
    );
    expect(targets.map((t) => `${t.id}:${t.kind}`)).toEqual(['q:amqp', 'n:nats', 'm:mqtt', 'p:postgresql']);
    expect(targetOfArn('arn:tusk:sqs::p:postgresql', targets, 'us-east-1')?.id).toBe('p');
    expect(() => parseNotifyTargets({ mqtt: ['m=http://h/t'] }, [], [])).toThrow(/mqtt:/);
    expect(() => parseNotifyTargets({ postgresql: ['p=mysql://h/db'] }, [], [])).toThrow(/postgres:/);
  });

  it('refuses missing or bad settings without echoing the URL', async () => {
    const refused = async (t: TargetConfig, pattern: RegExp) => {
      const e = await openTarget(t).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(e?.message).toMatch(pattern);
      expect(e?.message).not.toContain('s3cret');
    };
    await refused(target('redis', 'redis://u:s3cret@h:6379/'), /target t names no list/);
    await refused(target('amqp', 'amqp://u:s3cret@h/'), /target t names neither an exchange nor a routing key/);
    await refused(target('amqp', 'amqp://u:s3cret@h/?exchange=x&exchange_type=bogus'), /exchange_type must be one of/);
    await refused(target('nats', 'nats://u:s3cret@h:4222'), /target t names no subject/);
    await refused(target('mqtt', 'mqtt://u:s3cret@h:1883/'), /target t names no topic/);
    await refused(target('postgresql', 'postgres://u:s3cret@h/db'), /target t needs \?table=NAME/);
    await refused(target('postgresql', 'postgres://u:s3cret@h/db?table=x;drop'), /needs \?table=NAME/);
    await refused(target('postgresql', 'postgres://u:s3cret@h/db?table=t&format=csv'), /format must be namespace or access/);
    // the settings are right: made, and nothing is connected until a send
    for (const t of [
      target('amqp', 'amqp://127.0.0.1:1/?exchange=x&routing_key=k'),
      target('nats', 'nats://127.0.0.1:1/s?jetstream=true'),
      target('mqtt', 'mqtt://127.0.0.1:1/a/b'),
      target('postgresql', 'postgres://u@127.0.0.1:1/db?table=t&format=access'),
    ]) {
      const made = await openTarget(t);
      await expect(made.send('{}')).rejects.toThrow();
      await made.close();
    }
  });

  it('a lazy connection: opened once, dropped and closed on a failed use or when lost, opened anew after', async () => {
    const opened: Array<{ n: number; ended: boolean; lose?: () => void }> = [];
    const lazy = new LazyConnection(
      async (lost) => {
        const c = { n: opened.length, ended: false, lose: lost };
        opened.push(c);
        return c;
      },
      (c) => void (c.ended = true),
    );
    expect(await lazy.use(async (c) => c.n)).toBe(0);
    expect(await lazy.use(async (c) => c.n)).toBe(0);
    await expect(lazy.use(async () => Promise.reject(new Error('broker said no')))).rejects.toThrow('broker said no');
    expect(await lazy.use(async (c) => c.n)).toBe(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(opened[0]!.ended).toBe(true);
    opened[1]!.lose!();
    expect(await lazy.use(async (c) => c.n)).toBe(2);
    await lazy.close();
    expect(opened[2]!.ended).toBe(true);
  });
});
