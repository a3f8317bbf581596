import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpS3Client, NetworkError, type ClientOptions, type S3Client } from './client.js';
import { ContentSource, objectKey, sizeFromKey } from './content.js';
import { fatalError, type FatalBenchError } from './fatal.js';
import type { BenchOptions, Operation } from './options.js';
import { Population } from './population.js';
import { RawS3Client } from './raw-client.js';
import { pickWeighted, seededRandom, type Random } from './random.js';
import { opResult, RESULT_FORMAT, type BenchResult } from './result.js';
import {
  abortMultipart, bucketExists, createBucket, deleteBucket, deleteObject, getObject, headObject, listPage,
  multipartPut, MULTIPART_UNSUPPORTED, putObject, type ListCursor, type OpContext, type Outcome,
} from './s3-ops.js';
import { describeSizeDistribution, drawSize, maxSize } from './sizes.js';
import { OpStats } from './stats.js';
import { Timeline } from './timeline.js';

export type Log = (line: string) => void;
/** The live progress line: a new text, or null once the measured phase is over. */
export type Progress = (line: string | null) => void;

const PROGRESS_MS = 1000;

/** Headers every PUT and CreateMultipartUpload carries: the encryption and storage class asked for. */
export function writeHeaders(options: Pick<BenchOptions, 'sse' | 'storageClass'>): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  if (options.sse) headers['x-amz-server-side-encryption'] = options.sse;
  if (options.storageClass) headers['x-amz-storage-class'] = options.storageClass;
  return Object.keys(headers).length > 0 ? headers : undefined;
}

/**
 * One benchmark run: set up (own bucket or prefix) → preflight (one PUT/GET/DELETE end to end) → prepare the
 * population → warm-up + measured phase → cleanup (delete everything written, the bucket if created).
 */
export async function runBench(options: BenchOptions, log: Log = () => {}, progress: Progress = (l) => l !== null && log(l)): Promise<BenchResult> {
  const runId = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const clientOptions: ClientOptions = {
    endpoint: options.endpoint,
    credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey, region: options.region },
    addressing: options.addressing,
    concurrency: options.concurrency,
    timeoutMs: options.timeoutMs,
  };
  const client: S3Client =
    options.client === 'raw' ? new RawS3Client(clientOptions) : new HttpS3Client(clientOptions);
  const content = new ContentSource(options.seed);
  content.ensure(maxSize(options.sizes));
  const ctx: OpContext = {
    client, content, bucket: options.bucket ?? `tusk-bench-${runId}`, payload: options.payload,
    writeHeaders: writeHeaders(options),
  };
  const run = new Run(options, ctx, `tusk-bench-${runId}/`, log, progress);
  try {
    return await run.execute();
  } finally {
    await run.cleanup();
    client.close();
  }
}

class Run {
  private readonly random: Random;
  private readonly population = new Population();
  /** Keys that may exist on the endpoint: everything cleanup must delete. */
  private readonly written = new Set<string>();
  private readonly uploads = new Set<string>();
  private readonly notes: string[] = [];
  private readonly mix: Partial<Record<Operation, number>>;
  private createdBucket = false;
  private nextIndex = 0;
  /** set by the first failure that every later request would repeat: the run stops */
  private fatal: FatalBenchError | undefined;

  constructor(
    private readonly options: BenchOptions,
    private readonly ctx: OpContext,
    private readonly prefix: string,
    private readonly log: Log,
    private readonly progress: Progress,
  ) {
    this.random = seededRandom(options.seed);
    this.mix = { ...options.mix };
  }

