/**
 * Which `${env:NAME}` values are secret, and which may never be read (interpolate.ts).
 *
 * In a GitOps pipeline anyone who can open a pull request controls the manifests that CI plans,
 * and every output of a plan (text, JSON, the Markdown of the pull request's comment, HTML, the
 * saved plan, error messages) is read by people who should not see the runner's secrets. So a
 * value read from the environment is secret unless gatehouse.yaml declares it plain
 * (`variables: {REGION: {env: REGION, secret: false}}`): every output shows it as
 * `(sensitive: env NAME)` (identity/env-fields.ts). `${var:NAME}` values are written in the
 * repository, so they are plain.
 *
 * The CLI's own credentials (`GATEHOUSE_API_KEY`, the variable an environment names for its
 * key, or any variable holding the key in use) can never be interpolated, secret or not: a
 * manifest that sends the key anywhere is a problem at its line.
 */

/** What gatehouse.yaml's `variables:` says of one variable. */
export interface EnvVariable {
  /** The environment variable read for `${env:NAME}` (default: NAME). */
  env?: string;
  /** Whether its value is shown as `(sensitive: env NAME)` (default: true). */
  secret?: boolean;
}

/** The credentials a command connects with: no manifest may interpolate them. */
export interface Credentials {
  /** Variables that hold a key (`GATEHOUSE_API_KEY`, an environment's `api_key: ${env:NAME}`). */
  names: readonly string[];
  /** The keys themselves (the one in use, the values of those variables): matched by value. */
  values: readonly string[];
}

/** The variable the CLI reads its API key from: never interpolated, whatever the caller says. */
export const API_KEY_VARIABLE = 'GATEHOUSE_API_KEY';

/** Where a value read from a secret variable went into a manifest. */
export interface SecretUse {
  /** Path of the string in its document. */
  path: readonly (string | number)[];
  /** The secret variables it holds (`${env:NAME}` names, in order, each once). */
  names: readonly string[];
  /** The string after substitution: it holds the secret. */
  value: string;
  /** The secret values themselves, as the variables hold them. */
  raw: readonly string[];
  /** The string as written (`key=${env:API_KEY}`): no secret, what export writes back. */
  template: string;
}

/** `(sensitive: env NAME)`, what every output shows in place of a secret variable's value. */
export const envLabel = (names: readonly string[]): string => `(sensitive: env ${names.join(', ')})`;
