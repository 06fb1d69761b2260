/**
 * Starting and stopping `gatehouse watch`: the connections (one client per API for the whole
 * process, so its pacing and retries span cycles; environments with the same API and key share
 * it), the metrics endpoint, the notifier, the signals, then the loop (loop.ts) until SIGTERM
 * or SIGINT. The first signal lets the cycle end its request in flight, starts no new change,
 * releases the lock and returns; a second one exits at once (130).
 */
import { connect, type Connection } from '../connection/connect.js';
import type { ConnectionFlagValues } from '../connection/flags.js';
import type { EnvironmentRun } from '../environments/select.js';
import { isVerbose, requestLogger } from '../request-log.js';
import type { CycleOptions, WatchedEnvironment } from './cycle.js';
import { repositoryDirectory } from './git.js';
import { Health } from './health.js';
import { serveMetrics } from './http.js';
import { eventLine } from './log.js';
import { watchLoop } from './loop.js';
import { WatchMetrics } from './metrics.js';
import { DriftNotifier } from './notify.js';
import type { WatchSettings } from './settings.js';
import { webhookSender } from './webhook.js';

export interface WatchStart {
  runs: EnvironmentRun[];
  /** The project file, when there is one (the repository `--git-pull` pulls). */
  projectFile?: string | undefined;
  settings: WatchSettings;
  reading: CycleOptions['reading'];
}

/** Runs until stopped; resolves once everything is closed. */
export async function startWatch({ runs, projectFile, settings, reading }: WatchStart): Promise<void> {
  const stderr = (line: string) => process.stderr.write(line);
  const warn = (message: string) => stderr(eventLine('warn', message));
  const stop = new AbortController();
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      stderr(
        eventLine(
          'warn',
          `${signal} again: exiting at once; a change in flight may or may not have taken effect, and the stack's lock may be left (gatehouse unlock removes it)`,
        ),
      );
      process.exit(130);
    }
    stderr(eventLine('info', `${signal}: finishing the request in flight, releasing the lock, then exiting`));
    stop.abort();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  const names = runs.map((run) => run.environment?.name ?? 'default');
  const connections = new Map<string, Connection>();
  const closers: (() => Promise<void>)[] = [];
  try {
    const groups = new Map<string, WatchedEnvironment[]>();
    const metrics = new WatchMetrics({ environments: names });
    for (const [i, run] of runs.entries()) {
      const flags: ConnectionFlagValues = run.connection();
      // One client per API and key: its budget is the account's, whatever the stack.
      const key = JSON.stringify({ ...flags, stack: undefined });
      let connection = connections.get(key);
      if (!connection) {
        const verbose = requestLogger(isVerbose(flags));
        let api = '';
        connection = await connect(flags, {
          onRequest: (event) => {
            verbose?.(event);
            metrics.request(api, event);
          },
        });
        api = connection.target.embedded ? 'embedded' : connection.target.url;
        metrics.addApi(api);
        connections.set(key, connection);
        closers.push(connection.close);
      }
      groups.set(key, [...(groups.get(key) ?? []), { name: names[i]!, run, connection: { ...connection, stack: flags.stack } }]);
    }
    const health = new Health(names, settings.intervalMs);
    const server = await serveMetrics(settings.metrics, metrics, health);
    closers.push(() => server.close());
    const sender = settings.webhook ? webhookSender(settings.webhook, warn) : undefined;
    const gitDirectory = settings.gitPull ? await repositoryDirectory(projectFile, runs[0]!.paths) : undefined;

    stderr(
      eventLine('info', 'watching', {
        environments: names,
        interval_ms: settings.intervalMs,
        self_heal: settings.allow.outside,
        apply_git: settings.allow.git,
        prune: settings.allow.prune,
        git_pull: gitDirectory !== undefined,
        metrics: `${server.url}/metrics`,
        healthz: `${server.url}/healthz`,
        notify: sender !== undefined,
      }),
    );
    await watchLoop({
      groups: [...groups.values()],
      settings,
      reading,
      stop: stop.signal,
      warn,
      metrics,
      health,
      ...(sender ? { notifier: { states: new DriftNotifier(), send: (n) => sender.send(n) } } : {}),
      ...(gitDirectory !== undefined ? { gitDirectory } : {}),
      write: (line) => process.stdout.write(line),
    });
    stderr(eventLine('info', 'stopped'));
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    process.removeListener('SIGTERM', onSignal);
    process.removeListener('SIGINT', onSignal);
  }
}
