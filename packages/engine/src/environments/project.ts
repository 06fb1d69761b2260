/**
 * The project file `gatehouse.yaml`: found by walking up from the working directory (or named
 * with --config), checked against its JSON Schema (`ProjectFile` in @gatehouse/schemas) with
 * every problem at file:line:col, and turned into base paths and environments whose paths are
 * relative to the working directory (they are written relative to the file).
 *
 * Reading the file needs no environment variable: `${env:NAME}` in `api_url`, `api_key` and
 * `stack` is expanded only when a command connects to that environment (`expandSetting`), so
 * validate and render work without any secret set.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ValidateFunction } from 'ajv';
import type { ProjectFile } from '@gatehouse/schemas';
import { problem, type Problem } from '../problems.js';
import { formatLocation, type SourceLocation } from '../source.js';
import { readManifestFile } from '../load/files.js';
import type { Variables } from '../load/interpolate.js';
import { parseFile } from '../load/documents.js';
import { explain } from '../load/validate.js';
import type { EnvironmentInput } from './documents.js';
import type { ProjectIgnoreRule } from '../plan/ignore.js';
import { projectIgnoreProblems } from './project-ignore.js';
import { excludeGlobProblem, type ExcludeRules } from '../load/exclude.js';
import type { EnvVariable } from '../load/env-policy.js';

export const PROJECT_FILE_NAME = 'gatehouse.yaml';

export interface ProjectEnvironment extends EnvironmentInput {
  /** As written (possibly `${env:NAME}`); see `expandSetting`. */
  stack?: string;
  api_url?: string;
  api_key?: string;
  /** Where a field of this environment is written, for messages. */
  locate(field: string): SourceLocation;
}

export interface Project {
  /** The file as the user would name it. */
  file: string;
  /** Base manifest paths, relative to the working directory. */
  manifests: string[];
  /** In the file's order. */
  environments: ProjectEnvironment[];
  /** Policy files or directories (`policies:`), relative to the working directory. */
  policies: string[];
  /** `ignore:`: fields of every object of a kind that plan, apply and drift leave alone (plan/ignore.ts). */
  ignore: ProjectIgnoreRule[];
  /** `exclude:`: files of other tools that a search of the manifest paths leaves out (load/exclude.ts). */
  exclude: ExcludeRules;
  /** `variables:`: where each `${env:NAME}` is read from, and whether it is secret (load/env-policy.ts). */
  envVariables: Record<string, EnvVariable>;
}

/**
 * Compiled on first use, ajv and the schema imported then: commands without a project file
 * never load them (the schemas' main entry builds every TypeBox schema on import).
 */
let compiled: ValidateFunction | undefined;
async function projectValidator(): Promise<ValidateFunction> {
  if (compiled) return compiled;
  const [{ Ajv }, { ProjectFile }] = await Promise.all([import('ajv'), import('@gatehouse/schemas')]);
  return (compiled = new Ajv({ allErrors: true, strict: false, verbose: true }).compile(ProjectFile));
}

const display = (path: string, cwd: string) => {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
};

