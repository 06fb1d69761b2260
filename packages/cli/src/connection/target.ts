/**
 * Target selection: which API a connected command talks to. Its own module (apart from the
 * connection's transport settings) because it is a safety rule, not a setting:
 *
 * - A variable that is set but empty (`GATEHOUSE_API_URL=""`, `GATEHOUSE_API_KEY=""`, what a
 *   fork's pull request gets when secrets are withheld) is an error naming the variable, never
 *   a fall-back to the embedded server.
 * - `--embedded` or `GATEHOUSE_API_URL=embedded` names the embedded reference server (over
 *   `.gatehouse/server.db`) explicitly.
 * - Without an API URL, the embedded server is the default on a laptop only: with `CI` set to
 *   any non-empty value (every CI system sets it) the command refuses unless `--embedded` is
 *   given, so a pipeline whose secrets are missing cannot "apply" to a throw-away database.
 *
 * Pure: reads only the values it is given, so it is decided before anything is opened,
 * created or sent.
 */
import { CliError } from '../errors.js';

/** The value of `GATEHOUSE_API_URL` / `--api-url` that names the embedded server. */
const EMBEDDED_URL = 'embedded';

export type TargetChoice = { mode: 'api'; url: string; key: string | undefined } | { mode: 'embedded'; reason: 'explicit' | 'default' };

export interface TargetInputs {
  /** `--api-url`, or `GATEHOUSE_API_URL` when non-empty (oclif drops empty variables). */
  apiUrl?: string | undefined;
  /** `--api-key`, or `GATEHOUSE_API_KEY` when non-empty. */
  apiKey?: string | undefined;
  embedded?: boolean | undefined;
}

/** What to do about each target variable when it is set but empty (also empty-values.ts). */
export const EMPTY_HINT: Record<string, string> = {
  GATEHOUSE_API_URL: `set it to the management API's base URL, to "${EMBEDDED_URL}" for the embedded reference server, or unset it`,
  GATEHOUSE_API_KEY: "set it to an API key (in CI, from a secret; a fork's pull request may not receive secrets), or unset it",
};

/**
 * Decides the target from the flags (already merged with their variables by oclif) and the
 * raw environment (to see variables that are set but empty). Throws `CliError` when the
 * choice is not explicit enough to be safe.
 */
export function chooseTarget(inputs: TargetInputs, env: NodeJS.ProcessEnv): TargetChoice {
  for (const [name, flag] of [
    ['GATEHOUSE_API_URL', inputs.apiUrl],
    ['GATEHOUSE_API_KEY', inputs.apiKey],
  ] as const) {
    // A flag given on the command line wins over the variable; an empty variable with no flag is a mistake.
    if (flag === undefined && env[name] !== undefined && env[name].trim() === '') {
      throw new CliError('empty_variable', `${name} is set but empty; ${EMPTY_HINT[name]}. Nothing was sent.`);
    }
  }
  for (const [flag, value] of [
    ['--api-url', inputs.apiUrl],
    ['--api-key', inputs.apiKey],
  ] as const) {
    if (value !== undefined && value.trim() === '')
      throw new CliError('empty_variable', `${flag} is empty; give a value or leave the flag out. Nothing was sent.`);
  }

  const url = inputs.apiUrl?.trim();
  const namesEmbedded = url !== undefined && url.toLowerCase() === EMBEDDED_URL;
  if (url !== undefined && !namesEmbedded) {
    if (inputs.embedded) {
      throw new CliError(
        'conflicting_target',
        `--embedded was given together with the API URL ${url}; choose one (unset GATEHOUSE_API_URL or drop --embedded)`,
      );
    }
    return { mode: 'api', url, key: inputs.apiKey };
  }
  if (namesEmbedded || inputs.embedded) return { mode: 'embedded', reason: 'explicit' };
  if (env.CI !== undefined && env.CI !== '') {
    throw new CliError(
      'target_required',
      "no API URL in CI (CI is set): set GATEHOUSE_API_URL and GATEHOUSE_API_KEY from the pipeline's secrets, or pass --embedded to use the embedded reference server (.gatehouse/server.db) on purpose. Nothing was sent.",
    );
  }
  return { mode: 'embedded', reason: 'default' };
}
