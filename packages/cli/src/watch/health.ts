/**
 * `/healthz` of `gatehouse watch`: healthy while every environment's last successful cycle
 * ended within two intervals. One failed cycle (an API blip, a bad commit fixed minutes later)
 * does not make the watcher unhealthy; a watcher that has not reconciled for two intervals
 * (the API unreachable, manifests broken, git pull failing, the loop stuck) is. A watcher that
 * just started has two intervals to succeed a first time.
 */
export interface HealthReport {
  healthy: boolean;
  environments: Record<string, { last_success: string | null; last_outcome: string | null; healthy: boolean }>;
}

export class Health {
  readonly #intervalMs: number;
  readonly #startedAt: number;
  readonly #state = new Map<string, { lastSuccess?: number; lastOutcome?: string }>();

  constructor(environments: readonly string[], intervalMs: number, now: Date = new Date()) {
    this.#intervalMs = intervalMs;
    this.#startedAt = now.getTime();
    for (const environment of environments) this.#state.set(environment, {});
  }

  /** Records the end of a cycle of `environment`. */
  cycleEnded(environment: string, outcome: string, at: Date): void {
    const state = this.#state.get(environment) ?? {};
    state.lastOutcome = outcome;
    if (outcome === 'success') state.lastSuccess = at.getTime();
    this.#state.set(environment, state);
  }

  report(now: Date = new Date()): HealthReport {
    const window = 2 * this.#intervalMs;
    const environments: HealthReport['environments'] = {};
    let healthy = true;
    for (const [name, state] of this.#state) {
      const since = state.lastSuccess ?? this.#startedAt;
      const ok = now.getTime() - since <= window;
      healthy &&= ok;
      environments[name] = {
        last_success: state.lastSuccess === undefined ? null : new Date(state.lastSuccess).toISOString(),
        last_outcome: state.lastOutcome ?? null,
        healthy: ok,
      };
    }
    return { healthy, environments };
  }
}
