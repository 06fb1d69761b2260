#!/usr/bin/env node
/**
 * The GitLab API steps of examples/ci/gitlab/.gitlab-ci.yml (Node 20+, no dependencies):
 *
 *   node ci/gatehouse-mr.mjs note FILE
 *       posts FILE as the merge request's gatehouse note, or updates the note posted before
 *       (found by its marker), so the merge request shows one current plan
 *   node ci/gatehouse-mr.mjs fetch-plan JOB FILE
 *       on the default branch: finds the merge request merged as CI_COMMIT_SHA, the last
 *       successful pipeline of its head commit, and downloads FILE from that pipeline's JOB
 *       artifacts; fails saying what is missing rather than let anything recompute a plan
 *
 * Token: GITLAB_API_TOKEN (a project access token, scope api), else CI_JOB_TOKEN (which can
 * read job artifacts but not post notes). GitLab sets CI_API_V4_URL, CI_PROJECT_ID,
 * CI_MERGE_REQUEST_IID and CI_COMMIT_SHA.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const MARKER = '<!-- gatehouse-plan -->';

/** The token header: a project access token, else the job token. */
export function tokenHeaders(env) {
  if (env.GITLAB_API_TOKEN) return { 'private-token': env.GITLAB_API_TOKEN };
  if (env.CI_JOB_TOKEN) return { 'job-token': env.CI_JOB_TOKEN };
  throw new Error('set GITLAB_API_TOKEN (a project access token with scope api) as a masked CI/CD variable');
}

/** A client of one project's part of the GitLab REST API; `call` resolves with the Response. */
export function gitlabApi({ apiUrl, projectId, headers, fetchFn = fetch }) {
  const call = async (method, path, body) => {
    const response = await fetchFn(`${apiUrl}/projects/${encodeURIComponent(projectId)}${path}`, {
      method,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!response.ok) throw new Error(`GitLab API ${method} ${path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
    return response;
  };
  return { call, json: async (method, path, body) => (await call(method, path, body)).json() };
}

/** Posts `text` as the merge request's gatehouse note, or updates the one posted before. */
export async function upsertNote(api, iid, text) {
  const body = `${MARKER}\n${text.slice(0, 900_000)}`;
  for (let page = 1; page <= 50; page++) {
    const notes = await api.json('GET', `/merge_requests/${iid}/notes?per_page=100&page=${page}&sort=asc`);
    const mine = notes.find((n) => typeof n.body === 'string' && n.body.startsWith(MARKER));
    if (mine) {
      await api.call('PUT', `/merge_requests/${iid}/notes/${mine.id}`, { body });
      return 'updated';
    }
    if (notes.length < 100) break;
  }
  await api.call('POST', `/merge_requests/${iid}/notes`, { body });
  return 'posted';
}

/**
 * The bytes of `file` from the `job` artifacts of the last successful pipeline of the head
 * commit of the merge request merged as `sha`; throws saying what is missing.
 */
export async function fetchPlan(api, sha, job, file) {
  const merged = (await api.json('GET', `/repository/commits/${sha}/merge_requests`)).filter((mr) => mr.state === 'merged');
  const mr = merged.find((m) => m.merge_commit_sha === sha || m.squash_commit_sha === sha) ?? merged[0];
  if (!mr) throw new Error(`commit ${sha} is not the merge of a merge request: there is no reviewed plan to apply`);
  const pipelines = (await api.json('GET', `/merge_requests/${mr.iid}/pipelines?per_page=100`)).filter((p) => p.sha === mr.sha && p.status === 'success');
  if (pipelines.length === 0) throw new Error(`!${mr.iid} has no successful pipeline for its head ${mr.sha}: re-run its plan`);
  const pipeline = pipelines.sort((a, b) => b.id - a.id)[0];
  const jobs = await api.json('GET', `/pipelines/${pipeline.id}/jobs?scope[]=success&per_page=100`);
  const planJob = jobs.find((j) => j.name === job);
  if (!planJob) throw new Error(`pipeline ${pipeline.id} of !${mr.iid} has no successful job '${job}'`);
  const artifact = await api.call('GET', `/jobs/${planJob.id}/artifacts/${file.split('/').map(encodeURIComponent).join('/')}`);
  return { bytes: Buffer.from(await artifact.arrayBuffer()), mr: mr.iid, head: mr.sha, job: planJob.id };
}

async function main([command, ...args], env) {
  const api = gitlabApi({ apiUrl: env.CI_API_V4_URL, projectId: env.CI_PROJECT_ID, headers: tokenHeaders(env) });
  if (command === 'note' && args.length === 1) {
    if (!env.CI_MERGE_REQUEST_IID) throw new Error('CI_MERGE_REQUEST_IID is not set: run this job in a merge request pipeline');
    const done = await upsertNote(api, env.CI_MERGE_REQUEST_IID, readFileSync(args[0], 'utf8'));
    return console.log(`${done} the gatehouse note of !${env.CI_MERGE_REQUEST_IID}`);
  }
  if (command === 'fetch-plan' && args.length === 2) {
    const found = await fetchPlan(api, env.CI_COMMIT_SHA, args[0], args[1]);
    writeFileSync(args[1], found.bytes);
    return console.log(`${args[1]}: the plan reviewed on !${found.mr} (head ${found.head}, job ${found.job})`);
  }
  throw new Error('usage: gatehouse-mr.mjs note FILE | fetch-plan JOB FILE');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2), process.env).catch((error) => {
    console.error(`gatehouse-mr: ${error.message}`);
    process.exit(1);
  });
}