  async execute(): Promise<BenchResult> {
    const startedAt = new Date().toISOString();
    const o = this.options;
    try {
      if (!(await bucketExists(this.ctx))) {
        await createBucket(this.ctx);
        this.createdBucket = true;
      }
    } catch (err) {
      this.fatal = err instanceof NetworkError ? fatalError(err.code, o.endpoint) : undefined;
      throw this.fatal ?? err;
    }
    this.log(`bucket ${this.ctx.bucket}${this.createdBucket ? ' (created)' : ''}, prefix ${this.prefix}`);
    await this.preflight();
    const onlyDelete = this.operations().length === 1 && this.mix.delete !== undefined;
    const objects = this.needsPopulation() ? (o.objects ?? this.defaultObjects(onlyDelete)) : 0;
    if (objects > 0) await this.prepare(objects);
    if (onlyDelete && o.warmupMs > 0) this.notes.push('delete: no warm-up (every delete consumes a prepared object)');

    const skipped = this.operations().length === 0 ? 'multipart: the endpoint answered NotImplemented' : null;
    const measured = skipped ? null : await this.measure(onlyDelete ? 0 : o.warmupMs, onlyDelete);
    const cores = availableParallelism();
    if (cores <= 2) {
      this.notes.push(
        `this machine has ${cores} cores: the generator (CPU shown above) competes with a local server for them`,
      );
    }
    const seconds = measured?.seconds ?? 0;
    const ops: BenchResult['ops'] = {};
    for (const [op, stats] of measured?.perOp ?? []) ops[op] = opResult(stats, seconds);
    const cpuMs = measured ? (measured.cpu.user + measured.cpu.system) / 1000 : 0;
    return {
      format: RESULT_FORMAT,
      label: o.label ?? o.endpoint,
      endpoint: o.endpoint,
      startedAt,
      config: {
        mix: { ...o.mix } as Record<string, number>,
        sizes: describeSizeDistribution(o.sizes),
        concurrency: o.concurrency,
        durationMs: o.count === undefined ? o.durationMs : null,
        count: o.count ?? null,
        warmupMs: onlyDelete ? 0 : o.warmupMs,
        rate: o.rate ?? null,
        objects,
        payload: o.payload,
        sse: o.sse ?? null,
        storageClass: o.storageClass ?? null,
        addressing: o.addressing,
        seed: o.seed,
      },
      measuredSeconds: seconds,
      timeline: measured?.timeline ?? [],
      ops,
      total: opResult(measured?.total ?? new OpStats(), seconds),
      cpu: {
        userMs: measured ? measured.cpu.user / 1000 : 0,
        systemMs: measured ? measured.cpu.system / 1000 : 0,
        percentOfOneCore: measured && measured.wallMs > 0 ? (100 * cpuMs) / measured.wallMs : 0,
        cores,
      },
      ...(measured?.serverCpuMs !== undefined ? { serverCpuMs: measured.serverCpuMs } : {}),
      notes: this.notes,
      skipped,
    };
  }

  /** Records the first fatal failure (the run then stops); returns it. */
  private failedFatally(code: string): FatalBenchError | undefined {
    this.fatal ??= fatalError(code, this.options.endpoint);
    return this.fatal;
  }

  private operations(): Operation[] {
    return (Object.keys(this.mix) as Operation[]).filter((op) => (this.mix[op] ?? 0) > 0);
  }

  private needsPopulation(): boolean {
    return this.operations().some((op) => op !== 'put' && op !== 'multipart');
  }

  private defaultObjects(onlyDelete: boolean): number {
    if (onlyDelete) return this.options.count ?? 1000;
    // Enough distinct keys to defeat trivial caching, without writing more than ~1 GiB.
    const perObject = Math.max(1, maxSize(this.options.sizes));
    return Math.min(1000, Math.max(this.options.concurrency, Math.floor(2 ** 30 / perObject)));
  }

  /** One object end to end before timing anything; multipart support is probed here too. */
  private async preflight(): Promise<void> {
    const key = objectKey(`${this.prefix}preflight-`, 0, 4096);
    this.written.add(key);
    const put = await putObject(this.ctx, key, 4096);
    if (!put.ok) throw this.failedFatally(put.code) ?? new Error(`preflight PUT ${key} failed: ${put.code}`);
    const get = await getObject(this.ctx, key, 4096);
    if (!get.ok) this.notes.push(`preflight: GET of a just-written object failed (${get.code}); see the errors`);
    const del = await deleteObject(this.ctx, key);
    if (del.ok) this.written.delete(key);
    else this.notes.push(`preflight: DELETE failed (${del.code})`);
    if (this.mix.multipart) {
      const probeKey = objectKey(`${this.prefix}preflight-`, 1, 1);
      this.written.add(probeKey);
      const probe = await multipartPut(this.ctx, probeKey, 1, 1, this.uploads);
      if (!probe.ok && probe.code === MULTIPART_UNSUPPORTED) {
        delete this.mix.multipart;
        this.notes.push('multipart: the endpoint answered NotImplemented to CreateMultipartUpload; skipped');
        this.log('multipart not supported by the endpoint: skipped');
      } else if (!probe.ok) {
        this.notes.push(`preflight: multipart upload failed (${probe.code})`);
      }
    }
  }

