/**
 * Defaults of the reference server that the CLI needs before (or without) loading it: flag
 * defaults of `gatehouse serve` and the embedded default's database. They equal the server's
 * own constants (`defaults.test.ts` checks), and live here because `@gatehouse/server` is an
 * optional dependency that only `serve` and the embedded default import.
 */
export const DEFAULT_DB_PATH = '.gatehouse/server.db';
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8484;
