/**
 * examples/watch and the container image's part in running `gatehouse watch`: the project
 * validates (its ignore rules included); the Kubernetes objects and the systemd unit use flags
 * the command has and agree with each other (ports, probe, signal); the image has git and
 * exposes the metrics port. And watch refuses flags that do nothing together before it starts anything.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from './helpers/cli.js';

const EXAMPLE = join(REPO_ROOT, 'examples/watch');
const read = (path: string) => readFileSync(join(EXAMPLE, path), 'utf8');
const yamlDocs = (path: string) => parseAllDocuments(read(path)).map((d) => d.toJS() as Record<string, any>);

let help: Promise<string> | undefined;
const watchHelp = () => (help ??= runCli(['watch', '--help']).then((r) => r.stdout));
/** `--flag` names of an argument list (`--env=production`, `--self-heal`). */
const flagsOf = (args: readonly string[]) => args.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]!);

describe('examples/watch', () => {
  it('validates, ignore rules included', async () => {
    const result = await runCli(['validate', '--config', 'examples/watch/gatehouse.yaml']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('the Deployment runs watch with flags it has, serves metrics on its port and probes /healthz', async () => {
    const [deployment] = yamlDocs('kubernetes/deployment.yaml');
    const pod = deployment!.spec.template.spec;
    const container = pod.containers.find((c: { name: string }) => c.name === 'watch');
    expect(container.args[0]).toBe('watch');
    const text = await watchHelp();
    for (const flag of flagsOf(container.args)) expect(text, flag).toContain(flag);
    const port = container.ports.find((p: { name: string }) => p.name === 'metrics');
    expect(container.args).toContain(`--metrics-addr=:${port.containerPort}`);
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    // The grace period covers a heal's 30 s for its requests in flight.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    // The clone and the watcher share the repository.
    expect(pod.initContainers[0].volumeMounts[0].mountPath).toBe(container.workingDir);
  });

  it('the Service and the ServiceMonitor reach that port by name', () => {
    const [deployment] = yamlDocs('kubernetes/deployment.yaml');
    const [service] = yamlDocs('kubernetes/service.yaml');
    const [monitor] = yamlDocs('kubernetes/servicemonitor.yaml');
    const labels = deployment!.spec.template.metadata.labels;
    expect(labels).toMatchObject(service!.spec.selector);
    expect(service!.metadata.labels).toMatchObject(monitor!.spec.selector.matchLabels);
    expect(service!.spec.ports[0]).toMatchObject({ name: 'metrics', targetPort: 'metrics' });
    expect(monitor!.spec.endpoints[0]).toMatchObject({ port: 'metrics', path: '/metrics' });
    const kustomization = yamlDocs('kubernetes/kustomization.yaml')[0]!;
    expect(kustomization.resources).toEqual(['deployment.yaml', 'service.yaml', 'servicemonitor.yaml', 'prometheusrule.yaml']);
  });

  it('the alerts read metrics that watch exports', async () => {
    const [rule] = yamlDocs('kubernetes/prometheusrule.yaml');
    const source = readFileSync(join(REPO_ROOT, 'packages/cli/src/watch/metrics.ts'), 'utf8');
    for (const alert of rule!.spec.groups[0].rules) {
      for (const name of String(alert.expr).match(/gatehouse_[a-z_]+/g) ?? []) expect(source, `${alert.alert}: ${name}`).toContain(`'${name}'`);
    }
  });

  it('the systemd unit runs watch with flags it has, and stops it with SIGTERM', async () => {
    const unit = read('systemd/gatehouse-watch.service');
    const exec = /^ExecStart=(.*)$/m.exec(unit)![1]!.split(/\s+/);
    expect(exec.slice(0, 3)).toEqual(['/usr/bin/env', 'gatehouse', 'watch']);
    const text = await watchHelp();
    for (const flag of flagsOf(exec)) expect(text, flag).toContain(flag);
    expect(unit).toMatch(/^KillSignal=SIGTERM$/m);
    expect(unit).toMatch(/^EnvironmentFile=/m);
    // No credential in the unit itself.
    expect(unit).not.toMatch(/^Environment=GATEHOUSE_API_KEY/m);
  });

  it('the container image has git for --git-pull and exposes the metrics port', () => {
    const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^EXPOSE .*\b9464\b/m);
    expect(dockerfile).toMatch(/install -y --no-install-recommends git /);
  });
});

describe('gatehouse watch refuses before starting', () => {
  it.each([
    [['--prune'], /--prune .* --self-heal or --apply-git/],
    [['--interval', '100ms'], /--interval 100ms is not a duration of at least 1s/],
    [['--metrics-addr', '9464'], /--metrics-addr 9464 is not HOST:PORT/],
    [['--notify-webhook', 'ftp://hooks.example.com/secret-path'], /--notify-webhook must be an http/],
  ])('%j', async (args, message) => {
    const result = await runCli(['watch', ...args], { env: { GATEHOUSE_API_URL: 'http://127.0.0.1:9', GATEHOUSE_API_KEY: 'k-0123456789abcdef' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain('secret-path');
    expect(result.stdout).toBe('');
  });
});
