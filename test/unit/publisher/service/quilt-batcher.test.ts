// The batching rule of src/publisher/service/quilt-batcher.ts: a batch is stored when its window
// ends, when it is full (patches or bytes), or before an identifier would repeat; patches that do
// not fit one quilt are split until they do; every patch settles once with its quilt's outcome.

import { describe, expect, it } from 'vitest';
import { QuiltBatcher, type StoreQuiltFiles } from '../../../../src/publisher/service/quilt-batcher.js';
import { QuiltFormatError, type QuiltFile } from '../../../../src/publisher/quilt/quilt-format.js';

/** Records each quilt's identifiers; a quilt of more than `fits` files fails to encode. */
function recorder(fits = Infinity) {
  const quilts: string[][] = [];
  const store: StoreQuiltFiles = async (files) => {
    if (files.length > fits) throw new QuiltFormatError('does not fit');
    quilts.push(files.map((f) => f.identifier));
    const quiltId = `q${quilts.length - 1}`;
    return { quiltId, patchIds: new Map(files.map((f) => [f.identifier, `${quiltId}/${f.identifier}`])) };
  };
  return { quilts, store };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const file = (identifier: string, size = 1): QuiltFile => ({ identifier, contents: Buffer.alloc(size) });

describe('QuiltBatcher', () => {
  it('gathers the patches of one window into one quilt', async () => {
    const { quilts, store } = recorder();
    const batcher = new QuiltBatcher(store, 10, 20);
    const refs = await Promise.all(['a', 'b', 'c'].map((id) => batcher.add(file(id))));
    expect(quilts).toEqual([['a', 'b', 'c']]);
    expect(refs).toEqual([
      { quiltId: 'q0', patchId: 'q0/a' },
      { quiltId: 'q0', patchId: 'q0/b' },
      { quiltId: 'q0', patchId: 'q0/c' },
    ]);
  });

  it('stores a full batch at once, and starts another at a repeated identifier or past the byte budget', async () => {
    const { quilts, store } = recorder();
    // a window long past the awaits below: only fullness stores these batches early
    const batcher = new QuiltBatcher(store, 2, 1000, 10);
    const full = Promise.all([batcher.add(file('a')), batcher.add(file('b'))]);
    await full;
    expect(quilts).toEqual([['a', 'b']]);
    const repeated = batcher.add(file('x'));
    const again = batcher.add(file('x'));
    await repeated;
    expect(quilts).toEqual([['a', 'b'], ['x']]);
    const big = batcher.add(file('y', 10));
    await again; // 1 + 10 bytes is past the budget: [x] is stored before y joins
    expect(quilts).toEqual([['a', 'b'], ['x'], ['x']]);
    const last = batcher.add(file('z'));
    await big;
    expect(quilts.at(-1)).toEqual(['y']);
    await last; // its window ends
    expect(quilts.at(-1)).toEqual(['z']);
  });

  it('holds a batch whose window ends while a quilt is stored until that quilt settles and a window more', async () => {
    const quilts: string[][] = [];
    const settle: Array<() => void> = [];
    const store: StoreQuiltFiles = (files) =>
      new Promise((resolve) => {
        quilts.push(files.map((f) => f.identifier));
        const quiltId = `q${quilts.length - 1}`;
        settle.push(() => resolve({ quiltId, patchIds: new Map(files.map((f) => [f.identifier, `${quiltId}/${f.identifier}`])) }));
      });
    const batcher = new QuiltBatcher(store, 10, 20);
    const first = Promise.all([batcher.add(file('a')), batcher.add(file('b'))]);
    await sleep(40);
    expect(quilts).toEqual([['a', 'b']]);
    // a late writer: its window ends while q0 is being stored
    const late = batcher.add(file('late'));
    await sleep(40);
    expect(quilts).toHaveLength(1);
    settle[0]!();
    await first;
    // q0's writers send their next objects at once: they join the late one
    const next = Promise.all([late, batcher.add(file('c')), batcher.add(file('d'))]);
    await sleep(40);
    expect(quilts).toEqual([['a', 'b'], ['late', 'c', 'd']]);
    settle[1]!();
    expect((await next).map((r) => r.quiltId)).toEqual(['q1', 'q1', 'q1']);
    // with nothing being stored, a window ends as before
    const alone = batcher.add(file('e'));
    await sleep(40);
    expect(quilts.at(-1)).toEqual(['e']);
    settle[2]!();
    await alone;
  });

  it('splits patches that do not fit one quilt; fails a lone patch that does not', async () => {
    const { quilts, store } = recorder(2);
    const batcher = new QuiltBatcher(store, 10, 5);
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((id) => batcher.add(file(id))));
    expect(quilts.flat().sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(quilts.every((q) => q.length <= 2)).toBe(true);

    const never = new QuiltBatcher(recorder(0).store, 10, 5);
    await expect(never.add(file('a'))).rejects.toThrow(QuiltFormatError);
  });

  it('fails every patch of a quilt whose store fails', async () => {
    const batcher = new QuiltBatcher(async () => {
      throw new Error('not certified');
    }, 10, 5);
    const results = await Promise.allSettled([batcher.add(file('a')), batcher.add(file('b'))]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
