import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENDPOINT_KEY_FILE, loadOrCreateEndpointKey } from '../../../../src/publisher/service/endpoint-key-file.js';
import { KeyedLock } from '../../../../src/publisher/service/keyed-lock.js';

describe('KeyedLock', () => {
  it('runs tasks of one key in order, of different keys concurrently, and forgets idle keys', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    let releaseA!: () => void;
    const a1 = lock.run('a', async () => {
      events.push('a1 start');
      await new Promise<void>((resolve) => (releaseA = resolve));
      events.push('a1 end');
    });
    const a2 = lock.run('a', async () => events.push('a2'));
    const b = lock.run('b', async () => events.push('b'));
    await b;
    expect(events).toEqual(['a1 start', 'b']);
    releaseA();
    await Promise.all([a1, a2]);
    expect(events).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
    expect(lock.size).toBe(0);
    await expect(lock.run('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lock.run('a', async () => 7)).toBe(7);
  });
});

describe('default endpoint key', () => {
  it('is generated once, stored with mode 0600, and reused', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tusk-key-'));
    try {
      const first = loadOrCreateEndpointKey(dir);
      expect(first.generated).toBe(true);
      expect(first.key).toMatch(/^[0-9a-f]{32}$/);
      expect(fs.statSync(path.join(dir, ENDPOINT_KEY_FILE)).mode & 0o777).toBe(0o600);
      expect(loadOrCreateEndpointKey(dir)).toEqual({ key: first.key, generated: false });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