/** `gatehouse.yaml` in `from` or the nearest directory above it; `undefined` when there is none. */
export async function findProjectFile(from: string = process.cwd()): Promise<string | undefined> {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, PROJECT_FILE_NAME);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Reads and checks a project file; `project` is set only when there is no problem. */
export async function readProject(path: string, cwd: string = process.cwd()): Promise<{ project?: Project; problems: Problem[] }> {
  const file = display(resolve(cwd, path), cwd);
  // Read as a manifest is: its size checked first, bytes that are not UTF-8 a problem at their
  // line and column rather than a silent U+FFFD in a value that reaches the manifests.
  const read = await readManifestFile(path, file);
  if ('problem' in read) {
    const why = read.problem;
    return {
      problems: [why.code === 'path_unreadable' ? problem('project_invalid', why.message.replace(/^cannot read /, 'cannot read the project file ')) : why],
    };
  }
  const { text } = read;
  const { documents, problems } = parseFile(file, text);
  if (problems.length > 0) return { problems };
  if (documents.length !== 1) {
    return { problems: [problem('project_invalid', `${file} must hold one YAML document with manifests and environments`, { file, line: 1, col: 1 })] };
  }
  const doc = documents[0]!;
  const validateProject = await projectValidator();
  if (!validateProject(doc.value)) {
    return { problems: explain(validateProject.errors ?? [], doc).map((p) => ({ ...p, message: plainer(p.message) })) };
  }
  const value = doc.value as ProjectFile;
  const dir = dirname(resolve(cwd, path));
  const local = (p: string) => display(resolve(dir, p), cwd);
  const manifests = value.manifests.map(local);
  const environments: ProjectEnvironment[] = [];
  for (const [name, env] of Object.entries(value.environments ?? {})) {
    const overlays = (env.overlays ?? []).map(local);
    overlays.forEach((overlay, i) => {
      const inside = manifests.find((m) => isWithin(resolve(cwd, overlay), resolve(cwd, m)));
      if (inside !== undefined) {
        problems.push(
          problem(
            'project_invalid',
            `overlay path ${overlay} of environment ${name} is inside the manifest path ${inside}, so its documents would also be read as base manifests; move the overlays out of ${inside}`,
            doc.locate(['environments', name, 'overlays', i]),
          ),
        );
      }
    });
    const values = env.vars ?? {};
    const vars: Variables = { environment: name, values, locate: (v) => doc.locate(['environments', name, 'vars', v], { key: true }) };
    environments.push({
      name,
      overlays,
      vars,
      ...(env.stack !== undefined ? { stack: env.stack } : {}),
      ...(env.api_url !== undefined ? { api_url: env.api_url } : {}),
      ...(env.api_key !== undefined ? { api_key: env.api_key } : {}),
      locate: (field) => doc.locate(['environments', name, field]),
    });
  }
  problems.push(...(await projectIgnoreProblems(value.ignore ?? [], (path) => doc.locate(['ignore', ...path]))));
  (value.exclude ?? []).forEach((glob, i) => {
    const why = excludeGlobProblem(glob);
    if (why) problems.push(problem('project_invalid', why, doc.locate(['exclude', i])));
  });
  if (problems.length > 0) return { problems };
  const exclude: ExcludeRules = { globs: value.exclude ?? [], base: dir, file };
  return {
    project: {
      file,
      manifests,
      environments,
      policies: (value.policies ?? []).map(local),
      ignore: value.ignore ?? [],
      exclude,
      envVariables: value.variables ?? {},
    },
    problems,
  };
}

/** The schema's messages where a pattern or a name map says too little. */
function plainer(message: string): string {
  const unknown = /^unknown field "(.*)" in (environments(?:\.[^.]+\.vars)?); expected one of: $/.exec(message);
  if (unknown?.[2] === 'environments')
    return `environment name "${unknown[1]}" must be lower-case letters, digits, - and _ (at most 63; "all" is reserved for --env all)`;
  if (unknown) return `variable name "${unknown[1]}" in ${unknown[2]} must be letters, digits and _ (not starting with a digit)`;
  const key = /^(environments\.[^.]+\.api_key) must match pattern/.exec(message);
  if (key) return `${key[1]} must be \${env:NAME}: an API key is never written in the repository; set it in a variable (a CI secret)`;
  return message;
}

const isWithin = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);

/**
 * A connection setting of an environment with its `${env:NAME}` placeholders expanded. An
 * unset variable is an error naming it and the line of the setting, never the value.
 */
export function expandSetting(
  environment: ProjectEnvironment,
  field: 'stack' | 'api_url' | 'api_key',
  env: Record<string, string | undefined>,
): string | undefined {
  const text = environment[field];
  if (text === undefined) return undefined;
  return text.replace(/\$\$(?=\{)|\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name: string | undefined) => {
    if (name === undefined) return '$';
    const value = env[name];
    if (value === undefined || value === '') {
      throw new ProjectSettingError(
        `environment ${environment.name}: ${field} is \${env:${name}} (${formatLocation(environment.locate(field))}), and ${name} is ${value === undefined ? 'not set' : 'empty'}; set it, or override with the ${field === 'api_url' ? '--api-url flag or GATEHOUSE_API_URL' : field === 'api_key' ? 'GATEHOUSE_API_KEY variable' : '--stack flag or GATEHOUSE_STACK'}`,
      );
    }
    return value;
  });
}

/** A setting of an environment that cannot be used (an unset variable). */
export class ProjectSettingError extends Error {
  override name = 'ProjectSettingError';
}
