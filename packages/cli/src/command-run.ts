/**
 * What the connected commands (plan, drift, export, apply) share: running the engine over one
 * connection that is always closed, and turning the failures they have in common into a
 * message and exit 1. Each command keeps its own handling of failures only it can meet
 * (apply's refusals, for one) and passes the sentence that says what was not done.
 */
import type { Command } from '@oclif/core';
import { formatPolicyResult, LiveApiError, ManifestProblems, PolicyFailed, sanitize, TargetError } from '@gatehouse/engine/core';
import { connect, type Connection } from './connection/connect.js';
import type { ConnectionFlagValues } from './connection/flags.js';
import { apiFailureHint } from './connection/api-failure.js';
import { CliError } from './errors.js';
import { Failure, wantsJson } from './json-errors.js';
import { colourEnabled, formatProblem, terminalStyle } from './output.js';
import { isVerbose, requestLogger } from './request-log.js';

/**
 * Connects as the flags say, runs `fn` over the connection and closes it whatever happens.
 * Errors of connecting, of `fn` and of closing reach the caller unchanged.
 */
export async function withConnection<T>(flags: ConnectionFlagValues, fn: (connection: Connection) => Promise<T>): Promise<T> {
  const onRequest = requestLogger(isVerbose(flags));
  const connection = await connect(flags, onRequest ? { onRequest } : {});
  try {
    return await fn(connection);
  } finally {
    await connection.close();
  }
}

/**
 * Ends `command` with exit 1 for the failures every connected command reports the same way:
 * manifest problems (each printed on stderr, then the count and `notDone`, e.g. "nothing was
 * planned"), policy rules the manifests alone break (each failed rule, as validate prints them),
 * an API failure, or a `CliError`. Anything else is rethrown as it is. Messages
 * quote live and manifest values, so they are printed sanitized (control characters escaped).
 */
export function failCommand(command: Command, error: unknown, notDone: string): never {
  if (error instanceof ManifestProblems) {
    for (const problem of error.problems) command.logToStderr(formatProblem(problem));
    stop(command, `${error.problems.length} problem${error.problems.length === 1 ? '' : 's'} in the manifests; ${notDone}.`, error);
  }
  if (error instanceof PolicyFailed) {
    const style = terminalStyle(colourEnabled(process.env, Boolean(process.stderr.isTTY)));
    for (const result of error.results) command.logToStderr(formatPolicyResult(result, style));
    stop(command, `${sanitize(error.message)}; ${notDone} (no request was sent). Change the manifests or the policy.`, error);
  }
  if (error instanceof LiveApiError) {
    const hint = apiFailureHint(error);
    stop(command, `the API failed: ${sanitize(error.message).replace(/\.$/, '')}${hint ? `; ${hint}` : ''}; ${notDone}`, error);
  }
  if (error instanceof TargetError) return failCommand(command, new CliError(error.code, error.message), notDone);
  if (error instanceof CliError) stop(command, sanitize(error.message, { keepNewlines: true }), error);
  throw error;
}

/**
 * Ends `command` with exit 1 and `message`; with `--format json`, through the command's
 * `catch` (`catchAsJson`), which prints the error document for `cause`.
 */
export function stop(command: Command, message: string, cause: unknown): never {
  if (wantsJson(command.argv)) throw new Failure(message, cause);
  command.error(message, { exit: 1 });
}
