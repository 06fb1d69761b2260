import { availableParallelism } from 'node:os';
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
    // Vitest's default is one worker per core but one: a single worker on a 2-core CI machine,
    // where the end-to-end files spend much of their time waiting on the CLI and server
    // processes they start. Two files at once keep both cores busy: the suite took 379-387 s
    // on a shared 2-core machine (load average 4-5), against 550-680 s with one worker in CI.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['schemas/src/**/*.test.ts', 'packages/*/src/**/*.test.ts'] } },
      {
        extends: true,
        // End-to-end tests start CLI and server processes, a second or more each on a busy
        // 2-core machine, and share it with another file: their time is process starts under
        // contention, not a hang. The limit catches hangs, not slowness.
        test: { name: 'e2e', include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000 },
      },
    ],
  },
});
