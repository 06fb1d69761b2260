/**
 * Notifications of `gatehouse watch`: what to tell, once per change of state, never every cycle.
 *
 * Each drifted object of an environment is in one of two states: `drifted` or `heal_failed`
 * (absent: in sync). After a cycle, per object:
 *
 *     in sync       -> drifted        drift_detected   (with what the heal did, if it ran, below)
 *     drifted       -> healed         drift_healed     (this watcher's apply set it right)
 *     drifted       -> heal failed    heal_failed      (once; failing again says nothing)
 *     drifted       -> in sync        drift_resolved   (set right by someone else: a pipeline, a person)
 *
 * The objects of one event in one cycle go in one message. A message has a `text` that Slack
 * and Microsoft Teams incoming webhooks show as it is, and structured fields for other
 * receivers. It never holds a value: addresses, kinds, causes and field paths only, so no
 * secret (and nothing another team owns) leaves; every string that came from the manifests or
 * the API is sanitized (control and bidirectional characters escaped), and in `text` is quoted
 * as code with `&`, `<` and `>` escaped, so that it can neither mention a channel (`<!here>`)
 * nor make a link.
 */
import { sanitize } from '@gatehouse/engine/core';

type NotificationEvent = 'drift_detected' | 'drift_healed' | 'heal_failed' | 'drift_resolved';

/** A drifted object as a cycle saw it (before any heal). */
export interface DriftedItem {
  address: string;
  kind: string;
  /** The drift kind: changed_outside, deleted_outside, changed_in_manifests, missing, changed, duplicate. */
  cause: string;
  /** Paths of the fields that differ (values never). */
  fields: string[];
}

/** What one cycle of one environment found and did. */
export interface CycleFindings {
  environment: string;
  stack: string;
  drifted: readonly DriftedItem[];
  /** Addresses the heal set right. */
  healed: readonly string[];
  /** Addresses the heal tried and failed, with why (sanitized here). */
  failed: readonly { address: string; reason: string }[];
}

/** A drifted object as a message names it; `reason` (heal_failed) says why its heal failed. */
type NotificationObject = DriftedItem & { reason?: string };

export interface Notification {
  /** What Slack and Teams show. */
  text: string;
  event: NotificationEvent;
  environment: string;
  stack: string;
  objects: NotificationObject[];
  time: string;
}

type State = 'drifted' | 'heal_failed';

/** The objects a message names in its text before "and N more" (all are in `objects`). */
const TEXT_SHOWN = 10;
/** Longest reason kept (an API error's text). */
const REASON_MAX = 300;

export class DriftNotifier {
  readonly #states = new Map<string, Map<string, { state: State; item: DriftedItem }>>();

  /** The messages this cycle's findings call for (none when nothing changed state). */
  observe(findings: CycleFindings, now: Date = new Date()): Notification[] {
    const previous = this.#states.get(findings.environment) ?? new Map<string, { state: State; item: DriftedItem }>();
    const next = new Map<string, { state: State; item: DriftedItem }>();
    const healed = new Set(findings.healed);
    const failed = new Map(findings.failed.map((f) => [f.address, f.reason]));
    const events: Record<NotificationEvent, NotificationObject[]> = { drift_detected: [], drift_healed: [], heal_failed: [], drift_resolved: [] };
    for (const item of findings.drifted) {
      const before = previous.get(item.address)?.state;
      const object = toObject(item);
      if (before === undefined) events.drift_detected.push(object);
      if (healed.has(item.address)) {
        events.drift_healed.push(object);
        continue;
      }
      const reason = failed.get(item.address);
      if (reason !== undefined) {
        if (before !== 'heal_failed') events.heal_failed.push({ ...object, reason: clip(sanitize(reason), REASON_MAX) });
        next.set(item.address, { state: 'heal_failed', item });
        continue;
      }
      next.set(item.address, { state: before ?? 'drifted', item });
    }
    for (const [address, { item }] of previous) {
      if (!findings.drifted.some((d) => d.address === address)) events.drift_resolved.push(toObject(item));
    }
    this.#states.set(findings.environment, next);
    const order: NotificationEvent[] = ['drift_detected', 'drift_healed', 'heal_failed', 'drift_resolved'];
    return order
      .filter((event) => events[event].length > 0)
      .map((event) => ({
        text: messageText(event, findings, events[event]),
        event,
        environment: sanitize(findings.environment),
        stack: sanitize(findings.stack),
        objects: events[event],
        time: now.toISOString(),
      }));
  }
}

const toObject = (item: DriftedItem): NotificationObject => ({
  address: sanitize(item.address),
  kind: sanitize(item.kind),
  cause: item.cause,
  fields: item.fields.map((f) => sanitize(f)),
});

const CAUSES: Record<string, string> = {
  changed_outside: 'changed outside gatehouse',
  deleted_outside: 'deleted outside gatehouse',
  changed_in_manifests: 'changed in the manifests, not applied',
  missing: 'missing (not applied yet, or deleted outside gatehouse)',
  changed: 'changed (cause unknown)',
  duplicate: 'a duplicate of an object of the stack',
};

const HEADLINES: Record<NotificationEvent, (n: string) => string> = {
  drift_detected: (n) => `drift detected: ${n}`,
  drift_healed: (n) => `drift healed: ${n} made to match the manifests again`,
  heal_failed: (n) => `healing failed: ${n} could not be set back`,
  drift_resolved: (n) => `drift resolved: ${n} in sync again (set right outside this watcher)`,
};

function messageText(event: NotificationEvent, findings: CycleFindings, objects: readonly NotificationObject[]): string {
  const n = `${objects.length} object${objects.length === 1 ? '' : 's'}`;
  const lines = [`gatehouse ${HEADLINES[event](n)} in environment ${code(findings.environment)}, stack ${code(findings.stack)}`];
  for (const o of objects.slice(0, TEXT_SHOWN)) {
    const fields = o.fields.length > 0 ? ` (${o.fields.slice(0, 5).map(code).join(', ')}${o.fields.length > 5 ? ', …' : ''})` : '';
    const reason = o.reason !== undefined ? `: ${code(o.reason)}` : '';
    lines.push(`• ${code(o.address)} ${escapeText(CAUSES[o.cause] ?? o.cause)}${fields}${reason}`);
  }
  if (objects.length > TEXT_SHOWN) lines.push(`… and ${objects.length - TEXT_SHOWN} more`);
  return lines.join('\n');
}

/** Text for Slack and Teams: `&`, `<`, `>` escaped (Slack's rule; no mention, no link). */
const escapeText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A value as inline code that it cannot close (backticks become ʼ), escaped and sanitized. */
const code = (text: string): string => `\`${escapeText(sanitize(text)).replace(/`/g, 'ʼ')}\``;

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
