// The logger's time field: pino's isoTime shape, formatted once per millisecond.

import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { isoTimeField } from '../../../src/log/logger.js';

describe('isoTimeField', () => {
  it("writes pino's isoTime field, and a new one when the millisecond changes", () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-25T01:02:03.004Z'), toFake: ['Date'] });
    try {
      expect(isoTimeField()).toBe(pino.stdTimeFunctions.isoTime());
      expect(isoTimeField()).toBe(',"time":"2026-11-25T01:02:03.004Z"');
      vi.setSystemTime(Date.parse('2026-11-25T01:02:03.005Z'));
      expect(isoTimeField()).toBe(',"time":"2026-11-25T01:02:03.005Z"');
    } finally {
      vi.useRealTimers();
    }
  });
});
