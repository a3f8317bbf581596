import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { parseDuration, parseHostPort, parseSize } from '../../src/config/values.js';

describe('configuration: flags over TUSK_* environment over defaults', () => {
  it('has the embedded defaults', () => {
    const c = loadConfig([], {});
    expect(c.listen).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(c.region).toBe('us-east-1');
    expect(c.durability).toBe('strict');
    expect(c.domains).toEqual(['localhost']);
    expect(c.publisher).toMatchObject({ listen: { host: '127.0.0.1', port: 31415 }, nShards: 1000, endpointKeys: [], nodeUrls: [] });
    expect(c.publisher.maxBodyBytes).toBe(10 * 1024 * 1024);
    expect(c.publisher.epochLengthMs).toBe(86_400_000);
    expect(c.threads).toBe(availableParallelism());
  });

  it('publishes on the embedded network unless --network or TUSK_NETWORK names a Walrus one', () => {
    expect(loadConfig([], {}).publisher.network).toEqual({ kind: 'embedded' });
    expect(loadConfig([], { TUSK_NETWORK: 'mainnet', TUSK_WALLET: '/w/sui.keystore' }).publisher.network).toMatchObject({ kind: 'walrus', name: 'mainnet', walletPath: '/w/sui.keystore' });
    expect(loadConfig(['--network', 'testnet', '--sui-rpc', 'http://127.0.0.1:9'], { TUSK_NETWORK: 'mainnet' }).publisher.network).toMatchObject({ name: 'testnet', rpcUrl: 'http://127.0.0.1:9' });
    expect(() => loadConfig(['--wallet', '/w'], {})).toThrow(/need --network/);
  });

  it('renews WALRUS blobs every 10 min, 2 epochs ahead, with no budget unless set; max-epochs-ahead within 1-1000', () => {
    expect(loadConfig([], {}).walrusRenewal).toEqual({ intervalMs: 600_000, aheadEpochs: 2, maxFrostPerPass: undefined });
    expect(loadConfig(['--walrus-renew-max-wal', '5000000000', '--walrus-renew-ahead', '1', '--walrus-renew-interval', '30s'], {}).walrusRenewal).toEqual({ intervalMs: 30_000, aheadEpochs: 1, maxFrostPerPass: 5_000_000_000n });
    expect(() => loadConfig(['--walrus-renew-max-wal', '1.5'], {})).toThrow(/walrus-renew-max-wal/);
    expect(() => loadConfig(['--walrus-renew-ahead', '0'], {})).toThrow(/walrus-renew-ahead/);
    expect(loadConfig([], {}).publisher.maxEpochsAhead).toBe(53);
    expect(loadConfig(['--max-epochs-ahead', '1000'], {}).publisher.maxEpochsAhead).toBe(1000);
    expect(() => loadConfig(['--max-epochs-ahead', '1001'], {})).toThrow(/max-epochs-ahead/);
  });

  it('runs Walrus stores on 8 sub-wallets unless --sub-wallets or TUSK_SUB_WALLETS says how many (1-64)', () => {
    expect(loadConfig(['--network', 'testnet'], {}).publisher.network).toMatchObject({ subWallets: 8 });
    expect(loadConfig(['--network', 'testnet'], { TUSK_SUB_WALLETS: '3' }).publisher.network).toMatchObject({ subWallets: 3 });
    expect(loadConfig(['--network', 'testnet', '--sub-wallets', '64'], { TUSK_SUB_WALLETS: '3' }).publisher.network).toMatchObject({ subWallets: 64 });
    expect(() => loadConfig(['--network', 'testnet', '--sub-wallets', '0'], {})).toThrow("sub-wallets: expected a positive integer, got '0'");
    expect(() => loadConfig(['--network', 'testnet', '--sub-wallets', '65'], {})).toThrow("sub-wallets: expected 1 to 64, got '65'");
    expect(() => loadConfig(['--sub-wallets', '4'], {})).toThrow(/--sub-wallets need --network/);
  });

  it('serves S3 on one thread per core unless told, with TLS too', () => {
    expect(loadConfig(['--tls-cert', 'c.pem', '--tls-key', 'k.pem'], {}).threads).toBe(availableParallelism());
    expect(loadConfig(['--threads', '3'], {}).threads).toBe(3);
    expect(loadConfig([], { TUSK_THREADS: '5' }).threads).toBe(5);
    expect(() => loadConfig(['--threads', '0'], {})).toThrow(/threads/);
  });

  it('listens on the HTTP engine auto picks unless --http-engine or TUSK_HTTP_ENGINE names one', () => {
    expect(loadConfig([], {}).httpEngine).toBe('auto');
    expect(loadConfig([], { TUSK_HTTP_ENGINE: 'node' }).httpEngine).toBe('node');
    expect(loadConfig(['--http-engine', 'uws'], { TUSK_HTTP_ENGINE: 'node' }).httpEngine).toBe('uws');
    expect(() => loadConfig(['--http-engine', 'uWS'], {})).toThrow("http-engine: expected auto, uws or node, got 'uWS'");
  });

  it('takes the environment, and flags win over it', () => {
    const env = {
      TUSK_LISTEN: '0.0.0.0:9100', TUSK_REGION: 'eu-west-1', TUSK_DURABILITY: 'relaxed', TUSK_DOMAIN: 's3.a.test, s3.b.test',
      TUSK_ACCESS_KEY_ID: 'AK', TUSK_SECRET_ACCESS_KEY: 'SK', TUSK_ENDPOINT_KEYS: 'k1,k2', TUSK_N_SHARDS: '10',
      TUSK_PUBLISHER_LISTEN: 'off', TUSK_EPOCH_LENGTH: '90s', TUSK_MAX_BLOB_SIZE: '1GiB',
    };
    const c = loadConfig([], env);
    expect(c.listen).toEqual({ host: '0.0.0.0', port: 9100 });
    expect([c.region, c.durability, c.rootAccessKeyId, c.rootSecretAccessKey]).toEqual(['eu-west-1', 'relaxed', 'AK', 'SK']);
    expect(c.domains).toEqual(['s3.a.test', 's3.b.test']);
    expect(c.publisher).toMatchObject({ listen: undefined, endpointKeys: ['k1', 'k2'], nShards: 10, epochLengthMs: 90_000 });
    expect(c.publisher.maxBodyBytes).toBe(1024 ** 3);
    const f = loadConfig(['--listen', '[::1]:0', '--region', 'us-west-2', '--durability', 'strict', '--n-shards', '7'], env);
    expect(f.listen).toEqual({ host: '::1', port: 0 });
    expect([f.region, f.durability, f.publisher.nShards]).toEqual(['us-west-2', 'strict', 7]);
  });

  it('takes the publisher JWT settings (walrus.md §10.5)', () => {
    expect(loadConfig([], {}).publisher.jwt).toBeUndefined();
    expect(loadConfig([], { TUSK_JWT_DECODE_SECRET: 's3cret' }).publisher.jwt).toEqual({ secret: 's3cret', algorithm: 'HS256', expiringSec: 0, verifyUpload: false });
    const c = loadConfig(['--jwt-decode-secret', '0xabcd', '--jwt-algorithm', 'HS512', '--jwt-expiring-sec', '300', '--jwt-verify-upload'], {});
    expect(c.publisher.jwt).toEqual({ secret: '0xabcd', algorithm: 'HS512', expiringSec: 300, verifyUpload: true });
    expect(() => loadConfig(['--jwt-decode-secret', 'x', '--jwt-algorithm', 'RS256'], {})).toThrow(/jwt-algorithm/);
  });

  it('takes the lifecycle interval and day length (a short day only for testing rules)', () => {
    expect(loadConfig([], {}).lifecycle).toEqual({ intervalMs: 3_600_000, dayMs: 86_400_000 });
    const env = { TUSK_LIFECYCLE_INTERVAL: '10m', TUSK_LIFECYCLE_DAY: '1h' };
    expect(loadConfig([], env).lifecycle).toEqual({ intervalMs: 600_000, dayMs: 3_600_000 });
    expect(loadConfig(['--lifecycle-day', '2s', '--lifecycle-interval', '500ms'], env).lifecycle).toEqual({ intervalMs: 500, dayMs: 2000 });
    expect(() => loadConfig(['--lifecycle-day', 'short'], {})).toThrow(/lifecycle day/);
  });

  it('takes the access log apart from the log level', () => {
    expect(loadConfig([], {}).ops).toMatchObject({ logLevel: 'info', accessLog: true });
    expect(loadConfig(['--access-log', 'off'], {}).ops).toMatchObject({ logLevel: 'info', accessLog: false });
    expect(loadConfig(['--log-level', 'warn'], { TUSK_ACCESS_LOG: 'off' }).ops).toMatchObject({ logLevel: 'warn', accessLog: false });
    expect(loadConfig(['--access-log', 'on'], { TUSK_ACCESS_LOG: 'off' }).ops.accessLog).toBe(true);
    expect(() => loadConfig(['--access-log', 'loud'], {})).toThrow(/access-log/);
  });

  it('takes the shutdown grace: 10 s by default, a duration, or 0', () => {
    expect(loadConfig([], {}).shutdownGraceMs).toBe(10_000);
    expect(loadConfig(['--shutdown-grace', '2m'], {}).shutdownGraceMs).toBe(120_000);
    expect(loadConfig([], { TUSK_SHUTDOWN_GRACE: '0' }).shutdownGraceMs).toBe(0);
    expect(() => loadConfig(['--shutdown-grace', '30'], {})).toThrow(/shutdown-grace/);
  });

  it('rejects bad values with a message naming the setting', () => {
    expect(() => loadConfig(['--durability', 'sometimes'], {})).toThrow(/durability/);
    expect(() => loadConfig(['--listen', 'nope'], {})).toThrow(/listen/);
    expect(() => loadConfig(['--n-shards', '3'], {})).toThrow(/n-shards/);
    expect(() => loadConfig(['--bogus'], {})).toThrow();
    expect(() => parseHostPort('1.2.3.4:70000', 'x')).toThrow();
    expect(() => parseDuration('soon', 'epoch length')).toThrow(/epoch length/);
    expect(() => parseSize('big', 'max blob size')).toThrow(/max blob size/);
    expect(parseDuration('1.5h', 'x')).toBe(5_400_000);
    expect(parseSize('64KiB', 'x')).toBe(65536);
  });
});

