/**
 * `gatehouse watch`'s Prometheus metrics (prom-client), named `gatehouse_<thing>_<unit>` with
 * few labels, as Argo CD and Flux name theirs:
 *
 *   gatehouse_drift_objects{environment,kind,cause}            gauge: objects drifted at the end of the last cycle
 *   gatehouse_healed_objects_total{environment,kind,cause}     counter: objects a heal set right
 *   gatehouse_cycle_duration_seconds{environment}              histogram
 *   gatehouse_cycles_total{environment,outcome}                counter: success, failed, skipped, interrupted
 *   gatehouse_last_success_timestamp_seconds{environment}      gauge: end of the last successful cycle
 *   gatehouse_applies_total{environment,outcome}               counter: done, failed, refused, locked, interrupted
 *   gatehouse_api_requests_total{api,method,code}              counter: every attempt (code: HTTP status, or "none")
 *   gatehouse_api_rate_limited_total{api}                      counter: attempts answered 429
 *
 * plus prom-client's default process and Node.js metrics. `environment` is the gatehouse.yaml
 * environment, or `default` without one; `api` the API's URL (`embedded` for the embedded server).
 * A drift series that was set once stays, at 0, when its drift ends: a dashboard sees it return
 * to 0 instead of vanishing. Label values come from kinds and causes gatehouse defines, never
 * from names in the manifests or the API, so the number of series stays small.
 */
import * as prom from 'prom-client';
import type { RequestEvent } from '@gatehouse/client';

const CYCLE_OUTCOMES = ['success', 'failed', 'skipped', 'interrupted'] as const;
export type CycleOutcome = (typeof CYCLE_OUTCOMES)[number];

const APPLY_OUTCOMES = ['done', 'failed', 'refused', 'locked', 'interrupted'] as const;
export type ApplyOutcome = (typeof APPLY_OUTCOMES)[number];

/** A drifted object as the gauge counts it. */
export interface DriftCount {
  kind: string;
  cause: string;
}

export class WatchMetrics {
  readonly registry: prom.Registry = new prom.Registry();
  readonly #drift: prom.Gauge<'environment' | 'kind' | 'cause'>;
  readonly #healed: prom.Counter<'environment' | 'kind' | 'cause'>;
  readonly #duration: prom.Histogram<'environment'>;
  readonly #cycles: prom.Counter<'environment' | 'outcome'>;
  readonly #lastSuccess: prom.Gauge<'environment'>;
  readonly #applies: prom.Counter<'environment' | 'outcome'>;
  readonly #requests: prom.Counter<'api' | 'method' | 'code'>;
  readonly #rateLimited: prom.Counter<'api'>;
  /** Per environment, the `kind\0cause` pairs its drift gauge has ever set. */
  readonly #seen = new Map<string, Set<string>>();

  constructor(options: { environments: readonly string[]; defaultMetrics?: boolean }) {
    const registers = [this.registry];
    this.#drift = new prom.Gauge({
      name: 'gatehouse_drift_objects',
      help: 'Objects that differ from the manifests at the end of the last cycle, by kind and cause (drift kind: changed_outside, deleted_outside, changed_in_manifests, missing, changed, duplicate)',
      labelNames: ['environment', 'kind', 'cause'],
      registers,
    });
    this.#healed = new prom.Counter({
      name: 'gatehouse_healed_objects_total',
      help: 'Objects a heal set right, by kind and the cause of their drift',
      labelNames: ['environment', 'kind', 'cause'],
      registers,
    });
    this.#duration = new prom.Histogram({
      name: 'gatehouse_cycle_duration_seconds',
      help: 'Duration of a reconcile cycle (read, plan, drift, heal)',
      labelNames: ['environment'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    });
    this.#cycles = new prom.Counter({
      name: 'gatehouse_cycles_total',
      help: 'Reconcile cycles by outcome: success, failed (manifests or API), skipped (git pull failed), interrupted (SIGTERM)',
      labelNames: ['environment', 'outcome'],
      registers,
    });
    this.#lastSuccess = new prom.Gauge({
      name: 'gatehouse_last_success_timestamp_seconds',
      help: 'Unix time at which the last successful cycle ended',
      labelNames: ['environment'],
      registers,
    });
    this.#applies = new prom.Counter({
      name: 'gatehouse_applies_total',
      help: 'Heals attempted, by outcome: done, failed (a change failed), refused (a safety rail), locked (another apply held the lock), interrupted',
      labelNames: ['environment', 'outcome'],
      registers,
    });
    this.#requests = new prom.Counter({
      name: 'gatehouse_api_requests_total',
      help: 'Requests to the management API (every attempt), by method and HTTP status ("none" when no answer came)',
      labelNames: ['api', 'method', 'code'],
      registers,
    });
    this.#rateLimited = new prom.Counter({
      name: 'gatehouse_api_rate_limited_total',
      help: 'Requests the management API answered 429 (rate limit or too many at once)',
      labelNames: ['api'],
      registers,
    });
    // Every series a dashboard or an alert may read exists from the start, at 0.
    for (const environment of options.environments) {
      for (const outcome of CYCLE_OUTCOMES) this.#cycles.inc({ environment, outcome }, 0);
      for (const outcome of APPLY_OUTCOMES) this.#applies.inc({ environment, outcome }, 0);
    }
    if (options.defaultMetrics !== false) prom.collectDefaultMetrics({ register: this.registry });
  }

  /** An API the watcher talks to: its 429 counter exists from the start, at 0. */
  addApi(api: string): void {
    this.#rateLimited.inc({ api }, 0);
  }

  /**
   * Sets the drift gauge of `environment` to the objects drifted now (`remaining`). Series set
   * before, and those of `seen` (the objects a heal just set right), are 0 when absent from it.
   */
  setDrift(environment: string, remaining: readonly DriftCount[], seen: readonly DriftCount[] = []): void {
    const key = (o: DriftCount) => `${o.kind}\0${o.cause}`;
    const counts = new Map<string, number>();
    for (const o of remaining) counts.set(key(o), (counts.get(key(o)) ?? 0) + 1);
    const known = this.#seen.get(environment) ?? new Set<string>();
    this.#seen.set(environment, known);
    for (const o of [...remaining, ...seen]) known.add(key(o));
    for (const k of known) {
      const [kind, cause] = k.split('\0') as [string, string];
      this.#drift.set({ environment, kind, cause }, counts.get(k) ?? 0);
    }
  }

  healed(environment: string, objects: readonly DriftCount[]): void {
    for (const o of objects) this.#healed.inc({ environment, kind: o.kind, cause: o.cause });
  }

  cycle(environment: string, outcome: CycleOutcome, seconds: number, endedAt: Date): void {
    this.#cycles.inc({ environment, outcome });
    this.#duration.observe({ environment }, seconds);
    if (outcome === 'success') this.#lastSuccess.set({ environment }, endedAt.getTime() / 1000);
  }

  applied(environment: string, outcome: ApplyOutcome): void {
    this.#applies.inc({ environment, outcome });
  }

  /** The client's `onRequest` event of `api`: one attempt. */
  request(api: string, event: RequestEvent): void {
    this.#requests.inc({ api, method: event.method, code: event.status === undefined ? 'none' : String(event.status) });
    if (event.status === 429) this.#rateLimited.inc({ api });
  }

  /** The text exposition format, as `/metrics` serves it. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
