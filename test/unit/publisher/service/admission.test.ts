import { describe, expect, it } from 'vitest';
import { AdmissionLimiter } from '../../../../src/publisher/service/admission.js';
import { PublisherError } from '../../../../src/publisher/service/errors.js';

describe('AdmissionLimiter (walrus.md §10.4 load shedding)', () => {
  it('runs maxConcurrent, queues `queue` more, refuses the rest at once', async () => {
    const limiter = new AdmissionLimiter(2, 1);
    const a = await limiter.admit();
    const b = await limiter.admit();
    let cAdmitted = false;
    const c = limiter.admit().then((release) => {
      cAdmitted = true;
      return release;
    });
    expect(limiter.inFlight).toBe(2);
    expect(limiter.queued).toBe(1);
    expect(() => limiter.admit()).toThrow(PublisherError);
    try {
      limiter.admit();
    } catch (e) {
      expect((e as PublisherError).code).toBe('TOO_MANY_REQUESTS');
    }
    await Promise.resolve();
    expect(cAdmitted).toBe(false);
    a();
    a(); // releasing twice frees one slot only
    const releaseC = await c;
    expect(cAdmitted).toBe(true);
    expect(limiter.inFlight).toBe(2);
    expect(limiter.queued).toBe(0);
    b();
    releaseC();
    expect(limiter.inFlight).toBe(0);
  });

  it('queue 0 refuses as soon as every slot is taken', async () => {
    const limiter = new AdmissionLimiter(1, 0);
    const release = await limiter.admit();
    expect(() => limiter.admit()).toThrow(/too many requests/);
    release();
    (await limiter.admit())();
  });

  it('rejects nonsense limits', () => {
    expect(() => new AdmissionLimiter(0, 0)).toThrow(RangeError);
    expect(() => new AdmissionLimiter(1, -1)).toThrow(RangeError);
  });
});
