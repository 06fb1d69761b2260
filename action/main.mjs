#!/usr/bin/env node
/**
 * The steps of the gatehouse GitHub Action (`action.yml`), as one dependency-free Node script
 * (Node 20+: global fetch). Each subcommand is one step:
 *
 *   version    what to install: the registry's @gatehouse/cli at the `version` input (default:
 *              this action's own version, so a tag of the action installs the CLI of the same
 *              release), or the release tarball the `tarball` input names (a path or an https
 *              URL of gatehouse-cli-<version>.tgz, from `npm run release`); and the cache key
 *   run        runs gatehouse for the `command` input; writes the step outputs, the job summary
 *              and, for plan, the body of the pull-request comment (also on failure)
 *   comment    posts or updates the sticky comment of the pull request (one per environment)
 *   find-plan  on the default branch: the merged pull request of this commit, and the workflow
 *              run that uploaded the plan of its head commit (artifact `gatehouse-plan-<sha>`)
 *
 * Inputs arrive as INPUT_* variables set by action.yml; GitHub's own variables (GITHUB_*) say
 * where to write outputs and which repository and event this is. The pure parts (`gatehouseArgs`,
 * `commentBody`, `artifactName`, `pickMergedPull`, `pickArtifact`) are tested in
 * test/ci-recipes.test.ts; the API calls take `fetch` so that they can be tested too.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const COMMANDS = ['validate', 'plan', 'apply', 'drift'];
/** GitHub's limit for a comment is 65,536 characters; keep room for the heading. */
const MAX_COMMENT = 60_000;

/** Splits the `path` input (spaces or new lines) into manifest PATHs. */
export function splitPaths(text) {
  return (text ?? '').split(/\s+/).filter(Boolean);
}

/**
 * The gatehouse command lines of one Action command. Plan runs validate first, so that a
 * manifest mistake is reported as such; apply applies the saved plan and nothing else (its
 * manifests and targets are the plan's own), with --prune only when asked. `targets` (plan,
 * drift) become one --target each.
 */
export function gatehouseArgs(command, { paths = [], env = '', planFile = 'gatehouse-plan.json', prune = false, targets = [] } = {}) {
  const envArgs = env ? ['--env', env] : [];
  const targetArgs = targets.flatMap((target) => ['--target', target]);
  switch (command) {
    case 'validate':
      return [['validate', ...paths, ...envArgs]];
    case 'plan':
      return [
        ['validate', ...paths, ...envArgs],
        ['plan', ...paths, '--format', 'markdown', '--out', planFile, '--detailed-exitcode', ...targetArgs, ...envArgs],
      ];
    case 'apply':
      return [['apply', '--plan', planFile, '--yes', ...(prune ? ['--prune'] : []), ...envArgs]];
    case 'drift':
      return [['drift', ...paths, '--format', 'markdown', ...targetArgs, ...envArgs]];
    default:
      throw new Error(`command must be one of ${COMMANDS.join(', ')}, not '${command}'`);
  }
}

/** The marker that finds this action's comment again (one per environment). */
export const commentMarker = (env) => `<!-- gatehouse-plan:${env || 'default'} -->`;

/** Name of the artifact holding the plan of a pull request's head commit. */
export const artifactName = (sha, env) => `gatehouse-plan-${sha}${env ? `-${env}` : ''}`;

