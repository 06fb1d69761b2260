/**
 * Lints the CI recipes of examples/ci and the GitHub Action (action.yml, action/main.mjs) the
 * way actionlint would, against the CLI they drive:
 * - every `gatehouse` command and flag they use exists, read from the BUILT command classes'
 *   own flag definitions (`npm test` runs `tsc -b` first);
 * - every apply applies a saved plan (`apply --plan FILE`), and FILE is the one the recipe's
 *   plan produced (`plan --out FILE`) and carried to the apply (artifact, download);
 * - the Action's inputs, outputs and step references are consistent, and its GitHub API steps
 *   (sticky comment, finding the merged pull request's plan) do what they say.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/cli.js';
// @ts-expect-error -- plain ESM script without type declarations
import * as action from '../action/main.mjs';
// @ts-expect-error -- plain ESM script without type declarations
import * as gitlab from '../examples/ci/gitlab/gatehouse-mr.mjs';

type Flags = Map<string, Set<string>>;
interface Invocation {
  command: string;
  args: string[];
  where: string;
}

const CI = join(REPO_ROOT, 'examples/ci');
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const yamlOf = (path: string) => parse(read(path)) as Record<string, unknown>;

/** Every command of the built CLI with the flags it accepts (long names, `no-` forms, chars). */
async function cliFlags(): Promise<Flags> {
  const dir = join(REPO_ROOT, 'packages/cli/dist/commands');
  const flags: Flags = new Map();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.js') && f !== 'index.js')) {
    const command = (await import(pathToFileURL(join(dir, file)).href)) as { default: { flags?: object; baseFlags?: object } };
    const definitions = { ...command.default.baseFlags, ...command.default.flags } as Record<string, { char?: string; allowNo?: boolean }>;
    const names = new Set(['help', 'h']);
    for (const [name, definition] of Object.entries(definitions)) {
      names.add(name);
      if (definition.allowNo) names.add(`no-${name}`);
      if (definition.char) names.add(definition.char);
    }
    flags.set(file.replace(/\.js$/, ''), names);
  }
  return flags;
}