describe('configuration file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tusk-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads TOML or JSON with the flags as keys; flags > environment > file > defaults', () => {
    const toml = join(dir, 'tusk.toml');
    writeFileSync(toml, 'listen = "0.0.0.0:9100"\nregion = "eu-west-1"\ndata_dir = "/srv/tusk"\ndomain = ["s3.a.test", "s3.b.test"]\n"publisher-listen" = "off"\nn-shards = 10\naccept-any-region = true\nlog-level = "warn"\n');
    const c = loadConfig(['--config', toml], {});
    expect(c.listen).toEqual({ host: '0.0.0.0', port: 9100 });
    expect([c.region, c.dataDir, c.acceptAnyRegion, c.ops.logLevel]).toEqual(['eu-west-1', '/srv/tusk', true, 'warn']);
    expect(c.domains).toEqual(['s3.a.test', 's3.b.test']);
    expect(c.publisher.listen).toBeUndefined();
    expect(c.publisher.nShards).toBe(10);
    const env = { TUSK_REGION: 'us-west-1', TUSK_CONFIG: toml };
    expect(loadConfig([], env).region).toBe('us-west-1');
    expect(loadConfig(['--region', 'ap-south-1'], env).region).toBe('ap-south-1');
    expect(loadConfig([], env).listen.port).toBe(9100);

    const json = join(dir, 'tusk.json');
    writeFileSync(json, JSON.stringify({ 'max-buckets': 5, metrics: 'off', 'disk-reserve': '0' }));
    const j = loadConfig(['--config', json], {});
    expect([j.maxBucketsPerAccount, j.ops.metrics, j.storage.diskReserve]).toEqual([5, false, 0]);
  });

  it('names the file and the setting when something is wrong, and points unknown flags at --help', () => {
    const bad = join(dir, 'bad.toml');
    writeFileSync(bad, 'listne = "x:1"\n');
    expect(() => loadConfig(['--config', bad], {})).toThrow(/bad\.toml: unknown setting 'listne' \(see tusk serve --help\)/);
    writeFileSync(bad, 'listen = \n');
    expect(() => loadConfig(['--config', bad], {})).toThrow(/bad\.toml is not valid TOML/);
    expect(() => loadConfig(['--config', join(dir, 'missing.toml')], {})).toThrow(/cannot read/);
    expect(() => loadConfig(['--bogus'], {})).toThrow(/Unknown option '--bogus' \(see tusk serve --help\)/);
    expect(() => loadConfig(['--log-level', 'loud'], {})).toThrow(/log-level/);
  });
});

