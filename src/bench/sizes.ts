import { pickWeighted, type Random } from './random.js';

/** How object sizes are chosen: one size, log2-uniform between bounds, or weighted buckets. */
export type SizeDistribution =
  | { kind: 'fixed'; bytes: number }
  | { kind: 'log2'; min: number; max: number }
  | { kind: 'buckets'; buckets: { bytes: number; weight: number }[] };

const UNITS: Record<string, number> = {
  '': 1, b: 1,
  k: 1024, kib: 1024, kb: 1000,
  m: 1024 ** 2, mib: 1024 ** 2, mb: 1000 ** 2,
  g: 1024 ** 3, gib: 1024 ** 3, gb: 1000 ** 3,
};

/** "4KiB", "1MiB", "1.5MB", "100" (bytes). Binary units for K/M/G and *iB, decimal for KB/MB/GB. */
export function parseByteSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined) throw new Error(`invalid size '${text}' (examples: 4096, 4KiB, 1MiB, 10MB)`);
  const bytes = Math.round(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes)) throw new Error(`size '${text}' is too large`);
  return bytes;
}

/**
 * "4KiB" → fixed; "1KiB..1MiB" → log2-random between bounds (inclusive);
 * "4KiB:70,1MiB:25,64MiB:5" → weighted buckets.
 */
export function parseSizeDistribution(text: string): SizeDistribution {
  if (text.includes('..')) {
    const [lo, hi, ...rest] = text.split('..');
    const min = parseByteSize(lo!);
    const max = parseByteSize(hi!);
    if (rest.length > 0 || min < 1 || max < min) {
      throw new Error(`invalid size range '${text}': expected MIN..MAX with 1 <= MIN <= MAX`);
    }
    return min === max ? { kind: 'fixed', bytes: min } : { kind: 'log2', min, max };
  }
  if (text.includes(':') || text.includes(',')) {
    const buckets = text.split(',').map((item) => {
      const [size, weight, ...rest] = item.split(':');
      const w = weight === undefined ? 1 : Number(weight);
      if (rest.length > 0 || !Number.isFinite(w) || w <= 0) {
        throw new Error(`invalid size bucket '${item}': expected SIZE:WEIGHT with WEIGHT > 0`);
      }
      return { bytes: parseByteSize(size!), weight: w };
    });
    return { kind: 'buckets', buckets };
  }
  return { kind: 'fixed', bytes: parseByteSize(text) };
}

export function drawSize(dist: SizeDistribution, random: Random): number {
  switch (dist.kind) {
    case 'fixed':
      return dist.bytes;
    case 'log2': {
      const lo = Math.log2(dist.min);
      const hi = Math.log2(dist.max);
      const size = Math.round(2 ** (lo + random() * (hi - lo)));
      return Math.min(dist.max, Math.max(dist.min, size));
    }
    case 'buckets':
      return dist.buckets[pickWeighted(dist.buckets.map((b) => b.weight), random)]!.bytes;
  }
}

export function maxSize(dist: SizeDistribution): number {
  switch (dist.kind) {
    case 'fixed':
      return dist.bytes;
    case 'log2':
      return dist.max;
    case 'buckets':
      return Math.max(...dist.buckets.map((b) => b.bytes));
  }
}

export function formatBytes(bytes: number): string {
  for (const [unit, factor] of [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]] as const) {
    if (bytes >= factor && bytes % (factor / 1024) === 0) {
      const value = bytes / factor;
      return `${Number.isInteger(value) ? value : value.toFixed(2)} ${unit}`;
    }
  }
  return `${bytes} B`;
}

export function describeSizeDistribution(dist: SizeDistribution): string {
  switch (dist.kind) {
    case 'fixed':
      return formatBytes(dist.bytes);
    case 'log2':
      return `log2-random ${formatBytes(dist.min)}..${formatBytes(dist.max)}`;
    case 'buckets':
      return dist.buckets.map((b) => `${formatBytes(b.bytes)}:${b.weight}`).join(',');
  }
}
