import { Args, Flags } from '@oclif/core';
import { Command } from '../command.js';
import { failCommand } from '../command-run.js';
import { connectionFlags } from '../connection/flags.js';
import { environmentFlags } from '../environments/flags.js';
import { explicitFlags, selectEnvironments } from '../environments/select.js';
import { lockTimeoutFlag } from '../lock-flags.js';
import { manifestFlags, readingOptions } from '../manifest-flags.js';
import { printOut } from '../output.js';
import { eventLine } from '../watch/log.js';
import { readWatchSettings } from '../watch/settings.js';
import { startWatch } from '../watch/start.js';

// A deadline bounds one command's requests; a watcher runs for good (--timeout bounds each request).
const { deadline: _deadline, ...watchConnectionFlags } = connectionFlags;

/** `gatehouse watch`: reconcile continuously (src/watch/; the user's guide is docs/watch.md). */
export default class Watch extends Command {
  static override summary = 'Reconcile continuously: report drift every interval, heal it if asked, serve metrics.';
  static override description =
    'A long-running loop. Every --interval it reads the manifests (with --git-pull, pulls the repository first; a failed pull skips ' +
    'the cycle), lists the live state, plans and classifies the drift: changed or deleted outside gatehouse, or changed in git. ' +
    'It writes one JSON line per cycle on stdout, keeps Prometheus metrics and a health check on --metrics-addr (/metrics, ' +
    '/healthz: 200 while the last successful cycle ended within two intervals, 503 otherwise), and with --notify-webhook posts ' +
    'a message when drift appears, is healed, fails to heal or is resolved: once per change, never every cycle.\n\n' +
    'Nothing is written unless asked: --self-heal undoes changes and deletions made outside gatehouse; --apply-git applies the ' +
    "changes of the manifests (and those whose cause is unknown); --prune lets those delete. Every heal takes the stack's lock, " +
    'reading the live state again under it, so two watchers never heal at once and a watcher never races a pipeline (a held ' +
    'lock is tried again at the next cycle).\n\n' +
    'SIGTERM (or Ctrl-C) lets the request in flight finish, starts no new change, releases the lock and exits 0. With ' +
    'gatehouse.yaml, --env NAME watches one environment and --env all every one, each against its own API and stack.';
  static override strict = false;
  static override args = {
    path: Args.string({ description: 'manifest file or directory (repeatable; default: the manifests of gatehouse.yaml, or the current directory)' }),
  };
  static override flags = {
    interval: Flags.string({
      description: 'time from the start of one cycle to the start of the next (at least 1s): 30s, 5m, 1h',
      default: '5m',
      env: 'GATEHOUSE_WATCH_INTERVAL',
    }),
    'self-heal': Flags.boolean({
      description: 'apply the changes whose cause is outside gatehouse: objects changed or deleted outside it are set back',
      default: false,
    }),
    'apply-git': Flags.boolean({
      description: 'apply the changes of the manifests (and those whose cause is unknown, such as objects not applied yet)',
      default: false,
    }),
    prune: Flags.boolean({ description: 'let --self-heal and --apply-git delete (objects removed from the manifests, duplicates)', default: false }),
    'git-pull': Flags.boolean({
      description: 'run git pull --ff-only in the repository of the manifests before each cycle; a failed pull skips the cycle',
      default: false,
    }),
    'metrics-addr': Flags.string({
      description: 'where /metrics and /healthz listen: HOST:PORT, :PORT for every interface (a pod), port 0 for a free one',
      default: '127.0.0.1:9464',
      env: 'GATEHOUSE_METRICS_ADDR',
    }),
    'notify-webhook': Flags.string({
      description:
        'post a JSON message (with a text field for Slack and Microsoft Teams) on each change of drift state; prefer the variable: the URL is a credential',
      env: 'GATEHOUSE_NOTIFY_WEBHOOK',
    }),
    'lock-timeout': lockTimeoutFlag,
    ...manifestFlags,
    ...watchConnectionFlags,
    ...environmentFlags,
  };
  static override examples = [
    '<%= config.bin %> watch manifests/ --interval 5m   # report drift only: logs, metrics, healthz',
    '<%= config.bin %> watch manifests/ --self-heal --metrics-addr :9464   # set back what is changed by hand',
    '<%= config.bin %> watch --env all --git-pull --apply-git --self-heal --prune   # a GitOps agent for every environment',
    'GATEHOUSE_NOTIFY_WEBHOOK=https://hooks.slack.com/services/... <%= config.bin %> watch manifests/',
  ];

  async run(): Promise<void> {
    const { argv, flags, metadata } = await this.parse(Watch);
    const fail = (error: unknown): never => failCommand(this, error, 'nothing was watched');
    const settings = await Promise.resolve()
      .then(() => readWatchSettings(flags))
      .catch(fail);
    const selection = await selectEnvironments({
      argv: argv as string[],
      flags,
      explicit: explicitFlags(flags, metadata),
      allowAll: true,
      command: 'watch',
    }).catch(fail);
    await startWatch({
      runs: selection.runs,
      projectFile: selection.project?.file,
      settings,
      reading: readingOptions(flags, onceOnStderr()),
    }).catch(fail);
    // Requests and timers are all closed; exit now rather than wait for a lingering handle.
    await printOut('');
    process.exit(0);
  }
}

/** Warnings of reading the manifests (a symbolic link loop), as log lines: each once, not every cycle. */
function onceOnStderr(): (line: string) => void {
  const said = new Set<string>();
  return (line) => {
    if (said.has(line)) return;
    said.add(line);
    process.stderr.write(eventLine('warn', line.replace(/^warning: /, '')));
  };
}
