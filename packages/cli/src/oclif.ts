/**
 * @oclif/core's values (Args, Command, Errors, Flags, toConfiguredId), for every module of the CLI: import them
 * from here, never from '@oclif/core' (types may still come from there, with `import type`).
 *
 * @oclif/core is CommonJS. The first time an ES module imports a CommonJS package, Node
 * instantiates its CommonJS export lexer (WebAssembly) to find the package's named exports, and
 * that stays resident for the rest of the process: some 10 MB of every command's memory, which
 * is most of the fixed cost that made `validate` of a 10 MB manifest miss its aim of under 10x
 * the input (issue 15). `require` needs no lexer, and returns the same instance that bin/run.js
 * and oclif itself use (one module cache), so `instanceof` checks hold.
 *
 * The same holds for every CommonJS package the CLI, the engine and the schemas load on a
 * command's path (picocolors, picomatch, ipaddr.js, ...): each is `require`d where it is used.
 */
import { createRequire } from 'node:module';
import type * as OclifCore from '@oclif/core';

const oclif = createRequire(import.meta.url)('@oclif/core') as typeof OclifCore;

export const { Args, Command, Errors, Flags, toConfiguredId } = oclif;
/** The instance type of `Command` (a command, as `this` in its methods). */
export type Command = OclifCore.Command;
