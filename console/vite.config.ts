// Builds the console into dist/console-ui (served by src/console/server.ts); run by scripts/setup.mjs.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  // Preact's JSX runtime (as tsconfig.json's jsxImportSource)
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/console-ui',
    emptyOutDir: true,
    // the polyfill would be an inline script, which the Content-Security-Policy forbids
    modulePreload: { polyfill: false },
    // no inline data: URLs for assets either
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  logLevel: 'warn',
});
