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
import { writeFileSync, readFileSync } from 'node:fs';

const MARKER = '<!-- gatehouse-plan -->';
const env = process.env;

function headers() {
  if (env.GITLAB_API_TOKEN) return { 'private-token': env.GITLAB_API_TOKEN };
  if (env.CI_JOB_TOKEN) return { 'job-token': env.CI_JOB_TOKEN };
  throw new Error('set GITLAB_API_TOKEN (a project access token with scope api) as a masked CI/CD variable');
}

async function api(method, path, body) {
  const response = await fetch(`${env.CI_API_V4_URL}/projects/${encodeURIComponent(env.CI_PROJECT_ID)}${path}`, {
    method,
    headers: { ...headers(), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`GitLab API ${method} ${path}: ${response.status} ${(await response.text()).slice(0, 300)}`);
  return response;
}
const json = async (method, path, body) => (await api(method, path, body)).json();

async function note(file) {
  const iid = env.CI_MERGE_REQUEST_IID;
  if (!iid) throw new Error('CI_MERGE_REQUEST_IID is not set: run this job in a merge request pipeline');
  const body = `${MARKER}\n${readFileSync(file, 'utf8').slice(0, 900_000)}`;
  for (let page = 1; page <= 50; page++) {
    const notes = await json('GET', `/merge_requests/${iid}/notes?per_page=100&page=${page}&sort=asc`);
    const mine = notes.find((n) => typeof n.body === 'string' && n.body.startsWith(MARKER));
    if (mine) {
      await api('PUT', `/merge_requests/${iid}/notes/${mine.id}`, { body });
      return console.log(`updated the gatehouse note of !${iid}`);
    }
    if (notes.length < 100) break;
  }
  await api('POST', `/merge_requests/${iid}/notes`, { body });
  console.log(`posted the gatehouse note on !${iid}`);
}

async function fetchPlan(job, file) {
  const sha = env.CI_COMMIT_SHA;
  const merged = (await json('GET', `/repository/commits/${sha}/merge_requests`)).filter((mr) => mr.state === 'merged');
  const mr = merged.find((m) => m.merge_commit_sha === sha || m.squash_commit_sha === sha) ?? merged[0];
  if (!mr) throw new Error(`commit ${sha} is not the merge of a merge request: there is no reviewed plan to apply`);
  const pipelines = (await json('GET', `/merge_requests/${mr.iid}/pipelines?per_page=100`)).filter((p) => p.sha === mr.sha && p.status === 'success');
  if (pipelines.length === 0) throw new Error(`!${mr.iid} has no successful pipeline for its head ${mr.sha}: re-run its plan`);
  const pipeline = pipelines.sort((a, b) => b.id - a.id)[0];
  const jobs = await json('GET', `/pipelines/${pipeline.id}/jobs?scope[]=success&per_page=100`);
  const planJob = jobs.find((j) => j.name === job);
  if (!planJob) throw new Error(`pipeline ${pipeline.id} of !${mr.iid} has no successful job '${job}'`);
  const artifact = await api('GET', `/jobs/${planJob.id}/artifacts/${file.split('/').map(encodeURIComponent).join('/')}`);
  writeFileSync(file, Buffer.from(await artifact.arrayBuffer()));
  console.log(`${file}: the plan reviewed on !${mr.iid} (head ${mr.sha}, job ${planJob.id})`);
}

const [command, ...args] = process.argv.slice(2);
const run = command === 'note' && args.length === 1 ? note(args[0])
  : command === 'fetch-plan' && args.length === 2 ? fetchPlan(args[0], args[1])
  : Promise.reject(new Error('usage: gatehouse-mr.mjs note FILE | fetch-plan JOB FILE'));
run.catch((error) => {
  console.error(`gatehouse-mr: ${error.message}`);
  process.exit(1);
});