  private async prepare(objects: number): Promise<void> {
    this.log(`preparing ${objects} objects (${describeSizeDistribution(this.options.sizes)})`);
    const failures = new Map<string, number>();
    let issued = 0;
    await this.workers(async () => {
      while (issued < objects && !this.fatal) {
        issued++;
        const size = drawSize(this.options.sizes, this.random);
        const key = objectKey(this.prefix, this.nextIndex++, size);
        this.written.add(key);
        const out = await putObject(this.ctx, key, size);
        if (out.ok) this.population.add(key);
        else {
          failures.set(out.code, (failures.get(out.code) ?? 0) + 1);
          this.failedFatally(out.code);
        }
      }
    });
    if (this.fatal) throw this.fatal;
    if (failures.size > 0) {
      const summary = [...failures].map(([code, n]) => `${code}×${n}`).join(', ');
      if (this.population.size === 0) throw new Error(`prepare: every PUT failed (${summary})`);
      this.notes.push(`prepare: ${objects - this.population.size} PUTs failed (${summary})`);
    }
  }

  private async workers(body: (worker: number) => Promise<void>): Promise<void> {
    await Promise.all(Array.from({ length: this.options.concurrency }, (_, i) => body(i)));
  }

  private async measure(warmupMs: number, onlyDelete: boolean) {
    const o = this.options;
    const ops = this.operations();
    const weights = ops.map((op) => this.mix[op]!);
    const listExpected = ops.length === 1 && ops[0] === 'list' ? this.population.size : undefined;
    const perOp = new Map<Operation, OpStats>(ops.map((op) => [op, new OpStats()]));
    const total = new OpStats();
    const start = performance.now();
    const warmupEnd = start + warmupMs;
    const measureEnd = o.count === undefined ? warmupEnd + o.durationMs : Infinity;
    let measuredIssued = 0;
    let slot = 0;
    let exhausted = false;
    let lastEnd = warmupEnd;
    let cpuStart = process.cpuUsage();
    let cpuStartWall = start;
    let serverCpuStart = o.serverCpuMs?.();
    const cpuTimer = setTimeout(() => {
      cpuStart = process.cpuUsage();
      cpuStartWall = performance.now();
      serverCpuStart = o.serverCpuMs?.();
    }, warmupMs);
    const timeline = new Timeline();
    const progress = setInterval(() => {
      const now = performance.now();
      if (now < warmupEnd) {
        this.progress(`warm-up ${((now - start) / 1000).toFixed(1)} s`);
        return;
      }
      const i = timeline.close((now - warmupEnd) / 1000);
      this.progress(
        `${i.t.toFixed(0)} s: ${i.okPerSec.toFixed(0)} ops/s, ${i.mibPerSec.toFixed(1)} MiB/s, ` +
          `p99 ${i.p99Ms === null ? '-' : i.p99Ms.toFixed(1)} ms, ${i.errors} errors (total ${total.ok} ok, ${total.errorCount} errors)`,
      );
    }, PROGRESS_MS);
    this.log(`measuring ${ops.join('+')}${warmupMs ? ` after ${warmupMs} ms warm-up` : ''}`);

    /** The time an operation counts from (its scheduled slot in open loop), or null when the run is over. */
    const nextStart = (): number | null => {
      if (exhausted || this.fatal) return null;
      const t = o.rate ? start + (slot++ * 1000) / o.rate : performance.now();
      if (t >= measureEnd) return null;
      if (o.count !== undefined && t >= warmupEnd) {
        if (measuredIssued >= o.count) return null;
        measuredIssued++;
      }
      return t;
    };

    await this.workers(async () => {
      const cursor: ListCursor = { seen: 0, lastKey: '' };
      for (let t = nextStart(); t !== null; t = nextStart()) {
        const wait = t - performance.now();
        if (wait > 0) await sleep(wait);
        const chosen = ops[pickWeighted(weights, this.random)]!;
        const [op, out] = await this.perform(chosen, cursor, listExpected);
        if (out === null) {
          if (onlyDelete) exhausted = true;
          continue;
        }
        const end = performance.now();
        if (t < warmupEnd) continue;
        lastEnd = Math.max(lastEnd, end);
        const stats = perOp.get(op) ?? perOp.set(op, new OpStats()).get(op)!;
        for (const s of [stats, total, timeline.current]) {
          if (out.ok) s.recordOk(end - t, out.bytes, out.firstByteAt && out.firstByteAt - t, out.items);
          else s.recordError(out.code);
        }
        if (!out.ok) this.failedFatally(out.code);
      }
    });
    clearTimeout(cpuTimer);
    clearInterval(progress);
    this.progress(null);
    if (this.fatal) throw this.fatal;
    if (timeline.current.ok + timeline.current.errorCount > 0) timeline.close((lastEnd - warmupEnd) / 1000);
    const cpu = process.cpuUsage(cpuStart);
    const serverCpuMs = serverCpuStart === undefined ? undefined : o.serverCpuMs!() - serverCpuStart;
    if (exhausted) this.notes.push('delete: the prepared objects ran out; raise --objects for a longer run');
    return { perOp, total, timeline: timeline.intervals, seconds: (lastEnd - warmupEnd) / 1000, cpu, serverCpuMs, wallMs: performance.now() - cpuStartWall };
  }

