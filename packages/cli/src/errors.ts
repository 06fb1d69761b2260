/**
 * The CLI's error codes: one table. A `CliError` is a user-facing failure (exit 1) whose
 * message says what to do; it never contains the API key.
 */
export const CLI_ERROR_CODES = {
  empty_flag: 'a flag was given an empty value (it is refused, never read as left out)',
  empty_variable: 'a GATEHOUSE_* variable a flag reads (GATEHOUSE_API_URL, GATEHOUSE_STACK, ...), or the API URL or key flag, is set but empty',
  target_required: 'CI is set and no API URL was given (pass --embedded to use the embedded server on purpose)',
  conflicting_target: '--embedded was given together with an API URL',
  bad_api_url: 'the API URL is not an http(s) URL (or has credentials, a query or a fragment)',
  missing_api_key: 'an API URL was given without an API key',
  bad_api_key: 'the API key has white space or control characters inside it',
  bad_duration: '--timeout or --deadline is not a duration such as 30s, 500ms or 2m',
  bad_ca_file: '--ca-file cannot be read or holds no PEM certificate',
  bad_proxy: 'the proxy variable for the API URL (HTTPS_PROXY, HTTP_PROXY or ALL_PROXY) is not an http(s) URL',
  bad_from_stack: '--from-stack is empty, has control characters, or names the stack being planned',
  bad_stack: '--stack (GATEHOUSE_STACK) is set but empty, or has control characters',
  bad_rate_limit: '--rate-limit (GATEHOUSE_RATE_LIMIT) is neither of the form 120/60s nor off',
  manifest_problems: 'the manifests have problems (each printed as file:line:col: message)',
  policy_failed:
    'the manifests alone break a policy rule of severity error: plan stops before its first request (each failed rule printed as validate prints it)',
  api_failure: 'the API answered with an error or could not be reached',
  write_failed: 'an output file could not be written',
  export_would_overwrite: 'export would replace files it did not write (use --overwrite or another --out)',
  plan_would_overwrite: 'plan --out names a file that is not a saved plan (a manifest, say): it is not replaced',
  render_would_overwrite: 'render --out would replace files it did not write, such as the manifests themselves (use another --out)',
  plan_out_format: 'plan --out names a report file (.html, .md, .txt): --out saves the JSON plan, and show renders it in any format',
  plan_file: 'apply --plan or show: the saved plan cannot be read or is not a plan',
  plan_target: 'apply --plan: the saved plan was made against another API',
  apply_refused: 'apply refused before writing anything (stale manifests, prevent_destroy, delete threshold)',
  server_not_installed: 'serve or the embedded default needs @gatehouse/server, an optional dependency that is not installed',
  locked: "another apply holds the stack's lock (apply --lock-timeout waits for it; gatehouse unlock removes a stale one)",
  lock_lost: "apply lost the stack's lock while it ran (gatehouse unlock, or a takeover): it started no write after that",
  not_confirmed: 'apply was not confirmed (no terminal and no --yes, or an answer other than yes)',
  project_file: 'gatehouse.yaml (or --config FILE) is missing where --env needs it, or cannot be read',
  environment_required: 'gatehouse.yaml defines environments and the command was given none (--env NAME or GATEHOUSE_ENV)',
  environment_unknown: '--env names no environment of gatehouse.yaml',
  environment_all_refused: '--env all where one environment is needed (apply, export, render) or with a connection override',
  environment_setting: 'a connection setting of an environment cannot be used (its ${env:NAME} is unset or empty)',
  target_invalid: 'a --target is not Kind/NAME with a known kind (or is empty, or holds control characters)',
  target_unmatched: 'every --target matched nothing (no declared object and no live object the stack owns)',
  target_conflict: '--target was given with --prune, --prune-all or --plan',
  watch_flags:
    'watch: flags that do nothing together (--prune without --self-heal or --apply-git), or an --interval, --metrics-addr or --notify-webhook that cannot be used',
  listen_failed: 'watch could not listen on --metrics-addr (in use, or not an address of this machine)',
} as const;

export type CliErrorCode = keyof typeof CLI_ERROR_CODES;

export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
