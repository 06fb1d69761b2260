import { createRequire } from 'node:module';

/**
 * Keeps WebAssembly in V8's baseline compiler (Liftoff) for the rest of the process.
 *
 * undici parses HTTP/1 with llhttp compiled to WebAssembly, compiled when the first connection
 * opens. V8 compiles it with Liftoff at once and then recompiles it with TurboFan on a background
 * thread, and Node waits for that background work before the process can exit: after a short
 * command's last request, 100-180 ms of wall time and about 100 ms of CPU (on 2 cores, competing
 * with the server) went to optimising a parser that would never run again. A plan of one object
 * against `gatehouse serve` (17 requests): exit 130-180 ms after the connection pool closed,
 * then at once with this; the same for a bare undici script. Liftoff's code is slower than
 * TurboFan's, but llhttp's share of a command is small (it parses status lines and headers;
 * a body with a Content-Length is passed through), and a plan of 5,000 objects made no
 * measurable difference (README, performance).
 *
 * Contract: call before the first HTTP connection (bin/run.js does, first thing, for every
 * command that may connect). Changes only how V8 compiles WebAssembly, never what it computes.
 * Idempotent. `node:v8` by `require`: about 1 ms less than its ES module wrapper.
 */
export function keepWasmInBaselineTier(): void {
  (createRequire(import.meta.url)('node:v8') as typeof import('node:v8')).setFlagsFromString('--liftoff-only');
}