/** Splits one shell command line into words (quotes removed), stopping at an operator. */
function words(text: string): string[] {
  const out: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\d?>>?|\|\|?|&&|;|\)|<)|([^\s"'|&;)<>]+)/g;
  for (const match of text.matchAll(pattern)) {
    if (match[3] !== undefined) break;
    out.push(match[1] ?? match[2] ?? match[4] ?? '');
  }
  return out;
}

/** The `gatehouse ...` command lines of a shell script (comments skipped, continuations joined). */
function invocations(script: string, where: string): Invocation[] {
  const found: Invocation[] = [];
  for (const line of script.replace(/\\\n\s*/g, ' ').split('\n')) {
    if (line.trim().startsWith('#')) continue;
    for (const match of line.matchAll(/(?:^|[\s;&|(!])gatehouse\s+([a-z][a-z-]*)(.*)$/g)) {
      if (/^(validate|plan|apply|drift)$/.test(match[1]!) && /^ (or|and) /.test(match[2]!)) continue; // prose in an echo
      found.push({ command: match[1]!, args: words(match[2]!), where });
    }
  }
  return found;
}

/** Problems of one invocation against the CLI's flags. */
function flagProblems(invocation: Invocation, flags: Flags): string[] {
  const known = flags.get(invocation.command);
  if (!known) return [`${invocation.where}: no command 'gatehouse ${invocation.command}'`];
  return invocation.args
    .filter((arg) => arg.startsWith('-') && arg !== '-')
    .map((arg) => arg.replace(/^--?/, '').replace(/=.*$/, ''))
    .filter((name) => !known.has(name))
    .map((name) => `${invocation.where}: 'gatehouse ${invocation.command}' has no flag --${name}`);
}

const valueOf = (args: string[], flag: string) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};

/** Every apply applies a saved plan that one of the recipe's plans wrote. */
function planProblems(all: Invocation[]): string[] {
  const produced = new Set(
    all
      .filter((i) => i.command === 'plan')
      .map((i) => valueOf(i.args, '--out'))
      .filter(Boolean),
  );
  return all
    .filter((i) => i.command === 'apply')
    .flatMap((i) => {
      const applied = valueOf(i.args, '--plan');
      if (!applied) return [`${i.where}: apply without --plan recomputes instead of applying the reviewed plan`];
      return produced.has(applied) ? [] : [`${i.where}: applies ${applied}, which no plan --out of the recipe produces`];
    });
}

type Step = { run?: string; uses?: string; with?: Record<string, unknown>; name?: string };
type Job = { steps?: Step[]; permissions?: Record<string, string> };

/** The gatehouse command lines of a workflow: its `run` scripts and its uses of the Action. */
function workflowInvocations(path: string, inputs: Set<string>): { all: Invocation[]; problems: string[] } {
  const workflow = yamlOf(path) as { jobs: Record<string, Job> };
  const all: Invocation[] = [];
  const problems: string[] = [];
  for (const [jobName, job] of Object.entries(workflow.jobs)) {
    for (const [index, step] of (job.steps ?? []).entries()) {
      const where = `${path} jobs.${jobName}.steps[${index}]`;
      if (step.run) all.push(...invocations(step.run, where));
      if (step.uses && /^(gatehouse\/gatehouse@|\.\/?$)/.test(step.uses)) {
        const given = step.with ?? {};
        for (const key of Object.keys(given)) if (!inputs.has(key)) problems.push(`${where}: the Action has no input '${key}'`);
        const command = String(given.command);
        if (!action.COMMANDS.includes(command)) {
          problems.push(`${where}: command '${command}' is not one of ${action.COMMANDS.join(', ')}`);
          continue;
        }
        const lines = action.gatehouseArgs(command, {
          paths: action.splitPaths(String(given.path ?? 'manifests')),
          env: String(given.env ?? ''),
          planFile: String(given['plan-file'] ?? 'gatehouse-plan.json'),
          prune: String(given.prune) === 'true',
        }) as string[][];
        all.push(...lines.map(([name, ...args]) => ({ command: name!, args, where: `${where} (the Action)` })));
      }
    }
  }
  return { all, problems };
}

/** GitLab jobs with their scripts (before_script through `extends`). */
function gitlabJobs(path: string) {
  const doc = yamlOf(path);
  const jobs = Object.entries(doc).filter(([name, value]) => !name.startsWith('.') && typeof value === 'object' && value !== null && 'script' in value) as [
    string,
    Record<string, unknown>,
  ][];
  const base = (job: Record<string, unknown>) => (job.extends ? (doc[String(job.extends)] as Record<string, unknown>) : {});
  return {
    variables: (doc.variables ?? {}) as Record<string, string>,
    jobs: jobs.map(([name, job]) => ({
      name,
      job,
      script: [...((job.before_script ?? base(job).before_script ?? []) as string[]), ...(job.script as string[])].join('\n'),
    })),
  };
}

let flags: Flags;
const actionYml = parse(read('action.yml')) as {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: (Step & { id?: string; if?: string; env?: Record<string, string>; shell?: string })[] };
};
const actionInputs = new Set(Object.keys(actionYml.inputs));

beforeAll(async () => {
  flags = await cliFlags();
});

