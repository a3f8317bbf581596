import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      // one thread (TUSK_THREADS, which every Tusk the tests start inherits; the default is one per core)
      { extends: true, test: { name: 'tusk', include: ['test/**/*.test.ts'], env: { TUSK_THREADS: '1' } } },
      // the e2e tests of `tusk serve` again with front-end threads (--threads 4), TLS and the Walrus
      // network's publisher included; the other publisher tests run the face on its own (no threads),
      // and publisher-threads.test.ts sets its own
      {
        extends: true,
        test: {
          name: 'threads-4',
          include: ['test/e2e/**/*.test.ts'],
          exclude: ['test/e2e/publisher{,-browser,-crash,-event-loop,-nodes,-threads,-threads-remote}.test.ts'],
          env: { TUSK_THREADS: '4' },
        },
      },
    ],
  },
});