/** Text safe inside a fenced block: no run of three backticks can close it early. */
const fence = (text) => text.replace(/```/g, '`\u200b``');

/**
 * The comment (and job summary) of one run: the Markdown plan when the plan succeeded, under
 * its own heading (which names the target, the stack and the environment); otherwise a heading
 * and which step failed, with its error output, so that a reviewer sees it on the PR. One
 * heading either way, after the marker that finds the comment again.
 */
export function commentBody({ env, failedStep, exitCode, markdown, errorOutput, runUrl }) {
  const footer = runUrl ? `\n\n<sub>[workflow run](${runUrl})</sub>\n` : '\n';
  let body;
  if (failedStep) {
    const output = errorOutput.trim().slice(-MAX_COMMENT / 2) || '(no output)';
    body = `### gatehouse plan${env ? ` (${env})` : ''}\n\n**\`gatehouse ${failedStep}\` failed** (exit ${exitCode}); nothing can be applied until it passes.\n\n\`\`\`text\n${fence(output)}\n\`\`\``;
  } else {
    body = markdown.trim();
    if (body.length > MAX_COMMENT) body = `${body.slice(0, MAX_COMMENT)}\n\n… (cut; the full plan is in the job summary and the plan artifact)`;
  }
  return `${commentMarker(env)}\n${body}${footer}`;
}

/**
 * Variables of the runner that hold credentials: the API key gatehouse connects with, and the
 * tokens GitHub gives a job. gatehouse never prints a value it read from the environment (a
 * manifest's `${env:NAME}` is `(sensitive: env NAME)` in every output, the API key cannot be
 * read at all); what this action writes for people (the comment, the job summary) has their
 * values replaced by `***` all the same, as a last line of defence.
 */
export const CREDENTIAL_VARIABLES = ['GATEHOUSE_API_KEY', 'GITHUB_TOKEN', 'INPUT_GITHUB_TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN'];

/** `text` with the value of each credential variable of `env` (8 characters or more) replaced by `***`. */
export function redactCredentials(text, env = process.env) {
  let out = text;
  for (const name of CREDENTIAL_VARIABLES) {
    const value = env[name];
    if (value && value.length >= 8) out = out.split(value).join('***');
  }
  return out;
}

/** The merged pull request that `sha` came from, among the pulls GitHub associates with it. */
export function pickMergedPull(pulls, sha, defaultBranch) {
  const merged = pulls.filter((p) => p.merged_at && (!defaultBranch || p.base?.ref === defaultBranch));
  return merged.find((p) => p.merge_commit_sha === sha) ?? merged[0];
}

/** The newest unexpired artifact of that name, or undefined. */
export function pickArtifact(artifacts, name) {
  return artifacts.filter((a) => a.name === name && !a.expired).sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)))[0];
}

