/**
 * `gatehouse watch`'s own settings, read from its flags and checked before anything starts: the
 * interval, what a cycle may apply, where metrics are served and where notifications go. Each
 * refusal says which flag and what to give instead (exit 1, nothing started).
 */
import { CliError } from '../errors.js';
import { parseDuration } from '../duration.js';
import type { HealPermissions } from '@gatehouse/engine/drift';

/** The shortest interval: a cycle lists every kind (some 17 requests), so faster only spends the budget. */
const MIN_INTERVAL_MS = 1000;

export interface ListenAddress {
  host: string;
  port: number;
}

export interface WatchSettings {
  intervalMs: number;
  /** What a cycle applies: changes made outside (`--self-heal`), from git (`--apply-git`), deletes (`--prune`). */
  allow: HealPermissions;
  /** `--git-pull`: the repository holding the manifests is pulled (fast-forward only) before each cycle. */
  gitPull: boolean;
  metrics: ListenAddress;
  /** `--notify-webhook` (or GATEHOUSE_NOTIFY_WEBHOOK); never printed, it is a credential. */
  webhook?: URL;
  /** How long a heal waits for the stack's lock (`--lock-timeout`, default 0: the next cycle tries again). */
  lockTimeoutMs: number;
}

export interface WatchFlagValues {
  interval: string;
  'self-heal': boolean;
  'apply-git': boolean;
  prune: boolean;
  'git-pull': boolean;
  'metrics-addr': string;
  'notify-webhook'?: string | undefined;
  'lock-timeout': number;
}

export function readWatchSettings(flags: WatchFlagValues): WatchSettings {
  const intervalMs = parseDuration(flags.interval);
  if (intervalMs === undefined || intervalMs < MIN_INTERVAL_MS) {
    throw new CliError('watch_flags', `--interval ${flags.interval} is not a duration of at least 1s; give e.g. 30s, 5m or 1h`);
  }
  if (flags.prune && !flags['self-heal'] && !flags['apply-git']) {
    throw new CliError(
      'watch_flags',
      '--prune lets a cycle delete, but nothing is applied without --self-heal or --apply-git; add one of them, or leave --prune out',
    );
  }
  return {
    intervalMs,
    allow: { outside: flags['self-heal'], git: flags['apply-git'], prune: flags.prune },
    gitPull: flags['git-pull'],
    metrics: parseListenAddress(flags['metrics-addr']),
    ...(flags['notify-webhook'] !== undefined ? { webhook: parseWebhook(flags['notify-webhook']) } : {}),
    lockTimeoutMs: flags['lock-timeout'],
  };
}

/** `127.0.0.1:9464`, `[::1]:9464`, `:9464` (every interface, as Prometheus exporters write it), port 0 for any free one. */
export function parseListenAddress(text: string): ListenAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    throw new CliError('watch_flags', `--metrics-addr ${text} is not HOST:PORT; give e.g. 127.0.0.1:9464, or :9464 to listen on every interface (a pod's)`);
  }
  const host = match[1] ?? (match[2] === '' ? '0.0.0.0' : match[2]!);
  return { host, port };
}

/** An http(s) URL; its text is never echoed (a Slack or Teams webhook URL is a credential). */
export function parseWebhook(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(
      'watch_flags',
      '--notify-webhook (or GATEHOUSE_NOTIFY_WEBHOOK) is not a URL; give the incoming webhook URL of Slack, Microsoft Teams or your own receiver',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new CliError('watch_flags', `--notify-webhook must be an http:// or https:// URL, not ${url.protocol}`);
  }
  return url;
}

/** The webhook as logs may name it: its origin only (the path of a Slack webhook is its secret). */
export const webhookOrigin = (url: URL): string => url.origin;
