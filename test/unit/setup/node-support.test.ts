// Which Node runs Tusk (scripts/node-support.mjs; package.json "engines" and the README say the same).

import { describe, expect, it } from 'vitest';
import { nodeSupport } from '../../../scripts/node-support.mjs';

describe('node support', () => {
  it('supports Node 24 and 22 from the releases every dependency declares', () => {
    for (const v of ['24.12.0', '24.22.3', 'v24.22.3', '22.20.0', '22.23.5']) expect(nodeSupport(v), v).toEqual({ verdict: 'supported' });
    expect(nodeSupport('22.19.0')).toMatchObject({ verdict: 'runs', message: expect.stringMatching(/Node 24/) });
    expect(nodeSupport('24.11.1').verdict).toBe('runs');
  });

  it('runs on Node 20 from 20.19, saying it is past its end of life', () => {
    expect(nodeSupport('20.20.2')).toEqual({
      verdict: 'runs',
      message: 'Node 20.20.2 is past its end of life (2026-04-30): Tusk still runs on it; use Node 24 (24.12 or later) or Node 22 (22.20 or later)',
    });
    expect(nodeSupport('20.18.1')).toMatchObject({ verdict: 'refused', message: expect.stringMatching(/too old.*20\.19/) });
    expect(nodeSupport('18.20.8').verdict).toBe('refused');
  });

  it('runs odd-numbered and later lines, saying they are not the supported ones', () => {
    expect(nodeSupport('23.11.0')).toMatchObject({ verdict: 'runs', message: expect.stringMatching(/not a release Tusk supports/) });
    expect(nodeSupport('26.12.1')).toMatchObject({ verdict: 'runs', message: expect.stringMatching(/newer than the lines Tusk is tested on/) });
  });
});