describe('the GitHub Action', () => {
  it('is a composite action with the inputs of the issue, each referenced one exists', () => {
    expect(actionYml.runs.using).toBe('composite');
    expect([...actionInputs]).toEqual(expect.arrayContaining(['command', 'path', 'env', 'plan-file']));
    const text = read('action.yml');
    const usedInputs = [...text.matchAll(/inputs\.([a-z-]+)/g)].map((m) => m[1]!);
    expect(usedInputs.filter((name) => !actionInputs.has(name))).toEqual([]);
    const ids = new Set(actionYml.runs.steps.map((s) => s.id).filter(Boolean));
    const usedSteps = [...text.matchAll(/steps\.([a-z-]+)\.outputs/g)].map((m) => m[1]!);
    expect(usedSteps.filter((id) => !ids.has(id))).toEqual([]);
    for (const step of actionYml.runs.steps) {
      if (step.run) expect(step.shell, step.name).toBe('bash'); // composite run steps need a shell
      if (step.uses) expect(step.uses, step.name).toMatch(/^actions\/[a-z-]+@v\d+$/);
    }
  });

  it('passes every input main.mjs reads, under the name it reads', () => {
    const script = read('action/main.mjs');
    const read_ = new Set([...script.matchAll(/input\('([a-z-]+)'/g)].map((m) => `INPUT_${m[1]!.toUpperCase().replace(/-/g, '_')}`));
    const passed = new Set(actionYml.runs.steps.flatMap((s) => Object.keys(s.env ?? {})).filter((k) => k.startsWith('INPUT_')));
    expect([...read_].filter((name) => !passed.has(name))).toEqual([]);
  });

  it('runs only commands and flags the CLI has, for every command', () => {
    for (const command of action.COMMANDS as string[]) {
      const lines = action.gatehouseArgs(command, {
        paths: ['manifests'],
        env: 'prod',
        planFile: 'p.json',
        prune: true,
        targets: ['HTTPSEdge/api', 'Backend/*'],
      }) as string[][];
      for (const [name, ...args] of lines) expect(flagProblems({ command: name!, args, where: `action ${command}` }, flags)).toEqual([]);
    }
    expect(() => action.gatehouseArgs('destroy')).toThrow(/validate, plan, apply, drift/);
    // Targets reach plan and drift as one --target each; apply takes the saved plan's own.
    const [, plan] = action.gatehouseArgs('plan', { paths: ['m'], targets: ['HTTPSEdge/api', 'Backend/*'] }) as string[][];
    expect(plan).toEqual(expect.arrayContaining(['--target', 'HTTPSEdge/api']));
    expect(plan!.filter((a) => a === '--target')).toHaveLength(2);
    expect(action.gatehouseArgs('apply', { planFile: 'p.json', targets: ['HTTPSEdge/api'] })).toEqual([['apply', '--plan', 'p.json', '--yes']]);
  });

  it('installs the registry’s CLI at a version, or a release tarball by its path or https URL', () => {
    expect(action.installSource({ ownVersion: '0.1.0' })).toEqual({ spec: '@gatehouse/cli@0.1.0', key: '0.1.0' });
    expect(action.installSource({ version: 'v0.2.0', ownVersion: '0.1.0' })).toEqual({ spec: '@gatehouse/cli@0.2.0', key: '0.2.0' });
    expect(() => action.installSource({ version: 'latest', ownVersion: '0.1.0' })).toThrow(/version 'latest' is not a version like 0\.1\.0/);
    const files: Record<string, string> = { '/ws/release/gatehouse-cli-0.1.0.tgz': 'one build', '/ws/other.tgz': 'another build' };
    const readFile = (path: string) => {
      if (files[path] === undefined) throw Object.assign(new Error('no such file'), { code: 'ENOENT' });
      return Buffer.from(files[path]);
    };
    const local = action.installSource({ tarball: 'release/gatehouse-cli-0.1.0.tgz', cwd: '/ws', readFile }) as { spec: string; key: string };
    expect(local.spec).toBe('/ws/release/gatehouse-cli-0.1.0.tgz');
    expect(local.key).toMatch(/^file-[0-9a-f]{16}$/);
    // Keyed by content: a rebuilt tarball is installed again, not taken from the cache.
    expect(action.installSource({ tarball: '/ws/other.tgz', cwd: '/ws', readFile }).key).not.toBe(local.key);
    const url = 'https://github.com/o/r/releases/download/v0.1.0/gatehouse-cli-0.1.0.tgz';
    expect(action.installSource({ tarball: url })).toEqual({ spec: url, key: expect.stringMatching(/^url-[0-9a-f]{16}$/) });
    expect(() => action.installSource({ tarball: 'http://example.com/gatehouse-cli-0.1.0.tgz' })).toThrow(/only a path or an https:\/\/ URL/);
    expect(() => action.installSource({ tarball: 'missing.tgz', cwd: '/ws', readFile })).toThrow(/tarball 'missing\.tgz' cannot be read \(ENOENT\)/);
    expect(() => action.installSource({ version: '0.1.0', tarball: url })).toThrow(/version or tarball, not both/);
    // action.yml installs what the version step chose, and caches it under the step's key.
    const install = actionYml.runs.steps.find((s) => s.name === 'Install gatehouse')!;
    expect(install.run).toMatch(/npm install .*"\$SPEC"$/);
    expect(install.env).toEqual({ SPEC: '${{ steps.version.outputs.spec }}' });
    const cache = actionYml.runs.steps.find((s) => s.uses?.startsWith('actions/cache'))!;
    expect(String(cache.with!.key)).toContain('${{ steps.version.outputs.key }}');
  });

  it('applies the saved plan it uploads, and only that', () => {
    const [plan] = (action.gatehouseArgs('plan', { paths: ['m'], planFile: 'out/p.json' }) as string[][]).slice(-1);
    const [apply] = action.gatehouseArgs('apply', { planFile: 'out/p.json' }) as string[][];
    expect(valueOf(plan!, '--out')).toBe('out/p.json');
    expect(apply).toEqual(['apply', '--plan', 'out/p.json', '--yes']);
    const upload = actionYml.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))!;
    const download = actionYml.runs.steps.find((s) => s.uses?.startsWith('actions/download-artifact'))!;
    expect(upload.with).toMatchObject({ path: '${{ inputs.plan-file }}', name: '${{ steps.run.outputs.artifact-name }}' });
    expect(download.with).toMatchObject({ name: '${{ steps.find.outputs.artifact-name }}', 'run-id': '${{ steps.find.outputs.run-id }}' });
    expect(action.artifactName('abc123', '')).toBe('gatehouse-plan-abc123');
    expect(action.artifactName('abc123', 'prod')).toBe('gatehouse-plan-abc123-prod');
  });

  it('comments the plan, or the failure of validate or plan, and keeps one comment per environment', async () => {
    const ok = action.commentBody({ env: '', markdown: '### gatehouse plan for `https://api.example.com`, stack `web`\n\n**Plan:** 1 to add\n' }) as string;
    // The plan's own heading is the comment's one heading, right after the marker.
    expect(ok).toBe('<!-- gatehouse-plan:default -->\n### gatehouse plan for `https://api.example.com`, stack `web`\n\n**Plan:** 1 to add\n');
    expect(ok.match(/^#+ /gm)).toHaveLength(1);
    const failed = action.commentBody({ env: 'prod', failedStep: 'validate', exitCode: 1, errorOutput: 'a.yaml:3:5: unknown field ```x```' }) as string;
    expect(failed).toContain('<!-- gatehouse-plan:prod -->');
    expect(failed).toContain('**`gatehouse validate` failed** (exit 1)');
    expect(failed.match(/^#+ /gm)).toEqual(['### ']);
    expect(failed.match(/```/g)).toHaveLength(2); // the output cannot close the fence

    const calls: string[] = [];
    const fake = (comments: { id: number; body: string }[]) =>
      action.githubApi({
        token: 't',
        apiUrl: 'https://api',
        fetchFn: async (url: string, init: { method: string }) => {
          calls.push(`${init.method} ${url.replace('https://api', '')}`);
          return new Response(init.method === 'GET' ? JSON.stringify(comments) : '{}', { status: 200 });
        },
      });
    expect(
      await action.upsertComment(
        fake([
          { id: 7, body: 'lgtm' },
          { id: 9, body: `${action.commentMarker('')}\nold` },
        ]),
        'o/r',
        5,
        ok,
        '',
      ),
    ).toBe('updated');
    expect(calls.at(-1)).toBe('PATCH /repos/o/r/issues/comments/9');
    expect(await action.upsertComment(fake([{ id: 9, body: `${action.commentMarker('prod')}\nold` }]), 'o/r', 5, ok, '')).toBe('created');
    expect(calls.at(-1)).toBe('POST /repos/o/r/issues/5/comments');
  });

  it("replaces the runner's credentials in what it writes for people, as a last line of defence", () => {
    const env = { GATEHOUSE_API_KEY: 'gh_key_0123456789', INPUT_GITHUB_TOKEN: 'ghs_token_0123456789', SHORT: 'x' };
    expect(action.redactCredentials('key gh_key_0123456789, token ghs_token_0123456789, x', env)).toBe('key ***, token ***, x');
    expect(action.redactCredentials('nothing to hide', {})).toBe('nothing to hide');
  });

  it('on the default branch finds the merged pull request and the run that saved its plan, or says what is missing', async () => {
    const responses: Record<string, unknown> = {
      '/repos/o/r/commits/m1/pulls': [
        { number: 3, merged_at: null, base: { ref: 'main' }, head: { sha: 'x' } },
        { number: 4, merged_at: '2026-01-01', merge_commit_sha: 'm1', base: { ref: 'main' }, head: { sha: 'h4' } },
      ],
      '/repos/o/r/actions/artifacts?name=gatehouse-plan-h4&per_page=100': {
        artifacts: [
          { name: 'gatehouse-plan-h4', expired: false, created_at: '2026-01-01T10:00:00Z', workflow_run: { id: 100 } },
          { name: 'gatehouse-plan-h4', expired: false, created_at: '2026-01-01T11:00:00Z', workflow_run: { id: 101 } },
          { name: 'gatehouse-plan-h4', expired: true, created_at: '2026-01-01T12:00:00Z', workflow_run: { id: 102 } },
        ],
      },
      '/repos/o/r/commits/m2/pulls': [],
      '/repos/o/r/commits/m3/pulls': [{ number: 6, merged_at: '2026-01-02', merge_commit_sha: 'm3', base: { ref: 'main' }, head: { sha: 'h6' } }],
      '/repos/o/r/actions/artifacts?name=gatehouse-plan-h6&per_page=100': { artifacts: [] },
    };
    const api = action.githubApi({
      token: 't',
      apiUrl: '',
      fetchFn: async (url: string) => new Response(JSON.stringify(responses[url]), { status: responses[url] ? 200 : 404 }),
    });
    expect(await action.findPlan(api, 'o/r', 'm1', '', 'main')).toEqual({ pull: 4, headSha: 'h4', artifact: 'gatehouse-plan-h4', runId: 101 });
    await expect(action.findPlan(api, 'o/r', 'm2', '', 'main')).rejects.toThrow(/not the merge of a pull request/);
    await expect(action.findPlan(api, 'o/r', 'm3', '', 'main')).rejects.toThrow(/no plan artifact 'gatehouse-plan-h6' for pull request #6/);
  });
});

describe('the CI recipes', () => {
  const recipes = readdirSync(join(CI, 'github/workflows')).map((f) => `examples/ci/github/workflows/${f}`);

  it.each(recipes)('%s uses the Action and the CLI as they are', (path) => {
    const { all, problems } = workflowInvocations(path, actionInputs);
    expect(all.length).toBeGreaterThan(0);
    expect([...problems, ...all.flatMap((i) => flagProblems(i, flags)), ...planProblems(all)]).toEqual([]);
  });

  it('GitHub: the plan job may comment, the apply job may find and download the plan, both name the same plan file', () => {
    const workflow = yamlOf('examples/ci/github/workflows/gatehouse.yml') as { jobs: Record<string, Job>; env: Record<string, string> };
    const withOf = (job: string) => workflow.jobs[job]!.steps!.find((s) => s.uses?.startsWith('gatehouse/gatehouse@'))!.with!;
    expect(withOf('plan').command).toBe('plan');
    expect(withOf('apply').command).toBe('apply');
    expect(withOf('apply')['plan-file']).toBe(withOf('plan')['plan-file']);
    expect(workflow.jobs.plan!.permissions).toMatchObject({ 'pull-requests': 'write' });
    expect(workflow.jobs.apply!.permissions).toMatchObject({ actions: 'read', 'pull-requests': 'read' });
    expect(workflow.env.GATEHOUSE_API_URL).toMatch(/secrets\./);
  });

  it('GitLab: commands and flags exist; the plan job saves the file as an artifact, the apply job fetches that job’s file and applies it', () => {
    const { variables, jobs } = gitlabJobs('examples/ci/gitlab/.gitlab-ci.yml');
    const all = jobs.flatMap(({ name, script }) => invocations(script, `.gitlab-ci.yml ${name}`));
    expect([...all.flatMap((i) => flagProblems(i, flags)), ...planProblems(all)]).toEqual([]);
    const expand = (text: string) => text.replace(/\$\{?([A-Z_]+)\}?/g, (_, name: string) => variables[name] ?? `$${name}`);

    const planJob = jobs.find(({ script }) => invocations(script, '').some((i) => i.command === 'plan'))!;
    const out = valueOf(invocations(planJob.script, '').find((i) => i.command === 'plan')!.args, '--out')!;
    expect((planJob.job.artifacts as { paths: string[] }).paths).toContain(expand(out));
    expect(planJob.script).toMatch(/gatehouse-mr\.mjs note /);

    const applyJob = jobs.find(({ script }) => invocations(script, '').some((i) => i.command === 'apply'))!;
    const fetched = /gatehouse-mr\.mjs fetch-plan (\S+) (\S+)/.exec(applyJob.script)!;
    expect(fetched[1]).toBe(planJob.name);
    expect(words(fetched[2]!)[0]).toBe(out);
    expect(valueOf(invocations(applyJob.script, '').find((i) => i.command === 'apply')!.args, '--plan')).toBe(out);
    expect(jobs.some(({ script }) => invocations(script, '').some((i) => i.command === 'drift'))).toBe(true);
  });

  it('GitLab helper: one note per merge request, and the merged request’s saved plan or a reason', async () => {
    const calls: string[] = [];
    const routes: Record<string, unknown> = {
      'GET /merge_requests/5/notes?per_page=100&page=1&sort=asc': [
        { id: 1, body: 'lgtm' },
        { id: 2, body: `${gitlab.MARKER}\nold plan` },
      ],
      'GET /merge_requests/6/notes?per_page=100&page=1&sort=asc': [],
      'GET /repository/commits/m1/merge_requests': [{ iid: 4, state: 'merged', merge_commit_sha: 'm1', sha: 'h4' }],
      'GET /merge_requests/4/pipelines?per_page=100': [
        { id: 30, sha: 'h4', status: 'success' },
        { id: 31, sha: 'h4', status: 'success' },
        { id: 32, sha: 'h4', status: 'failed' },
        { id: 33, sha: 'older', status: 'success' },
      ],
      'GET /pipelines/31/jobs?scope[]=success&per_page=100': [{ id: 700, name: 'gatehouse-plan' }],
      'GET /jobs/700/artifacts/gatehouse-plan.json': '{"plan":"reviewed"}',
      'GET /repository/commits/m2/merge_requests': [{ iid: 9, state: 'opened', sha: 'x' }],
    };
    const api = gitlab.gitlabApi({
      apiUrl: 'https://gl/api/v4',
      projectId: 'group/project',
      headers: gitlab.tokenHeaders({ GITLAB_API_TOKEN: 'glpat' }),
      fetchFn: async (url: string, init: { method: string; headers: Record<string, string> }) => {
        expect(init.headers['private-token']).toBe('glpat');
        const key = `${init.method} ${url.replace('https://gl/api/v4/projects/group%2Fproject', '')}`;
        calls.push(key);
        const body = routes[key];
        if (init.method !== 'GET') return new Response('{}', { status: 200 });
        return body === undefined ? new Response('not found', { status: 404 }) : new Response(typeof body === 'string' ? body : JSON.stringify(body));
      },
    });
    expect(await gitlab.upsertNote(api, 5, 'new plan')).toBe('updated');
    expect(calls.at(-1)).toBe('PUT /merge_requests/5/notes/2');
    expect(await gitlab.upsertNote(api, 6, 'new plan')).toBe('posted');
    expect(calls.at(-1)).toBe('POST /merge_requests/6/notes');

    const found = await gitlab.fetchPlan(api, 'm1', 'gatehouse-plan', 'gatehouse-plan.json');
    expect(found).toMatchObject({ mr: 4, head: 'h4', job: 700 });
    expect(found.bytes.toString()).toBe('{"plan":"reviewed"}');
    await expect(gitlab.fetchPlan(api, 'm2', 'gatehouse-plan', 'gatehouse-plan.json')).rejects.toThrow(/not the merge of a merge request/);
    expect(() => gitlab.tokenHeaders({})).toThrow(/GITLAB_API_TOKEN/);
    expect(gitlab.tokenHeaders({ CI_JOB_TOKEN: 'j' })).toEqual({ 'job-token': 'j' });
  });

  it('the shell and GitLab recipes install a release tarball when GATEHOUSE_TARBALL names one', () => {
    for (const path of ['examples/ci/shell/gatehouse-ci.sh', 'examples/ci/gitlab/.gitlab-ci.yml']) {
      const text = read(path);
      expect(text, path).toContain('SOURCE="${GATEHOUSE_TARBALL:-@gatehouse/cli@$GATEHOUSE_VERSION}"');
      expect(text, path).toMatch(/npm install --prefix \S+ --omit=optional [^\n]*"\$SOURCE"/);
    }
    expect(gitlabJobs('examples/ci/gitlab/.gitlab-ci.yml').variables).toHaveProperty('GATEHOUSE_TARBALL', '');
  });

  it('shell: commands and flags exist, and apply applies the file plan saved', () => {
    const all = invocations(read('examples/ci/shell/gatehouse-ci.sh'), 'gatehouse-ci.sh');
    expect(all.map((i) => i.command).sort()).toEqual(['apply', 'drift', 'plan', 'validate']);
    expect([...all.flatMap((i) => flagProblems(i, flags)), ...planProblems(all)]).toEqual([]);
  });

  it('the lint finds what it looks for (a recipe with a typo or a recomputed apply fails)', () => {
    const bad = invocations('gatehouse plan m --outt p.json\n  gatehouse aply\ngatehouse apply m --yes --prune # not --plan', 'bad');
    expect(bad.flatMap((i) => flagProblems(i, flags))).toEqual(["bad: 'gatehouse plan' has no flag --outt", "bad: no command 'gatehouse aply'"]);
    expect(planProblems(bad)).toEqual(['bad: apply without --plan recomputes instead of applying the reviewed plan']);
    expect(invocations('npm install @gatehouse/cli && gatehouse validate "my dir" > out.log', 'x')).toEqual([
      { command: 'validate', args: ['my dir'], where: 'x' },
    ]);
  });
});
