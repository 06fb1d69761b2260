import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * Unit tests import sibling packages from their TypeScript sources (no build needed);
 * end-to-end tests in test/ run the built CLI, which `npm test` builds first.
 */
export default defineConfig({
  resolve: {
    alias: {
      '@gatehouse/schemas/runtime': src('./schemas/src/runtime.ts'),
      '@gatehouse/schemas': src('./schemas/src/index.ts'),
      '@gatehouse/client': src('./packages/client/src/index.ts'),
      // The engine's entry points by area (its package.json `exports`), before the main one.
      '@gatehouse/engine/core': src('./packages/engine/src/core.ts'),
      '@gatehouse/engine/render': src('./packages/engine/src/render/index.ts'),
      '@gatehouse/engine/apply': src('./packages/engine/src/apply/index.ts'),
      '@gatehouse/engine/drift': src('./packages/engine/src/drift/index.ts'),
      '@gatehouse/engine/export': src('./packages/engine/src/export/index.ts'),
      '@gatehouse/engine/environments': src('./packages/engine/src/environments/index.ts'),
      '@gatehouse/engine': src('./packages/engine/src/index.ts'),
      '@gatehouse/server': src('./packages/server/src/index.ts'),
    },
  },
  test: {
    include: ['schemas/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
