/**
 * Fault injection, FOR TESTS ONLY: makes a fraction of authenticated requests fail the way a
 * network and a busy service make them fail, so that the engine's tests can prove that apply
 * converges and that retries never create duplicates.
 *
 * Three failure modes, chosen per faulted request:
 * - `before`: answered 503 `service_unavailable` before anything is done (safe to retry).
 * - `after-503`: the request is fully processed (its transaction committed), then answered 503,
 *   so the client believes it failed although the change happened.
 * - `after-drop`: the request is fully processed, then the connection is destroyed without an
 *   answer (the client sees a reset / "other side closed"). Under `app.inject`, which has no
 *   connection, it answers as `after-503` does.
 *
 * With a seed the sequence of decisions is deterministic: the n-th request to reach this hook
 * gets the n-th draw of a seeded generator (concurrent requests draw in arrival order).
 * Requests rejected by authentication or versioning are never faulted.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

export const FAULT_MODES = ['before', 'after-503', 'after-drop'] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

export interface FaultInjection {
  /** Fraction of requests that fail, 0..1. */
  rate: number;
  /** Seed of the generator; decisions are random (unseeded) when absent. */
  seed?: number;
  /** Modes to choose from, evenly; all three when absent. */
  modes?: readonly FaultMode[];
}

/**
 * Parses the `serve` flags: `rate` is a fraction (`0.2`), `modes` a comma-separated subset of
 * FAULT_MODES. Throws an Error whose message says what is wrong.
 */
export function parseFaultInjection(rate: string, seed?: string, modes?: string): FaultInjection {
  const fraction = Number(rate);
  if (rate.trim() === '' || !Number.isFinite(fraction) || fraction < 0 || fraction > 1) {
    throw new Error(`fault rate '${rate}' must be a number between 0 and 1`);
  }
  const result: FaultInjection = { rate: fraction };
  if (seed !== undefined) {
    if (!/^\d+$/.test(seed.trim())) throw new Error(`fault seed '${seed}' must be a non-negative integer`);
    result.seed = Number(seed);
  }
  if (modes !== undefined) {
    const list = modes
      .split(',')
      .map((m) => m.trim())
      .filter((m) => m !== '');
    const unknown = list.filter((m) => !(FAULT_MODES as readonly string[]).includes(m));
    if (list.length === 0 || unknown.length > 0) {
      throw new Error(`fault modes '${modes}' must be a comma-separated subset of ${FAULT_MODES.join(', ')}`);
    }
    result.modes = list as FaultMode[];
  }
  return result;
}

/** mulberry32: a small, fast, seedable generator of floats in [0, 1); quality is ample here. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Decides, request by request, whether and how to fail. */
export function faultPlanner(options: FaultInjection): () => FaultMode | undefined {
  const random = options.seed === undefined ? Math.random : seededRandom(options.seed);
  const modes = options.modes && options.modes.length > 0 ? options.modes : FAULT_MODES;
  return () => {
    const fail = random() < options.rate;
    const pick = random();
    return fail ? modes[Math.min(modes.length - 1, Math.floor(pick * modes.length))] : undefined;
  };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The fault chosen for this request, if any (fault injection only). */
    injectedFault: FaultMode | undefined;
  }
}

const unavailable = (when: string) =>
  new ApiError('service_unavailable', `Injected fault (tests only): the request failed ${when}; retry.`, {
    injected_fault: true,
  });

/** Registers the hooks; call after authentication so that only accepted requests are faulted. */
export function registerFaultInjection(app: FastifyInstance, options: FaultInjection): void {
  const next = faultPlanner(options);
  app.decorateRequest('injectedFault', undefined);
  app.addHook('onRequest', async (request) => {
    request.injectedFault = next();
    if (request.injectedFault === 'before') throw unavailable('before it was processed');
  });
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload) => {
    const fault = request.injectedFault;
    if (fault !== 'after-503' && fault !== 'after-drop') return payload;
    request.injectedFault = undefined; // the replacement answer must not be faulted again
    if (fault === 'after-drop') {
      const socket = request.raw.socket as { destroy?: () => void } | undefined;
      if (typeof socket?.destroy === 'function') {
        socket.destroy();
        return payload;
      }
      // `app.inject` has no connection to cut: the answer is lost as `after-503` loses it.
    }
    const error = unavailable('after it was processed (the change, if any, was made)');
    reply.code(error.status).type('application/json');
    return JSON.stringify(error.envelope(request.id));
  });
}
