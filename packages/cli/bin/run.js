#!/usr/bin/env node
import { execute, settings } from '@oclif/core';

// The CLI always runs its compiled dist/. Without this, oclif looks for TypeScript sources
// whenever NODE_ENV is `development` or `test`, and warns "Could not find typescript" in
// every installed copy used from such a shell.
settings.enableAutoTranspile = false;

await execute({ dir: import.meta.url });