  /** Runs one operation; get/head/delete on an empty population fall back to a put (null for delete-only runs). */
  private async perform(op: Operation, cursor: ListCursor, listExpected?: number): Promise<[Operation, Outcome | null]> {
    const ctx = this.ctx;
    if (op === 'get' || op === 'head') {
      const key = this.population.borrow(this.random);
      if (key !== undefined) {
        try {
          const size = sizeFromKey(key)!;
          return [op, await (op === 'get' ? getObject(ctx, key, size) : headObject(ctx, key, size))];
        } finally {
          this.population.release(key);
        }
      }
    } else if (op === 'delete') {
      const key = this.population.takeForDelete(this.random);
      if (key !== undefined) {
        const out = await deleteObject(ctx, key);
        if (out.ok) this.written.delete(key);
        return [op, out];
      }
      if (Object.keys(this.mix).length === 1) return [op, null];
    } else if (op === 'list') {
      return [op, await listPage(ctx, this.prefix, this.options.listMaxKeys, cursor, listExpected)];
    } else if (op === 'multipart') {
      const size = drawSize(this.options.sizes, this.random);
      const key = objectKey(this.prefix, this.nextIndex++, size);
      this.written.add(key);
      const out = await multipartPut(ctx, key, size, this.options.partSize, this.uploads);
      if (out.ok) this.population.add(key);
      return [op, out];
    }
    const size = drawSize(this.options.sizes, this.random);
    const key = objectKey(this.prefix, this.nextIndex++, size);
    this.written.add(key);
    const out = await putObject(ctx, key, size);
    if (out.ok) this.population.add(key);
    return ['put', out];
  }

  /** Leaves the endpoint as found: deletes every key written, aborts open uploads, removes a created bucket. */
  async cleanup(): Promise<void> {
    if (this.fatal) {
      if (this.written.size > 0) this.log(`cleanup skipped (${this.fatal.kind}): up to ${this.written.size} objects may remain under s3://${this.ctx.bucket}/${this.prefix}`);
      return;
    }
    if (this.options.keep) {
      this.notes.push(`--keep: left ${this.written.size} objects under s3://${this.ctx.bucket}/${this.prefix}`);
      return;
    }
    const keys = [...this.written];
    const uploads = [...this.uploads];
    this.log(`cleanup: deleting ${keys.length} objects`);
    const retry: string[] = [];
    await this.workers(async () => {
      for (let key = keys.pop(); key !== undefined; key = keys.pop()) {
        if (!(await deleteObject(this.ctx, key)).ok) retry.push(key);
      }
      for (let up = uploads.pop(); up !== undefined; up = uploads.pop()) await abortMultipart(this.ctx, up);
    });
    // Some servers fail concurrent deletes that race on shared state (s3rver removes empty directories), or close
    // keep-alive connections the agent then reuses: retry each alone, a few times.
    const failures = new Map<string, number>();
    for (const key of retry) {
      let out = await deleteObject(this.ctx, key);
      for (let attempt = 1; attempt < 3 && !out.ok; attempt++) out = await deleteObject(this.ctx, key);
      if (!out.ok) failures.set(out.code, (failures.get(out.code) ?? 0) + 1);
    }
    if (failures.size > 0) {
      this.notes.push(`cleanup: ${[...failures].map(([code, n]) => `${code}×${n}`).join(', ')} DELETEs failed`);
    }
    if (this.createdBucket && failures.size === 0) {
      await deleteBucket(this.ctx).catch((err: Error) => this.notes.push(`cleanup: ${err.message}`));
    }
  }
}