describe('the KMS master key', () => {
  it('is a file (flag or TUSK_KMS_MASTER_KEY_FILE, made absolute) or the key itself from TUSK_KMS_MASTER_KEY only', () => {
    expect(loadConfig([], {}).kms).toEqual({ masterKeyFile: undefined, masterKeyBase64: undefined });
    expect(loadConfig(['--kms-master-key-file', 'k.key'], {}).kms.masterKeyFile).toMatch(/^\/.*\/k\.key$/);
    expect(loadConfig([], { TUSK_KMS_MASTER_KEY_FILE: '/secrets/kms.key' }).kms.masterKeyFile).toBe('/secrets/kms.key');
    expect(loadConfig([], { TUSK_KMS_MASTER_KEY: 'abc=' }).kms.masterKeyBase64).toBe('abc=');
  });
});

describe('SSE-C over plain HTTP', () => {
  it('is allowed only on a loopback listener', () => {
    expect(loadConfig(['--allow-sse-c-over-http'], {}).sseCustomerKeysOverHttp).toBe(true);
    expect(loadConfig([], {}).sseCustomerKeysOverHttp).toBe(false);
    expect(() => loadConfig(['--allow-sse-c-over-http', '--listen', '0.0.0.0:9000'], {})).toThrow(/loopback/);
    expect(loadConfig(['--tls-cert', 'c.pem', '--tls-key', 'k.pem'], {}).tls?.certFile).toMatch(/c\.pem$/);
    expect(() => loadConfig(['--tls-cert', 'c.pem'], {})).toThrow(/both --tls-cert and --tls-key/);
  });

  it('serves the console on 127.0.0.1:9001 unless --console-listen or TUSK_CONSOLE_LISTEN says otherwise (off: none)', () => {
    expect(loadConfig([], {}).console).toEqual({ listen: { host: '127.0.0.1', port: 9001 }, origins: [] });
    expect(loadConfig(['--console-listen', 'off'], {}).console.listen).toBeUndefined();
    expect(loadConfig([], { TUSK_CONSOLE_LISTEN: '0.0.0.0:8080' }).console.listen).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(() => loadConfig(['--console-listen', 'nope'], {})).toThrow(/console-listen/);
  });

  it('serves no website endpoint unless --website-listen or TUSK_WEBSITE_LISTEN names one; website domains are a list', () => {
    expect(loadConfig([], {}).website).toEqual({ listen: undefined, domains: [] });
    expect(loadConfig(['--website-listen', '127.0.0.1:9002', '--website-domain', 'web.example.com,site.test'], {}).website).toEqual({
      listen: { host: '127.0.0.1', port: 9002 },
      domains: ['web.example.com', 'site.test'],
    });
    expect(loadConfig([], { TUSK_WEBSITE_LISTEN: '0.0.0.0:80' }).website.listen).toEqual({ host: '0.0.0.0', port: 80 });
    expect(() => loadConfig(['--website-listen', 'nope'], {})).toThrow(/website-listen/);
  });

  it('takes console origins as browsers send them, and refuses anything else', () => {
    const c = loadConfig(['--console-origin', 'https://console.example.com,http://10.0.0.5:9001'], {});
    expect(c.console.origins).toEqual(['https://console.example.com', 'http://10.0.0.5:9001']);
    for (const bad of ['https://console.example.com/', 'console.example.com', 'ftp://x.test', 'https://x.test:443', '*']) {
      expect(() => loadConfig(['--console-origin', bad], {}), bad).toThrow(/console-origin/);
    }
  });
});