/** A small client of the GitHub REST API (the parts this action needs). */
export function githubApi({ token, apiUrl = 'https://api.github.com', fetchFn = fetch }) {
  const call = async (method, path, body) => {
    const response = await fetchFn(`${apiUrl}${path}`, {
      method,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${token}`,
        'x-github-api-version': '2022-11-28',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) {
      const error = new Error(`GitHub API ${method} ${path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
      error.status = response.status;
      throw error;
    }
    return response.status === 204 ? undefined : response.json();
  };
  return { call };
}

/** Posts the comment, or updates the one this action posted before (found by its marker). */
export async function upsertComment(api, repo, number, body, env) {
  const marker = commentMarker(env);
  for (let page = 1; page <= 50; page++) {
    const comments = await api.call('GET', `/repos/${repo}/issues/${number}/comments?per_page=100&page=${page}`);
    const mine = comments.find((c) => typeof c.body === 'string' && c.body.startsWith(marker));
    if (mine) {
      await api.call('PATCH', `/repos/${repo}/issues/comments/${mine.id}`, { body });
      return 'updated';
    }
    if (comments.length < 100) break;
  }
  await api.call('POST', `/repos/${repo}/issues/${number}/comments`, { body });
  return 'created';
}

/** The run that uploaded the plan of the pull request merged as `sha`; throws saying what is missing. */
export async function findPlan(api, repo, sha, env, defaultBranch) {
  const pulls = await api.call('GET', `/repos/${repo}/commits/${sha}/pulls`);
  const pull = pickMergedPull(pulls, sha, defaultBranch);
  if (!pull) {
    throw new Error(
      `commit ${sha} is not the merge of a pull request, so there is no reviewed plan to apply; ` +
        'changes reach the default branch through pull requests (whose plan this action saves), or run plan and apply by hand',
    );
  }
  const name = artifactName(pull.head.sha, env);
  const { artifacts } = await api.call('GET', `/repos/${repo}/actions/artifacts?name=${encodeURIComponent(name)}&per_page=100`);
  const artifact = pickArtifact(artifacts, name);
  if (!artifact) {
    throw new Error(
      `no plan artifact '${name}' for pull request #${pull.number} (head ${pull.head.sha}): ` +
        'the plan job did not run on its last commit, failed, or the artifact expired; re-run the plan on the pull request (or revert and re-open it)',
    );
  }
  return { pull: pull.number, headSha: pull.head.sha, artifact: name, runId: artifact.workflow_run.id };
}

// --- the steps -------------------------------------------------------------------------------

const input = (name, fallback = '') => process.env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] || fallback;
const setOutput = (name, value) => process.env.GITHUB_OUTPUT && appendFileSync(process.env.GITHUB_OUTPUT, `${name}=${value}\n`);
const summary = (text) => process.env.GITHUB_STEP_SUMMARY && appendFileSync(process.env.GITHUB_STEP_SUMMARY, `${redactCredentials(text)}\n`);
const event = () => (process.env.GITHUB_EVENT_PATH ? JSON.parse(readFileSync(process.env.GITHUB_EVENT_PATH, 'utf8')) : {});

/** Runs `gatehouse args`, echoing its output to the log, and resolves with its exit code and output. */
function runGatehouse(args) {
  return new Promise((resolve) => {
    console.log(`::group::gatehouse ${args.join(' ')}`);
    const child = spawn('gatehouse', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => ((stdout += chunk), process.stdout.write(chunk)));
    child.stderr.on('data', (chunk) => ((stderr += chunk), process.stderr.write(chunk)));
    child.on('error', (error) => ((stderr += `${error.message}\n`), resolve({ code: 127, stdout, stderr })));
    child.on('close', (code) => (console.log('::endgroup::'), resolve({ code: code ?? 1, stdout, stderr })));
  });
}

async function stepRun() {
  const command = input('command');
  const env = input('env');
  const planFile = input('plan-file', 'gatehouse-plan.json');
  const runUrl = process.env.GITHUB_RUN_ID
    ? `${process.env.GITHUB_SERVER_URL}/${process.env.GITHUB_REPOSITORY}/actions/runs/${process.env.GITHUB_RUN_ID}`
    : undefined;
  const steps = gatehouseArgs(command, {
    paths: splitPaths(input('path', '.')),
    env,
    planFile,
    prune: input('prune') === 'true',
    targets: splitPaths(input('targets')),
  });
  let last;
  for (const args of steps) {
    last = await runGatehouse(args);
    const success = last.code === 0 || (last.code === 2 && args[0] === 'plan'); // plan: 2 = changes
    if (!success) {
      setOutput('exitcode', last.code);
      if (command === 'plan') {
        writeComment(commentBody({ env, failedStep: args[0], exitCode: last.code, errorOutput: `${last.stderr}\n${last.stdout}`, runUrl }));
      }
      if (command === 'drift' && last.code === 2) summary(last.stdout); // drift found: the job fails and alerts
      process.exitCode = last.code;
      return;
    }
  }
  setOutput('exitcode', last.code);
  if (command === 'plan') {
    setOutput('has-changes', last.code === 2 ? 'true' : 'false');
    setOutput('plan-file', planFile);
    setOutput('plan-dir', dirname(planFile));
    const head = event().pull_request?.head?.sha ?? process.env.GITHUB_SHA ?? 'unknown';
    setOutput('artifact-name', artifactName(head, env));
    writeComment(commentBody({ env, markdown: last.stdout, runUrl }));
  } else if (command === 'drift') {
    summary(last.stdout);
  } else if (command === 'apply') {
    summary(`### gatehouse apply\n\n\`\`\`text\n${fence(`${last.stdout}${last.stderr}`.trim().slice(-MAX_COMMENT))}\n\`\`\``);
  }
}

function writeComment(body) {
  const file = join(process.env.RUNNER_TEMP || '.', `gatehouse-comment-${process.pid}.md`);
  writeFileSync(file, redactCredentials(body));
  setOutput('comment-file', file);
  summary(body);
}

async function stepComment() {
  const file = input('comment-file');
  const number = event().pull_request?.number;
  if (!file || !number) return console.log('no pull request or no comment to post');
  const api = githubApi({ token: input('github-token'), apiUrl: process.env.GITHUB_API_URL });
  try {
    const done = await upsertComment(api, process.env.GITHUB_REPOSITORY, number, readFileSync(file, 'utf8'), input('env'));
    console.log(`plan comment ${done} on #${number}`);
  } catch (error) {
    // A fork's pull request gets a read-only token: the plan is still in the job summary.
    if (error.status === 403) console.log(`::warning::cannot comment on #${number} (read-only token); the plan is in the job summary`);
    else throw error;
  }
}

async function stepFindPlan() {
  const api = githubApi({ token: input('github-token'), apiUrl: process.env.GITHUB_API_URL });
  const repository = event().repository;
  const found = await findPlan(api, process.env.GITHUB_REPOSITORY, process.env.GITHUB_SHA, input('env'), repository?.default_branch);
  console.log(`applying the plan reviewed on #${found.pull} (head ${found.headSha}), from run ${found.runId}`);
  setOutput('artifact-name', found.artifact);
  setOutput('run-id', found.runId);
  setOutput('pull', found.pull);
  setOutput('plan-dir', dirname(input('plan-file', 'gatehouse-plan.json')));
}

/**
 * What the install step gives `npm install`, and the part of the cache key that names it:
 * `@gatehouse/cli@<version>` from the registry (`version`, else this action's own version), or
 * the release tarball `tarball` names. A tarball path is made absolute (from `cwd`, the
 * workspace) and keyed by its content, so a rebuilt file is installed again; an https URL is
 * keyed by itself (a release's URL names one file). Plain http is refused: the CLI runs with the
 * API key. Throws a message saying what to fix.
 */
export function installSource({ version = '', tarball = '', ownVersion, cwd = process.cwd(), readFile = readFileSync }) {
  if (version && tarball) throw new Error(`give version or tarball, not both (version '${version}', tarball '${tarball}')`);
  if (!tarball) {
    const v = (version || ownVersion).replace(/^v(?=\d)/, '');
    if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(v)) throw new Error(`version '${v}' is not a version like 0.1.0 (a tarball goes in the tarball input)`);
    return { spec: `@gatehouse/cli@${v}`, key: v };
  }
  const digest = (data) => createHash('sha256').update(data).digest('hex').slice(0, 16);
  if (/^https:\/\//i.test(tarball)) return { spec: tarball, key: `url-${digest(tarball)}` };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(tarball))
    throw new Error(`tarball '${tarball}': only a path or an https:// URL (the CLI runs with the API key; fetch it over TLS)`);
  const path = resolve(cwd, tarball);
  let content;
  try {
    content = readFile(path);
  } catch (error) {
    throw new Error(
      `tarball '${tarball}' cannot be read (${error.code ?? error.message}): give the path of gatehouse-cli-<version>.tgz in the workspace, or an https URL`,
      { cause: error },
    );
  }
  return { spec: path, key: `file-${digest(content)}` };
}

async function stepVersion() {
  const ownVersion = JSON.parse(readFileSync(fileURLToPath(new URL('../packages/cli/package.json', import.meta.url)), 'utf8')).version;
  const { spec, key } = installSource({ version: input('version'), tarball: input('tarball'), ownVersion, cwd: process.env.GITHUB_WORKSPACE || process.cwd() });
  setOutput('spec', spec);
  setOutput('key', key);
  console.log(`installing ${spec}`);
}

const STEPS = { version: stepVersion, run: stepRun, comment: stepComment, 'find-plan': stepFindPlan };

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const step = STEPS[process.argv[2]];
  if (!step) {
    console.error(`usage: main.mjs ${Object.keys(STEPS).join('|')}`);
    process.exit(1);
  }
  step().catch((error) => {
    console.log(`::error::${error.message}`);
    process.exit(1);
  });
}
