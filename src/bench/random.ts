/** Seeded PRNG (mulberry32): runs with the same --seed draw the same sizes, keys and operations. */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Picks an index with probability weight[i] / sum(weights). */
export function pickWeighted(weights: readonly number[], random: Random): number {
  let total = 0;
  for (const w of weights) total += w;
  let point = random() * total;
  for (let i = 0; i < weights.length; i++) {
    point -= weights[i]!;
    if (point < 0) return i;
  }
  return weights.length - 1;
}
