/**
 * Where policy rules come from, for validate and plan: the `policies/` directory of the working
 * directory when it exists, the `policies:` list of gatehouse.yaml, plus every `--policy PATH`
 * (a file or a directory; repeatable).
 * Results are printed as problems are: `file:line:col: error: Kind name: message [policy rule]`.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Flags } from '@oclif/core';

/** The directory searched for policy files without any flag. */
const DEFAULT_POLICY_DIR = 'policies';

export const policyFlags = {
  policy: Flags.string({
    description: `policy file or directory of CEL rules to check (repeatable; ${DEFAULT_POLICY_DIR}/ is read when it exists)`,
    multiple: true,
    multipleNonGreedy: true,
  }),
};

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** `policies/` (when it is a directory), gatehouse.yaml's `policies:` and the `--policy` paths, each once. */
export function policyPaths(flags: { policy?: string[] | undefined }, project?: { policies: string[] }, cwd = process.cwd()): string[] {
  const given = flags.policy ?? [];
  const found = isDirectory(resolve(cwd, DEFAULT_POLICY_DIR)) ? [DEFAULT_POLICY_DIR] : [];
  const seen = new Set<string>();
  return [...found, ...(project?.policies ?? []), ...given].filter((path) => {
    const key = resolve(cwd, path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
