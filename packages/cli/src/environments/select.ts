/**
 * Which environments a command runs for, and with which manifest paths and connection
 * settings: the one place that reads gatehouse.yaml for the CLI.
 *
 * - Without a project file (none found walking up from the working directory, and no
 *   --config), nothing changes: the PATHs (default `.`) and the connection flags and
 *   `GATEHOUSE_*` variables as they are. `--env` then is an error.
 * - With one, the PATHs default to its `manifests`, and `--env NAME` (or `GATEHOUSE_ENV`)
 *   chooses an environment: its overlays and variables apply, and its `api_url`, `api_key` and
 *   `stack` feed the connection settings, which a flag or a `GATEHOUSE_*` variable overrides.
 *   A project file without environments is just the manifest paths.
 * - `--env all` (plan, drift) runs every environment against its own target; a connection
 *   override would send them all to one target, so it is refused. `validate` without --env
 *   checks every environment.
 */
import {
  expandSetting,
  findProjectFile,
  ManifestProblems,
  PROJECT_FILE_NAME,
  ProjectSettingError,
  readProject,
  type Project,
  type ProjectEnvironment,
  type EngineOptions,
  API_KEY_VARIABLE,
  type Credentials,
} from '@gatehouse/engine/core';
import { resolve } from 'node:path';
import type { ConnectionFlagValues } from '../connection/flags.js';
import { policyPaths } from '../policy-flags.js';
import { CliError } from '../errors.js';

/** One run of a command: an environment (or none), its manifest paths and connection settings. */
export interface EnvironmentRun {
  environment?: ProjectEnvironment;
  paths: string[];
  /**
   * The engine's options gatehouse.yaml gives, for every command that reads manifests: its
   * `ignore:` rules and `exclude:` globs. Empty without a project file.
   */
  options: ProjectOptions;
  /** The connection settings; throws `CliError` when the environment's `${env:}` is unset. */
  connection(): ConnectionFlagValues;
}

/**
 * What gatehouse.yaml tells the engine besides paths and environments; and the files that are
 * not manifests (the project file itself, the policy directories), which a search of the
 * manifest paths passes over.
 */
export type ProjectOptions = Pick<EngineOptions, 'ignore' | 'excludeFiles' | 'notManifests' | 'envVariables' | 'credentials'>;

export interface Selection {
  project?: Project;
  runs: EnvironmentRun[];
  /** `--env all`, or every environment for validate. */
  all: boolean;
}

export interface SelectOptions {
  argv: readonly string[];
  flags: { env?: string | undefined; config?: string | undefined } & ConnectionFlagValues;
  /** Connection flags given by the user (flag or variable), not taken from their defaults; none by default. */
  explicit?: ReadonlySet<string>;
  /**
   * What no --env means when the project has environments: `every` (validate) or `required`
   * (the default). `--env all` is accepted only with `allowAll`.
   */
  withoutEnv?: 'every' | 'required';
  allowAll?: boolean;
  /** The command, for messages (`apply`). */
  command: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/** The flags oclif reports as set by the user or a variable (not from a default). */
export function explicitFlags(flags: object, metadata: { flags: Record<string, { setFromDefault?: boolean } | undefined> }): Set<string> {
  return new Set(Object.keys(flags).filter((name) => (flags as Record<string, unknown>)[name] !== undefined && !metadata.flags[name]?.setFromDefault));
}

const CONNECTION_OVERRIDES = ['api-url', 'api-key', 'stack', 'embedded'] as const;

export async function selectEnvironments(options: SelectOptions): Promise<Selection> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const argvPaths = [...options.argv];
  const wanted = options.flags.env;
  if (wanted !== undefined && wanted.trim() === '') {
    throw new CliError('environment_unknown', '--env (or GATEHOUSE_ENV) is set but empty; name an environment of gatehouse.yaml, or unset it');
  }
  const file = options.flags.config ?? (await findProjectFile(cwd));
  if (!file) {
    if (wanted !== undefined) {
      throw new CliError(
        'project_file',
        `--env ${wanted} needs a project file: no ${PROJECT_FILE_NAME} in ${cwd} or any directory above it; create one, or name it with --config FILE`,
      );
    }
    const notManifests = policyPaths({}, undefined, cwd).map((path) => resolve(cwd, path));
    return {
      runs: [
        {
          paths: argvPaths.length > 0 ? argvPaths : ['.'],
          options: { notManifests, credentials: credentialsOf(undefined, options.flags, env) },
          connection: () => options.flags,
        },
      ],
      all: false,
    };
  }
  const { project, problems } = await readProject(file, cwd);
  if (!project) throw new ManifestProblems(problems);
  const paths = argvPaths.length > 0 ? argvPaths : project.manifests;
  const names = project.environments.map((e) => e.name);
  const run = (environment?: ProjectEnvironment): EnvironmentRun => ({
    ...(environment ? { environment } : {}),
    paths,
    options: {
      ignore: project.ignore,
      excludeFiles: project.exclude,
      notManifests: [file, ...policyPaths({}, project, cwd)].map((path) => resolve(cwd, path)),
      envVariables: project.envVariables,
      credentials: credentialsOf(project, options.flags, env),
    },
    connection: () => (environment ? connectionOf(environment, options, env) : options.flags),
  });

