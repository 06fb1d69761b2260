/**
 * `--format json` promises one JSON document on stdout, failures included: a pipeline that
 * parses the output must never meet an empty stdout or a line of prose. On failure the
 * document is `{"error": {"code", "message"}}` (plus `problems` or `refusals` when there are),
 * exit 1; the human message still goes to stderr. The commands that take `--format json`
 * (apply, plan, drift) route every failure, flag errors included, through `catch` below.
 */
import { Errors, type Command } from '@oclif/core';
import {
  ApplyRefused,
  LiveApiError,
  LockHeld,
  ManifestProblems,
  PolicyFailed,
  sanitize,
  terminalSafeJson,
  type LockInfo,
  type PolicyResult,
  type Problem,
} from '@gatehouse/engine/core';
import { CliError } from './errors.js';
import { printOut } from './output.js';

export interface ErrorDocument {
  error: {
    /** A `CLI_ERROR_CODES` code, `usage` for a bad flag or argument, `internal` for a bug. */
    code: string;
    message: string;
    /** With `manifest_problems`: every problem, as `gatehouse validate` reports them. */
    problems?: Problem[];
    /** With `policy_failed`: every failed policy rule (warnings too), as the plan JSON's `policy_results`. */
    policy_results?: PolicyResult[];
    /** With `apply_refused`: every reason. */
    refusals?: { code: string; message: string }[];
    /** With `api_failure`: the API's status and error code, when it answered. */
    status?: number;
    api_code?: string;
    /** With `locked`: the lock as the API shows it (holder, run id, since, stale). */
    lock?: LockInfo;
  };
}

/** Whether the raw arguments ask for `--format json` (read before parsing, which may fail). */
export function wantsJson(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i] === '--format=json' || (argv[i] === '--format' && argv[i + 1] === 'json')) return true;
  }
  return false;
}

/** An error as the JSON error document says it. */
export function errorDocument(error: unknown): ErrorDocument {
  const cause = error instanceof Failure ? error.cause : error;
  const message = sanitize(error instanceof Error ? error.message : String(error));
  if (cause instanceof ManifestProblems) return { error: { code: 'manifest_problems', message, problems: cause.problems } };
  if (cause instanceof PolicyFailed) return { error: { code: 'policy_failed', message, policy_results: [...cause.results] } };
  if (cause instanceof ApplyRefused)
    return { error: { code: 'apply_refused', message, refusals: cause.refusals.map(({ code, message }) => ({ code, message })) } };
  if (cause instanceof LockHeld) return { error: { code: 'locked', message, ...(cause.lock ? { lock: cause.lock } : {}) } };
  if (cause instanceof LiveApiError) {
    return {
      error: { code: 'api_failure', message, ...(cause.status !== undefined ? { status: cause.status } : {}), ...(cause.code ? { api_code: cause.code } : {}) },
    };
  }
  if (cause instanceof CliError) return { error: { code: cause.code, message } };
  if (cause instanceof Error && /^Parsing --/.test(cause.message)) {
    // A flag value its parser refused (oclif prefixes "Parsing --flag" and adds a help hint).
    return { error: { code: 'usage', message: sanitize(cause.message.replace(/\s*\n\s*/g, ' ')) } };
  }
  if (cause instanceof Errors.CLIError) {
    // oclif's own: a flag or argument refused while parsing, or `this.error(..., { code })`.
    const code = (cause as Errors.CLIError & { code?: string }).code ?? ('parse' in cause ? 'usage' : 'failed');
    return { error: { code, message: sanitize(cause.message.replace(/\s*\n\s*/g, ' '), { keepNewlines: true }) } };
  }
  return { error: { code: 'internal', message } };
}

/**
 * A failure already described for people (`message`), keeping what caused it for the JSON
 * document. Thrown by `failCommand` in JSON mode instead of `command.error`.
 */
export class Failure extends Error {
  constructor(
    message: string,
    override readonly cause: unknown,
  ) {
    super(message);
    this.name = 'Failure';
  }
}

/** `ExitError`s (this.exit) are outcomes, not failures: exit 2 of drift and plan stays exit 2. */
const isExit = (error: unknown) => error instanceof Errors.ExitError;

/**
 * The `catch` of a command with `--format json`: prints the error document on stdout, the
 * message on stderr, and exits 1. Returns false (the caller rethrows) when not in JSON mode.
 */
export async function catchAsJson(command: Command, error: unknown): Promise<boolean> {
  if (isExit(error) || !wantsJson(command.argv)) return false;
  const document = errorDocument(error);
  process.stderr.write(`Error: ${document.error.message}\n`);
  await printOut(`${terminalSafeJson(document)}\n`);
  process.exitCode = 1;
  return true;
}