  if (wanted === undefined) {
    if (names.length === 0) return { project, runs: [run()], all: false };
    if (options.withoutEnv === 'every') return { project, runs: project.environments.map(run), all: true };
    throw new CliError(
      'environment_required',
      `${project.file} defines environments ${names.join(', ')}; choose one with --env NAME or GATEHOUSE_ENV${options.allowAll ? ' (or --env all)' : ''}`,
    );
  }
  if (wanted === 'all') {
    if (!options.allowAll) {
      throw new CliError(
        'environment_all_refused',
        `${options.command} --env all is refused: ${options.command} one environment at a time (--env ${names[0] ?? 'NAME'}, then the next)`,
      );
    }
    const overrides = CONNECTION_OVERRIDES.filter((name) => options.explicit?.has(name));
    if (overrides.length > 0) {
      throw new CliError(
        'environment_all_refused',
        `--env all runs every environment against its own target, so --${overrides.join(', --')} (or its GATEHOUSE_ variable) would send them all to one; unset it, or choose one environment`,
      );
    }
    if (names.length === 0) throw new CliError('environment_unknown', `--env all: ${project.file} defines no environments`);
    return { project, runs: project.environments.map(run), all: true };
  }
  const environment = project.environments.find((e) => e.name === wanted);
  if (!environment) {
    throw new CliError(
      'environment_unknown',
      `no environment "${wanted}" in ${project.file}; ${names.length > 0 ? `choose one of ${names.join(', ')}` : 'it defines no environments'}`,
    );
  }
  return { project, runs: [run(environment)], all: false };
}

/**
 * The credentials no manifest may interpolate (the engine's `credentials`): `GATEHOUSE_API_KEY`,
 * every variable an environment's `api_key: ${env:NAME}` names, and the keys themselves (their
 * values, and --api-key's), so that a variable holding the same key under another name is
 * refused too.
 */
function credentialsOf(project: Project | undefined, flags: SelectOptions['flags'], env: Record<string, string | undefined>): Credentials {
  const names = [
    API_KEY_VARIABLE,
    ...(project?.environments ?? []).flatMap((e) => [...(e.api_key ?? '').matchAll(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!)),
  ];
  const values = [...names.map((name) => env[name]), flags['api-key']].filter((value): value is string => value !== undefined && value.trim() !== '');
  return { names: [...new Set(names)], values: [...new Set(values)] };
}

/** The environment's settings under the user's: a flag or GATEHOUSE_* variable wins. */
function connectionOf(environment: ProjectEnvironment, options: SelectOptions, env: Record<string, string | undefined>): ConnectionFlagValues {
  const setting = (field: 'api_url' | 'api_key' | 'stack') => {
    try {
      return expandSetting(environment, field, env);
    } catch (error) {
      if (error instanceof ProjectSettingError) throw new CliError('environment_setting', error.message);
      throw error;
    }
  };
  const flags = options.flags;
  const explicit = options.explicit ?? new Set<string>();
  // --embedded on purpose replaces the environment's API (a URL given too is #8's conflict error).
  const embedded = explicit.has('embedded') && flags.embedded === true;
  const apiUrl = explicit.has('api-url') ? flags['api-url'] : embedded ? undefined : setting('api_url');
  const apiKey = explicit.has('api-key') ? flags['api-key'] : embedded ? undefined : setting('api_key');
  const stack = explicit.has('stack') ? flags.stack : (setting('stack') ?? flags.stack);
  const { env: _env, config: _config, ...connection } = flags;
  return { ...connection, 'api-url': apiUrl, 'api-key': apiKey, stack };
}
